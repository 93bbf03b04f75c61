import { join } from 'node:path'
import type { NostrEvent } from 'nostr-tools'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { startFaultProxy } from '../../../test/support/fault-proxy'
import { ClosedError, LocalSigner, nobleVerifier, RelayPool, type RelayPoolOptions } from '../src'
import { startFakeRelay } from './fake-relay'
import { Harness, recordingWebSocket, type WireLog } from './helpers'

const h = new Harness()
afterEach(() => h.close())

function pool(opts: RelayPoolOptions = {}): RelayPool {
  const p = new RelayPool({
    websocket: WebSocket as unknown as typeof globalThis.WebSocket,
    verifier: nobleVerifier,
    backoff: { baseMs: 20, maxMs: 100 },
    publishTimeout: 2_000,
    ...opts,
  })
  h.defer(() => p.close())
  return p
}

const now = () => Math.floor(Date.now() / 1000)

/** Resolves once `pred` holds, checking every 20 ms; rejects after `ms`. */
async function until(pred: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 20))
  }
}

function collect(p: RelayPool, relay: string, id: string, filters: Parameters<RelayPool['subscribe']>[1]) {
  const events: NostrEvent[] = []
  const waiters: (() => void)[] = []
  let eose = 0
  const sub = p.subscribe(
    relay,
    filters,
    {
      onevent: (e) => {
        events.push(e)
        for (const w of waiters.splice(0)) w()
      },
      oneose: () => {
        eose++
        for (const w of waiters.splice(0)) w()
      },
    },
    { id },
  )
  const until = (pred: () => boolean, ms = 3000) =>
    new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout; ${events.length} events`)), ms)
      const check = () => {
        if (pred()) {
          clearTimeout(t)
          resolve()
        } else waiters.push(check)
      }
      check()
    })
  return { events, sub, until, eoses: () => eose }
}

describe('RelayPool', () => {
  it('resumes a subscription after the socket drops, with since, delivering each event once', async () => {
    const relay = await h.relay({ profile: 'groups_relay' })
    const id = await relay.createGroup({ name: 'x' })
    const log: WireLog = { sent: [], received: [] }
    const p = pool({ websocket: recordingWebSocket(log), resumeSlack: 30 })
    const writer = pool()
    const sk = generateSecretKey()
    const send = async (content: string) => {
      const e = finalizeEvent({ kind: 9, created_at: now(), tags: [['h', id]], content }, sk)
      const [r] = await writer.publish([relay.url], e)
      expect(r!.ok).toBe(true)
      return e
    }
    await send('a')
    const c = collect(p, relay.url, 'grp-test0001', [{ '#h': [id], kinds: [9], limit: 10 }])
    await c.until(() => c.eoses() === 1)
    expect(c.events.map((e) => e.content)).toEqual(['a'])
    p.disconnect(relay.url)
    await send('b')
    await c.until(() => c.events.length === 2)
    await c.until(() => c.eoses() === 2) // a resumed REQ ends with its own EOSE
    expect(c.events.map((e) => e.content)).toEqual(['a', 'b']) // 'a' came back in the overlap, dropped
    const reqs = log.sent.map((f) => JSON.parse(f)).filter((m) => m[0] === 'REQ' && m[1] === 'grp-test0001')
    expect(reqs).toHaveLength(2)
    expect(reqs[0][2]).toEqual({ '#h': [id], kinds: [9], limit: 10 })
    expect(reqs[1][2]).toEqual({ '#h': [id], kinds: [9], since: c.events[0]!.created_at - 30 }) // no limit
    await send('c')
    await c.until(() => c.events.length === 3)
  })

  it('a relay shutting down (CLOSED "error: shutting down", then the socket) is resumed on its successor', async () => {
    const db = join(h.tmp(), 'relay.db')
    const first = await h.relay({ db, profile: 'groups_relay' })
    const id = await first.createGroup({ name: 'rolling' })
    const port = Number(new URL(first.url).port)
    const p = pool()
    const closed: string[] = []
    const events: NostrEvent[] = []
    p.subscribe(first.url, [{ '#h': [id], kinds: [9] }], {
      onevent: (e) => events.push(e),
      onclosed: (reason) => closed.push(reason),
    })
    const sk = generateSecretKey()
    const send = async (content: string) => {
      const writer = pool()
      const [r] = await writer.publish(
        [first.url],
        finalizeEvent({ kind: 9, created_at: now(), tags: [['h', id]], content }, sk),
      )
      writer.close()
      expect(r!.ok).toBe(true)
    }
    await send('before')
    await until(() => events.length === 1)
    await first.close()
    // The successor: same address, same database (a restart, or the next process behind a proxy).
    await h.relay({ db, port, profile: 'groups_relay' })
    await send('after')
    await until(() => events.length === 2)
    expect(events.map((e) => e.content)).toEqual(['before', 'after'])
    expect(closed).toEqual([])
  })

  it('an EVENT refused with "error: shutting down" goes again, once that socket closed, on the next one', async () => {
    let answered = 0
    const fake = await startFakeRelay({ onEvent: () => (answered++ === 0 ? 'shutting-down' : 'ok') })
    h.defer(() => fake.close())
    const e = finalizeEvent({ kind: 1, created_at: now(), tags: [], content: 'x' }, generateSecretKey())
    const [r] = await pool().publish([fake.url], e)
    expect(r).toMatchObject({ ok: true })
    expect(fake.events.map((x) => x.id)).toEqual([e.id, e.id])
  })

  it('a publish that joins a connection attempt begun while the relay was out of reach makes one of its own', async () => {
    const fake = await startFakeRelay({ onEvent: () => 'ok' })
    h.defer(() => fake.close())
    const hole = await startFaultProxy(fake.url)
    h.defer(() => hole.close())
    hole.blackhole()
    // Sockets opened while `away` go into the black hole: their connect hangs, then times out.
    const gate = { away: true }
    class Switch extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(gate.away ? hole.url : url, protocols)
      }
    }
    const p = pool({ websocket: Switch as unknown as typeof globalThis.WebSocket, connectTimeout: 1_500 })
    const sign = (content: string) =>
      finalizeEvent({ kind: 1, created_at: now(), tags: [], content }, generateSecretKey())
    const first = p.publish([fake.url], sign('while away'))
    await until(() => hole.connections.length > 0)
    gate.away = false // the relay is reachable again; the attempt under way does not know it
    const e = sign('once back')
    const [second] = await p.publish([fake.url], e)
    expect(second).toMatchObject({ ok: true })
    expect(fake.events.map((x) => x.id)).toContain(e.id)
    expect((await first)[0]).toMatchObject({ ok: false, failure: 'unreachable' })
  })

  it('never delivers an event whose signature does not verify', async () => {
    const relay = await h.relay({ profile: 'groups_relay' })
    const id = await relay.createGroup({ name: 'x' })
    const verified: string[] = []
    const p = pool({
      verifier: {
        verify: (e) => {
          const ok = nobleVerifier.verify(e) && e.content !== 'reject me'
          if (ok) verified.push(e.id)
          return ok
        },
      },
    })
    const sk = generateSecretKey()
    for (const content of ['keep', 'reject me']) {
      await p.publish(
        [relay.url],
        finalizeEvent({ kind: 9, created_at: now(), tags: [['h', id]], content }, sk),
      )
    }
    const got = await p.fetch([relay.url], [{ '#h': [id], kinds: [9] }])
    expect(got.map((e) => e.content)).toEqual(['keep'])
  })

  it('NIP-42: with policy never, a private REQ ends with the relay’s auth-required text', async () => {
    const relay = await h.relay({ profile: 'strict' })
    const signer = LocalSigner.generate()
    const id = await relay.createGroup({ name: 'p', private: true, members: [await signer.getPublicKey()] })
    const never = pool({ signer, authPolicy: () => 'never' })
    const closed = await new Promise<string>((resolve) =>
      never.subscribe(relay.url, [{ '#h': [id] }], { onevent: () => {}, onclosed: resolve }),
    )
    expect(closed).toMatch(/^auth-required: /)
    expect(never.authState(relay.url)).toBe('challenged')

    let asked = 0
    const ask = pool({
      signer,
      authPolicy: () => 'ask',
      askAuth: async () => {
        asked++
        return true
      },
    })
    const events = await ask.fetch([relay.url], [{ '#h': [id] }])
    expect(asked).toBe(1)
    expect(ask.authState(relay.url)).toBe('authenticated')
    expect(events.some((e) => e.kind === 9000)).toBe(true) // members read the group
  })

  it('NIP-42: an EVENT refused with auth-required is authenticated and sent again once', async () => {
    const relay = await h.relay({ profile: 'zooid' }) // every REQ and EVENT needs AUTH
    const signer = LocalSigner.generate()
    const id = await relay.createGroup({ name: 'z', members: [await signer.getPublicKey()] })
    const p = pool({ signer })
    const e = await signer.signEvent({ kind: 9, created_at: now(), tags: [['h', id]], content: 'after auth' })
    const [r] = await p.publish([relay.url], e)
    expect(r).toMatchObject({ ok: true })
    expect(p.authState(relay.url)).toBe('authenticated')
  })

  it('tells an EOSE the relay sent from the end of the wait for one (oneoseTimeout), and fetch hears only the first as an answer', async () => {
    const relay = await h.relay()
    const link = await startFaultProxy(relay.url)
    h.defer(() => link.close())
    // Liveness off: a silent link stays open, as a slow relay's does.
    const p = pool({ eoseTimeout: 300, liveness: false })
    let n = 0
    const heard = (url: string) => {
      const calls: string[] = []
      return new Promise<string[]>((resolve) => {
        p.subscribe(
          url,
          [{ kinds: [1], limit: 1 }],
          {
            onevent: () => {},
            oneoseTimeout: () => calls.push('timeout'),
            oneose: () => {
              calls.push('eose')
              resolve(calls)
            },
          },
          { id: `sub-${++n}` },
        )
      })
    }
    expect(await heard(link.url)).toEqual(['eose'])
    const answered: string[] = []
    await p.fetch([link.url], [{ kinds: [1] }], { eose: (r) => answered.push(r), timeout: 5_000 })
    expect(answered).toEqual([link.url])

    link.blackhole()
    expect(await heard(link.url)).toEqual(['timeout', 'eose'])
    const unanswered: string[] = []
    await p.fetch([link.url], [{ kinds: [1] }], { eose: (r) => unanswered.push(r), timeout: 5_000 })
    expect(unanswered).toEqual([])
    link.restore()
  })

  it('queues one-shot fetches per relay beyond maxConcurrentFetches', async () => {
    const relay = await h.relay()
    const log: WireLog = { sent: [], received: [] }
    const p = pool({ websocket: recordingWebSocket(log), maxConcurrentFetches: 1 })
    await Promise.all([p.fetch([relay.url], [{ kinds: [1] }]), p.fetch([relay.url], [{ kinds: [7] }])])
    const frames = log.sent
      .map((f) => JSON.parse(f) as unknown[])
      .filter((m) => m[0] === 'REQ' || m[0] === 'CLOSE')
    expect(frames.map((m) => m[0])).toEqual(['REQ', 'CLOSE', 'REQ', 'CLOSE']) // never two at once
  })

  it('a relay that cannot be reached says "connection failed" once, with the cause when there is one', async () => {
    const relay = await h.relay()
    const url = relay.url
    await relay.close()
    const p = pool({ connectTimeout: 2_000 })
    const e = finalizeEvent({ kind: 1, created_at: now(), tags: [], content: '' }, generateSecretKey())
    const [r] = await p.publish([url], e, { timeout: 5_000 })
    expect(r!.ok).toBe(false)
    expect(r!.message).toMatch(/connection failed/)
    expect(r!.message).not.toMatch(/connection failed: connection failed/)
  })

  it('fetch and publish answer even when the relay is unreachable; relayInfo is fetched once', async () => {
    const relay = await h.relay()
    const url = relay.url
    let fetches = 0
    const p = pool({
      fetch: (async (...args: Parameters<typeof fetch>) => {
        fetches++
        return fetch(...args)
      }) as typeof fetch,
      connectTimeout: 500,
    })
    const [a, b] = await Promise.all([p.relayInfo(url), p.relayInfo(`${url}/`)])
    expect(a?.self).toBe(relay.pubkey)
    expect(b).toBe(a)
    expect(fetches).toBe(1)
    await relay.close()
    expect(await p.fetch([url], [{ kinds: [1] }], { timeout: 1000 })).toEqual([])
    const e = finalizeEvent({ kind: 1, created_at: now(), tags: [], content: '' }, generateSecretKey())
    const [r] = await p.publish([url], e, { timeout: 1000 })
    expect(r!.ok).toBe(false)
    expect(r!.failure).toMatch(/unreachable|timeout/)
    p.close()
    expect(() => p.subscribe(url, [{}], { onevent: () => {} })).toThrow(ClosedError)
  })
})
