import { parseBlob } from '@roost/read-state'
import { type RelayHandle, startRelay } from '@roost/relay'
import { finalizeEvent, type NostrEvent } from 'nostr-tools'
import * as nip44 from 'nostr-tools/nip44'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { LocalSigner, MemoryEventStore, Nip07Signer, nobleVerifier, RelayPool, type Signer } from '../src'
import {
  type ReadStateChange,
  type ReadStatePool,
  ReadStateSync,
  type ReadStateSyncOptions,
} from '../src/read-state'

/** A hand-driven clock and timer queue: the debounce elapses when the test says so. */
class FakeTimers {
  now = Date.now()
  private seq = 0
  private tasks = new Map<number, { at: number; fn: () => void }>()
  readonly timers = {
    setTimeout: (fn: () => void, ms: number) => {
      const id = ++this.seq
      this.tasks.set(id, { at: this.now + ms, fn })
      return id
    },
    clearTimeout: (h: unknown) => {
      this.tasks.delete(h as number)
    },
  }
  clock = () => this.now
  advance(ms: number): void {
    this.now += ms
    for (const [id, t] of [...this.tasks].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at <= this.now && this.tasks.delete(id)) t.fn()
    }
  }
  pending(): number {
    return this.tasks.size
  }
}

const closers: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) {
    try {
      await c()
    } catch {}
  }
})

async function relay(): Promise<RelayHandle> {
  const r = await startRelay({ port: 0 })
  closers.push(() => r.close())
  return r
}

function pool(): RelayPool {
  const p = new RelayPool({
    websocket: WebSocket as unknown as typeof globalThis.WebSocket,
    verifier: nobleVerifier,
    backoff: { baseMs: 50, maxMs: 400 },
    publishTimeout: 3_000,
    eoseTimeout: 3_000,
  })
  closers.push(() => p.close())
  return p
}

function device(
  r: RelayHandle,
  signer: Signer,
  extra: Partial<ReadStateSyncOptions> & { timers?: FakeTimers } = {},
): { sync: ReadStateSync; fake: FakeTimers; store: MemoryEventStore } {
  const fake = extra.timers ?? new FakeTimers()
  const store = (extra.store as MemoryEventStore | undefined) ?? new MemoryEventStore()
  const sync = new ReadStateSync({
    pool: pool(),
    signer,
    store,
    relays: [r.url],
    clock: fake.clock,
    fetchTimeout: 3_000,
    ...extra,
    timers: fake.timers,
  })
  closers.push(() => sync.close())
  return { sync, fake, store }
}

/** Resolves with the first change a listener hears that satisfies `pred`; rejects after `ms`. */
function nextChange(
  sync: ReadStateSync,
  pred: (c: ReadStateChange) => boolean,
  ms = 4_000,
): Promise<ReadStateChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off()
      reject(new Error(`no matching change in ${ms} ms`))
    }, ms)
    const off = sync.subscribe((c) => {
      if (!pred(c)) return
      clearTimeout(timer)
      off()
      resolve(c)
    })
  })
}

const CH = "ws://127.0.0.1'general"

describe('ReadStateSync against the relay', () => {
  it('a mark on one device reaches the other once the debounce elapses, and not before', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const a = device(r, signer)
    const b = device(r, signer)
    await Promise.all([a.sync.ready, b.sync.ready])
    expect(a.sync.clientId).not.toBe(b.sync.clientId)

    const heard = nextChange(b.sync, (c) => c.contexts.includes(CH))
    a.sync.markRead(CH, 1_700_000_100)
    expect(a.sync.effective(CH)).toBe(1_700_000_100)
    expect(a.sync.status()?.inFlight).toBeNull() // debounced, nothing sent yet
    a.fake.advance(4_999)
    expect(a.sync.status()?.inFlight).toBeNull()
    expect(b.sync.effective(CH)).toBeUndefined()
    a.fake.advance(1) // the 5 s debounce elapses: read-before-write, then publish
    // b's clock never moves: the change reaches it on a's publish alone.
    const change = await heard
    expect(change.remote).toBe(true)
    expect(b.sync.effective(CH)).toBe(1_700_000_100)
    expect(b.sync.frontier(CH)).toBe(1_700_000_100)
  })

  it('publishes one self-encrypted kind 30078 with exactly one d and one t tag, readable with nostr-tools', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const a = device(r, signer)
    await a.sync.ready
    a.sync.markRead(CH, 1_700_000_200)
    a.sync.markRead(`thread:${'ab'.repeat(32)}`, 1_700_000_300)
    await a.sync.flush()
    const pk = await signer.getPublicKey()
    const events = await pool().fetch([r.url], [{ kinds: [30078], authors: [pk], '#t': ['read-state'] }])
    expect(events).toHaveLength(1)
    const e = events[0]!
    expect(e.tags).toEqual([
      ['d', `read-state:${a.sync.slotId}`],
      ['t', 'read-state'],
    ])
    const plaintext = nip44.decrypt(e.content, nip44.getConversationKey(signer.secretKey, pk))
    expect(parseBlob(plaintext)).toMatchObject({
      ok: true,
      blob: {
        clientId: a.sync.clientId,
        contexts: { [CH]: 1_700_000_200, [`thread:${'ab'.repeat(32)}`]: 1_700_000_300 },
      },
    })
    expect(Object.keys(JSON.parse(plaintext))).toEqual(['v', 'client_id', 'contexts'])
  })

  it('the other device re-publishes what it learned, and neither loses the other’s contexts', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const a = device(r, signer)
    const b = device(r, signer)
    await Promise.all([a.sync.ready, b.sync.ready])
    b.sync.markRead('b-only', 5)
    await b.sync.flush()
    const heard = nextChange(b.sync, (c) => c.contexts.includes('a-only'))
    a.sync.markRead('a-only', 7)
    await a.sync.flush()
    await heard
    // b owes a re-publish carrying a-only (live trigger), after its debounce
    expect(b.sync.status()?.pending).toBe(true)
    b.fake.advance(5_000)
    await b.sync.flush()
    const pk = await signer.getPublicKey()
    const blobs = (await pool().fetch([r.url], [{ kinds: [30078], authors: [pk] }])).map((e) =>
      parseBlob(nip44.decrypt(e.content, nip44.getConversationKey(signer.secretKey, pk))),
    )
    expect(blobs).toHaveLength(2)
    for (const blob of blobs)
      expect(blob.ok && { ...blob.blob.contexts }).toEqual({ 'a-only': 7, 'b-only': 5 })
  })

  it('persists client_id, slot and marks per pubkey; a restart reuses them and a new device loads them', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const store = new MemoryEventStore()
    const first = device(r, signer, { store })
    await first.sync.ready
    first.sync.markRead(CH, 42)
    const ids = { clientId: first.sync.clientId, slotId: first.sync.slotId }
    await first.sync.close() // flushes
    const again = device(r, signer, { store })
    await again.sync.ready
    expect({ clientId: again.sync.clientId, slotId: again.sync.slotId }).toEqual(ids)
    expect(again.sync.effective(CH)).toBe(42)
    expect(again.sync.status()?.pending).toBe(false)

    const other = LocalSigner.generate()
    const otherSync = device(r, other, { store })
    await otherSync.sync.ready
    expect(otherSync.sync.clientId).not.toBe(ids.clientId)
    expect(otherSync.sync.effective(CH)).toBeUndefined()

    const fresh = device(r, signer)
    await fresh.sync.ready
    expect(fresh.sync.effective(CH)).toBe(42)
  })

  it('verifies the signature before decrypting: a forged blob is never decrypted nor merged', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const pk = await signer.getPublicKey()
    const content = await signer.nip44.encrypt(pk, '{"v":1,"client_id":"forger","contexts":{"evil":99}}')
    const forged: NostrEvent = {
      ...finalizeEvent(
        {
          kind: 30078,
          created_at: Math.floor(Date.now() / 1000),
          tags: [
            ['d', 'read-state:x'],
            ['t', 'read-state'],
          ],
          content,
        },
        signer.secretKey,
      ),
    }
    forged.sig = forged.sig.replace(/^./, (c) => (c === '0' ? '1' : '0'))
    const decrypted: string[] = []
    const counting: Signer = {
      getPublicKey: () => signer.getPublicKey(),
      signEvent: (t) => signer.signEvent(t),
      nip44: {
        encrypt: (p, t) => signer.nip44.encrypt(p, t),
        decrypt: (p, c) => {
          decrypted.push(c)
          return signer.nip44.decrypt(p, c)
        },
      },
    }
    const real = pool()
    const faulty: ReadStatePool = {
      fetch: async (relays, filters, opts) => [
        JSON.parse(JSON.stringify(forged)) as NostrEvent, // as from the wire: no verified brand
        ...(await real.fetch(relays, filters, opts)),
      ],
      subscribe: (relay, filters, handlers, opts) => real.subscribe(relay, filters, handlers, opts),
      publish: (relays, event, opts) => real.publish(relays, event, opts),
    }
    const a = device(r, counting, { pool: faulty })
    await a.sync.ready
    expect(a.sync.effective('evil')).toBeUndefined()
    expect(decrypted).not.toContain(content)
  })

  it('a blob it cannot decrypt is ignored and the rest of the load still merges', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const pk = await signer.getPublicKey()
    const p = pool()
    const now = Math.floor(Date.now() / 1000)
    const other = LocalSigner.generate() // encrypted to someone else: undecryptable for us
    const junk = finalizeEvent(
      {
        kind: 30078,
        created_at: now,
        tags: [
          ['d', 'read-state:junk'],
          ['t', 'read-state'],
        ],
        content: await other.nip44.encrypt(pk, '{"v":1,"client_id":"x","contexts":{"junk":1}}'),
      },
      signer.secretKey,
    )
    const good = finalizeEvent(
      {
        kind: 30078,
        created_at: now,
        tags: [
          ['d', 'read-state:good'],
          ['t', 'read-state'],
        ],
        content: await signer.nip44.encrypt(pk, '{"v":1,"client_id":"phone","contexts":{"good":3}}'),
      },
      signer.secretKey,
    )
    const old = finalizeEvent(
      {
        kind: 30078,
        created_at: now - 8 * 86400,
        tags: [
          ['d', 'read-state:old'],
          ['t', 'read-state'],
        ],
        content: await signer.nip44.encrypt(pk, '{"v":1,"client_id":"tablet","contexts":{"old":4}}'),
      },
      signer.secretKey,
    )
    for (const e of [junk, good, old]) expect((await p.publish([r.url], e))[0]?.ok).toBe(true)
    const a = device(r, signer)
    await a.sync.ready
    expect(a.sync.effective('good')).toBe(3)
    expect(a.sync.effective('junk')).toBeUndefined()
    expect(a.sync.effective('old')).toBeUndefined() // beyond the 7-day horizon
  })

  it('a slot conflict on the relay makes it publish under a new slot, never the conflicted one', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const pk = await signer.getPublicKey()
    const a = device(r, signer)
    await a.sync.ready
    const slot = a.sync.slotId!
    const squat = finalizeEvent(
      {
        kind: 30078,
        created_at: Math.floor(Date.now() / 1000),
        tags: [
          ['d', `read-state:${slot}`],
          ['t', 'read-state'],
        ],
        content: await signer.nip44.encrypt(pk, '{"v":1,"client_id":"client-B","contexts":{"b":1}}'),
      },
      signer.secretKey,
    )
    const p = pool()
    expect((await p.publish([r.url], squat))[0]?.ok).toBe(true)
    a.sync.markRead('mine', 2)
    await a.sync.flush()
    expect(a.sync.slotId).not.toBe(slot)
    const events = await p.fetch([r.url], [{ kinds: [30078], authors: [pk] }])
    const byD = new Map(events.map((e) => [e.tags.find((t) => t[0] === 'd')![1], e]))
    expect(byD.get(`read-state:${slot}`)?.id).toBe(squat.id) // untouched
    const mine = byD.get(`read-state:${a.sync.slotId}`)!
    const blob = parseBlob(nip44.decrypt(mine.content, nip44.getConversationKey(signer.secretKey, pk)))
    expect(blob.ok && { ...blob.blob.contexts }).toEqual({ b: 1, mine: 2 })
  })

  it('keeps read state on this device only when asked (no relay traffic)', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    let calls = 0
    const real = pool()
    const counting: ReadStatePool = {
      fetch: (...a) => {
        calls++
        return real.fetch(...a)
      },
      subscribe: (...a) => {
        calls++
        return real.subscribe(...a)
      },
      publish: (...a) => {
        calls++
        return real.publish(...a)
      },
    }
    const store = new MemoryEventStore()
    const a = device(r, signer, { pool: counting, localOnly: true, store })
    await a.sync.ready
    a.sync.markRead(CH, 9)
    a.fake.advance(60_000)
    await a.sync.close()
    expect(calls).toBe(0)
    const again = device(r, signer, { pool: counting, localOnly: true, store })
    await again.sync.ready
    expect(again.sync.effective(CH)).toBe(9)
  })

  it('read-only (a window that cannot keep its ids) loads and follows other devices, marks here, publishes nothing', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const a = device(r, signer)
    await a.sync.ready
    a.sync.markRead(CH, 1_700_000_100)
    await a.sync.flush()
    let publishes = 0
    const real = pool()
    const counting: ReadStatePool = {
      fetch: (...x) => real.fetch(...x),
      subscribe: (...x) => real.subscribe(...x),
      publish: (...x) => {
        publishes++
        return real.publish(...x)
      },
    }
    const b = device(r, signer, { pool: counting, readOnly: true })
    await b.sync.ready
    // what the other device read is read here
    expect(b.sync.effective(CH)).toBe(1_700_000_100)
    // its own marks count here, but never leave
    b.sync.markRead(CH, 1_700_000_150)
    b.sync.markRead('b-only', 5)
    expect(b.sync.effective(CH)).toBe(1_700_000_150)
    b.fake.advance(120_000)
    await b.sync.flush()
    // and it follows the other device live; a's newer blob makes no re-publish here either
    const heard = nextChange(b.sync, (c) => c.contexts.includes('a-later'))
    a.sync.markRead('a-later', 7)
    await a.sync.flush()
    await heard
    b.fake.advance(120_000)
    await b.sync.close()
    expect(publishes).toBe(0)
    const pk = await signer.getPublicKey()
    const events = await pool().fetch([r.url], [{ kinds: [30078, 5], authors: [pk] }])
    expect(events.map((e) => e.tags.find((t) => t[0] === 'd')?.[1])).toEqual([`read-state:${a.sync.slotId}`])
  })

  it('rejects bad marks with typed errors, also before it is ready, and refuses marks after close', async () => {
    const r = await relay()
    const a = device(r, LocalSigner.generate())
    expect(() => a.sync.markRead('', 1)).toThrow(expect.objectContaining({ code: 'invalid-context' }))
    expect(() => a.sync.markRead(CH, -1)).toThrow(expect.objectContaining({ code: 'invalid-timestamp' }))
    a.sync.markRead(CH, 11) // before ready: queued, visible at once
    expect(a.sync.effective(CH)).toBe(11)
    await a.sync.ready
    expect(a.sync.effective(CH)).toBe(11)
    await a.sync.close()
    expect(() => a.sync.markRead(CH, 12)).toThrow(expect.objectContaining({ code: 'closed' }))
  })

  it('many marks within the debounce make one publish; its own echo is never decrypted', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const decrypted: string[] = []
    const counting: Signer = {
      getPublicKey: () => signer.getPublicKey(),
      signEvent: (t) => signer.signEvent(t),
      nip44: {
        encrypt: (p, t) => signer.nip44.encrypt(p, t),
        decrypt: (p, c) => {
          decrypted.push(c)
          return signer.nip44.decrypt(p, c)
        },
      },
    }
    const real = pool()
    const published: NostrEvent[] = []
    const spy: ReadStatePool = {
      fetch: (...a) => real.fetch(...a),
      subscribe: (...a) => real.subscribe(...a),
      publish: (relays, event, opts) => {
        published.push(event)
        return real.publish(relays, event, opts)
      },
    }
    const a = device(r, counting, { pool: spy })
    const b = device(r, signer)
    await Promise.all([a.sync.ready, b.sync.ready])
    for (let i = 0; i < 20; i++) {
      a.sync.markRead(`ctx-${i}`, 1000 + i)
      a.fake.advance(100)
    }
    expect(published).toHaveLength(0)
    const heard = nextChange(b.sync, (c) => c.contexts.includes('ctx-19'))
    a.fake.advance(5_000)
    await a.sync.flush()
    await heard
    expect(published).toHaveLength(1)
    expect(published[0]!.kind).toBe(30078)
    // b's re-publish arrives at a (decrypted: another device); a's own echo never is
    b.fake.advance(5_000)
    await b.sync.flush()
    expect(decrypted).not.toContain(published[0]!.content)
    a.fake.advance(60_000)
    await a.sync.flush()
    expect(published).toHaveLength(1) // b carried nothing new: no loop
  })

  it('close() publishes a pending mark before it returns', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const a = device(r, signer)
    const b = device(r, signer)
    await Promise.all([a.sync.ready, b.sync.ready])
    const heard = nextChange(b.sync, (c) => c.contexts.includes(CH))
    a.sync.markRead(CH, 77)
    await a.sync.close()
    await heard
    expect(b.sync.effective(CH)).toBe(77)
  })

  it('a refused publish is retried after the debounce, not in a tight loop', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const real = pool()
    let refusals = 1
    const attempts: number[] = []
    const flaky: ReadStatePool = {
      fetch: (...a) => real.fetch(...a),
      subscribe: (...a) => real.subscribe(...a),
      publish: async (relays, event, opts) => {
        attempts.push(Date.now())
        if (refusals-- > 0) return relays.map((relay) => ({ ok: false, relay, message: 'error: try later' }))
        return real.publish(relays, event, opts)
      },
    }
    const a = device(r, signer, { pool: flaky })
    await a.sync.ready
    a.sync.markRead(CH, 5)
    await a.sync.flush()
    expect(attempts).toHaveLength(1)
    expect(a.sync.status()?.pending).toBe(true)
    const retryAt = a.sync.status()!.nextWake!
    expect(retryAt - a.fake.now).toBeGreaterThanOrEqual(5_000)
    a.fake.advance(retryAt - a.fake.now - 1)
    expect(attempts).toHaveLength(1)
    a.fake.advance(1)
    await a.sync.flush()
    expect(attempts).toHaveLength(2)
    expect(a.sync.status()?.pending).toBe(false)
  })

  it('works through a NIP-07 signer (NIP-44 to self through the extension)', async () => {
    const r = await relay()
    const inner = LocalSigner.generate()
    const ext = {
      getPublicKey: () => inner.getPublicKey(),
      signEvent: (t: Parameters<Signer['signEvent']>[0]) => inner.signEvent(t),
      nip44: inner.nip44,
    }
    const a = device(r, new Nip07Signer(ext))
    const b = device(r, inner)
    await Promise.all([a.sync.ready, b.sync.ready])
    const heard = nextChange(b.sync, (c) => c.contexts.includes(CH))
    a.sync.markRead(CH, 123)
    await a.sync.flush()
    await heard
    expect(b.sync.effective(CH)).toBe(123)
  })

  it('starts without relays and syncs once setRelays() gives it some; new relays are loaded at once', async () => {
    const r = await relay()
    const other = await relay()
    const signer = LocalSigner.generate()
    const a = device(r, signer, { relays: [] })
    await a.sync.ready
    a.sync.markRead(CH, 31)
    await a.sync.flush() // nowhere to publish yet: keeps the mark, sends nothing
    expect(a.sync.status()?.loaded).toBe(false)
    const b = device(r, signer)
    await b.sync.ready
    const heard = nextChange(b.sync, (c) => c.contexts.includes(CH))
    await a.sync.setRelays({ read: [r.url], write: [r.url] })
    expect(a.sync.status()?.loaded).toBe(true)
    await a.sync.flush()
    await heard
    expect(b.sync.effective(CH)).toBe(31)
    // a device that only uses the other relay; a adds that relay and loads it before returning
    const c = device(other, signer)
    await c.sync.ready
    c.sync.markRead('from-c', 8)
    await c.sync.flush()
    expect(a.sync.effective('from-c')).toBeUndefined()
    await a.sync.setRelays([r.url, other.url])
    expect(a.sync.effective('from-c')).toBe(8)
  })

  it('close() gives up on a signer that never answers after closeTimeout, keeping the mark pending', async () => {
    const r = await relay()
    const inner = LocalSigner.generate()
    const stuck: Signer = {
      getPublicKey: () => inner.getPublicKey(),
      signEvent: (t) => inner.signEvent(t),
      nip44: { encrypt: () => new Promise<string>(() => {}), decrypt: (p, c) => inner.nip44.decrypt(p, c) },
    }
    const store = new MemoryEventStore()
    const fake = new FakeTimers()
    const sync = new ReadStateSync({
      pool: pool(),
      signer: stuck,
      store,
      relays: [r.url],
      closeTimeout: 200,
      clock: fake.clock,
      timers: fake.timers,
    })
    await sync.ready
    sync.markRead(CH, 3)
    let closed = false
    const closing = sync.close().then(() => {
      closed = true
    })
    // The signer never answers: only closeTimeout on the sync's own clock can end the close.
    await new Promise((resolve) => setTimeout(resolve, 0))
    fake.advance(199)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(closed).toBe(false)
    fake.advance(1)
    await closing
    const again = device(r, inner, { store })
    await again.sync.ready
    expect(again.sync.status()?.pending).toBe(true) // published by the next session
    await again.sync.flush()
    expect(again.sync.status()?.pending).toBe(false)
  })

  it('2,000 contexts with 200-byte keys still publish within the relay limit (trimmed to the budget)', async () => {
    const r = await relay()
    const signer = LocalSigner.generate()
    const pk = await signer.getPublicKey()
    const a = device(r, signer, { budget: 40_960 })
    await a.sync.ready
    for (let i = 0; i < 2000; i++)
      a.sync.markRead(`${'k'.repeat(195)}${String(i).padStart(5, '0')}`, 1_700_000_000 + i)
    await a.sync.flush()
    expect(a.sync.status()?.pending).toBe(false) // the relay said OK
    const [e] = await pool().fetch([r.url], [{ kinds: [30078], authors: [pk] }])
    expect(e!.content.length).toBeLessThanOrEqual(65_536)
    const plaintext = nip44.decrypt(e!.content, nip44.getConversationKey(signer.secretKey, pk))
    expect(new TextEncoder().encode(plaintext).length).toBeLessThanOrEqual(40_960)
    const blob = parseBlob(plaintext)
    // the most recently advanced keys are kept; every device still has all 2,000 locally
    expect(blob.ok && Object.keys(blob.blob.contexts).length).toBeGreaterThan(150)
    expect(blob.ok && blob.blob.contexts[`${'k'.repeat(195)}01999`]).toBe(1_700_001_999)
    expect(Object.keys(a.sync.contexts)).toHaveLength(2000)
  })
})
