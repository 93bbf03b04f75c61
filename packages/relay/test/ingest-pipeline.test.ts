/**
 * The ingest pipeline under load, over real WebSockets, on both backends: signature checks on
 * worker threads, units committed in groups, OKs sent after their commit, other connections served
 * during a flood, and nothing answered OK lost to a SIGKILL. (Faults injected inside SQLite are in
 * ingest-sqlite-faults.test.ts.)
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { BACKEND, h, pgDatabase, RawClient, relay, signMany, TestClock, user } from './helpers'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'roost-ingest-test-'))
  dirs.push(dir)
  return join(dir, 'relay.db')
}

/** Sends every frame at once and resolves to the OK frames, once `count` OKs (any ids) came. */
async function burst(raw: RawClient, events: NostrEvent[], count = events.length): Promise<unknown[][]> {
  const from = raw.frames.length
  for (const e of events) raw.send(['EVENT', e])
  const oks = () => raw.frames.slice(from).filter((f) => f[0] === 'OK')
  while (oks().length < count) await raw.next((f) => f[0] === 'OK', raw.frames.length)
  return oks()
}

/** Corrupts one hex digit of the signature. */
const badSig = (e: NostrEvent): NostrEvent => ({ ...e, sig: (e.sig[0] === 'a' ? 'b' : 'a') + e.sig.slice(1) })

describe('ingest: verification workers and group commit', { timeout: 120_000 }, () => {
  it('answers exactly one OK per EVENT under concurrency, whatever the mix', async () => {
    const r = await relay({ workers: 2, rateLimit: { events: 0, perSeconds: 1 } })
    const g = await r.createGroup({})
    const authors = Array.from({ length: 4 }, () => user())
    const clients = await Promise.all(authors.map(() => RawClient.open(r.url)))
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('valid', 'bad-sig', 'bad-id', 'duplicate', 'no-group'), {
          minLength: 20,
          maxLength: 60,
        }),
        async (kinds) => {
          const perClient = clients.map(() => [] as NostrEvent[])
          const expected = new Map<string, boolean>()
          kinds.forEach((k, i) => {
            const c = i % clients.length
            const u = authors[c] as ReturnType<typeof user>
            let e = u.sign({ kind: 9, tags: h(g), content: `${k} ${i} ${Math.random()}` })
            if (k === 'bad-sig') e = badSig(e)
            if (k === 'bad-id') e = { ...e, content: `${e.content}!` }
            if (k === 'no-group') e = u.sign({ kind: 9, tags: h('nowhere'), content: `${i}` })
            ;(perClient[c] as NostrEvent[]).push(e)
            if (k === 'duplicate') (perClient[c] as NostrEvent[]).push(e)
            expected.set(e.id, k === 'valid' || k === 'duplicate')
          })
          const answers = await Promise.all(clients.map((c, i) => burst(c, perClient[i] as NostrEvent[])))
          // Every EVENT sent got one OK: a duplicate sent twice gets two, others one.
          for (const [i, oks] of answers.entries()) {
            const sent = perClient[i] as NostrEvent[]
            expect(oks.map((f) => f[1])).toEqual(sent.map((e) => e.id))
            for (const f of oks) expect(f[2]).toBe(expected.get(f[1] as string))
          }
        },
      ),
      { numRuns: 6 },
    )
    // Nothing more trickles in afterwards.
    const before = clients.map((c) => c.frames.filter((f) => f[0] === 'OK').length)
    await clients[0]?.ping()
    expect(clients.map((c) => c.frames.filter((f) => f[0] === 'OK').length)).toEqual(before)
  })

  it('accepts a burst in the order it was sent: each event may name the one just before it', async () => {
    // `previous` is checked: an event whose predecessor was not accepted before it is refused.
    const r = await relay({ workers: 2, rateLimit: { events: 0, perSeconds: 1 } })
    const g = await r.createGroup({})
    const a = user()
    const b = user()
    const raw = await RawClient.open(r.url)
    let last: NostrEvent | undefined
    const chain: NostrEvent[] = []
    for (let i = 0; i < 300; i++) {
      const e = (i % 2 ? a : b).sign({
        kind: 9,
        tags: last ? h(g, ['previous', last.id.slice(0, 8)]) : h(g),
        content: `${i}`,
      })
      chain.push(e)
      last = e
    }
    const oks = await burst(raw, chain)
    expect(oks.map((f) => f[1])).toEqual(chain.map((e) => e.id))
    expect(oks.filter((f) => f[2] !== true)).toEqual([])
    const stored = await raw.req('all', { '#h': [g], kinds: [9], limit: 500 })
    expect(stored.events).toHaveLength(300)
  })

  it('keeps each connection’s order when several connections post into one group at once', async () => {
    const r = await relay({ workers: 2, rateLimit: { events: 0, perSeconds: 1 } })
    const g = await r.createGroup({})
    const users = Array.from({ length: 3 }, () => user())
    const clients = await Promise.all(users.map(() => RawClient.open(r.url)))
    // A REQ after the burst on the same connection sees every event of it (its OKs came first).
    const results = await Promise.all(
      clients.map(async (c, i) => {
        const u = users[i] as ReturnType<typeof user>
        const events = Array.from({ length: 80 }, (_, k) =>
          u.sign({ kind: 9, tags: h(g), content: `${i}/${k}` }),
        )
        for (const e of events) c.send(['EVENT', e])
        const seen = await c.req(`mine${i}`, { '#h': [g], authors: [u.pk], limit: 500 })
        const oks = c.frames.filter((f) => f[0] === 'OK').map((f) => f[1])
        return { events, seen, oks }
      }),
    )
    for (const { events, seen, oks } of results) {
      expect(oks).toEqual(events.map((e) => e.id))
      expect(seen.events.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort())
    }
  })

  it('rebuilds the previous window in arrival order: a burst of relay-signed events stamped ahead does not push out a join', async () => {
    const clock = new TestClock()
    const r = await relay({ clock: clock.now })
    const g = await r.createGroup({})
    const raw = await RawClient.open(r.url)
    const looper = user(clock)
    // 30 joins and leaves: the relay signs a 9000 or 9001 for each, every one a second after the
    // last for the same user, so they are stamped up to a minute ahead of the clock.
    for (let i = 0; i < 30; i++) {
      expect((await raw.publish(looper.sign({ kind: 9021, tags: h(g), content: `${i}` }))).ok).toBe(true)
      expect((await raw.publish(looper.sign({ kind: 9022, tags: h(g), content: `${i}` }))).ok).toBe(true)
    }
    const relaySigned = await raw.req('rs', { '#h': [g], kinds: [9000, 9001], authors: [r.pubkey] })
    expect(Math.max(...relaySigned.events.map((e) => e.created_at))).toBeGreaterThan(clock.now() + 50)
    // A join and a message signed now, i.e. before those stamps, arrive last.
    const alice = user(clock)
    const join = alice.sign({ kind: 9021, tags: h(g) })
    expect((await raw.publish(join)).ok).toBe(true)
    const hello = alice.sign({ kind: 9, tags: h(g), content: 'hello' })
    expect((await raw.publish(hello)).ok).toBe(true)
    // A deletion drops the cached windows: the next check rebuilds them from the database.
    const scrap = alice.sign({ kind: 9, tags: h(g), content: 'scrap' })
    expect((await raw.publish(scrap)).ok).toBe(true)
    expect((await raw.publish(alice.sign({ kind: 5, tags: [['e', scrap.id]] }))).ok).toBe(true)
    const bob = user(clock)
    expect((await raw.publish(bob.sign({ kind: 9021, tags: h(g) }))).ok).toBe(true)
    // Both the join and the message, signed before the relay's stamps, are still in the window.
    const reply = bob.sign({
      kind: 9,
      tags: h(g, ['previous', join.id.slice(0, 8), hello.id.slice(0, 8)]),
      content: 'hi',
    })
    expect(await raw.publish(reply)).toEqual({ ok: true, message: '' })
  })
})

describe('ingest: other connections are served during a flood', () => {
  it('answers a REQ and an EVENT from other connections while one connection floods EVENTs', {
    timeout: 180_000,
  }, async () => {
    const r = await relay({ workers: 2, rateLimit: { events: 0, perSeconds: 1 } })
    const g = await r.createGroup({})
    const flooder = user()
    const flood = await RawClient.open(r.url)
    const reader = await RawClient.open(r.url)
    const poster = await RawClient.open(r.url)
    const events = await signMany(
      flooder,
      // PostgreSQL commits each unit on its own, several times slower: a shorter flood keeps it busy.
      Array.from({ length: BACKEND === 'postgres' ? 600 : 2_000 }, (_, i) => ({
        kind: 9,
        tags: h(g),
        content: `flood ${i}`,
      })),
    )
    // The flood is sent at once, so units are queued without a pause until it is all stored.
    let answered = 0
    flood.ws.on('message', (data) => {
      if (String(data).startsWith('["OK"')) answered++
    })
    for (const e of events) flood.send(['EVENT', e])
    await flood.next((f) => f[0] === 'OK')
    // A reader asks for the newest messages mid-flood: it is answered with what was committed,
    // without waiting for the flood to end.
    const read = await reader.req('mid', { '#h': [g], kinds: [9], limit: 20 })
    const answeredAtEose = answered
    expect(read.events.length).toBeGreaterThan(0)
    expect(answeredAtEose).toBeLessThan(events.length)
    // Another author's message goes through too, and its reader sees it live exactly once.
    const sub = reader.frames.length
    reader.send(['REQ', 'live', { '#h': [g], kinds: [9], authors: [flooder.pk] }])
    const own = user().sign({ kind: 9, tags: h(g), content: 'between the flood' })
    expect(await poster.publish(own)).toEqual({ ok: true, message: '' })
    expect(answered).toBeLessThan(events.length)
    // Every EVENT of the flood gets its OK, in order; the subscription opened mid-flood got each
    // event once (stored or live), up to the flood's last.
    while (answered < events.length) await flood.next((f) => f[0] === 'OK', flood.frames.length)
    await reader.ping()
    const live = reader.frames.slice(sub).filter((f) => f[0] === 'EVENT' && f[1] === 'live')
    const ids = live.map((f) => (f[2] as NostrEvent).id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toContain(events[events.length - 1]?.id)
    const oks = flood.frames.filter((f) => f[0] === 'OK')
    expect(oks.map((f) => f[1])).toEqual(events.map((e) => e.id))
    expect(oks.filter((f) => f[2] !== true)).toEqual([])
  })
})

describe('ingest: a crash between commit and OK', () => {
  const BIN = fileURLToPath(new URL('../bin/roost-relay.mjs', import.meta.url))

  async function start(db: string): Promise<{ url: string; child: ReturnType<typeof spawn> }> {
    const child = spawn(
      process.execPath,
      [BIN, '--port', '0', '--db', db, '--rate-limit', '0', '--workers', '2'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout?.on('data', (d) => {
        out += String(d)
        const m = /listening on (ws:\/\/\S+)/.exec(out)
        if (m?.[1]) resolve(m[1])
      })
      child.once('exit', (code) => reject(new Error(`relay exited (${code}): ${out}`)))
    })
    return { url, child }
  }

  it('loses nothing that got an OK when the process is killed mid-burst', async () => {
    const path = tempDb()
    const db = BACKEND === 'postgres' ? await pgDatabase(path) : path
    const first = await start(db)
    const u = user()
    // App data (kind 30078) needs no group: one addressable event per `d`.
    const events = Array.from({ length: 600 }, (_, i) =>
      u.sign({ kind: 30078, tags: [['d', `k${i}`]], content: `${i}` }),
    )
    const ws = new WebSocket(first.url)
    await new Promise((resolve) => ws.once('open', resolve))
    const okd: string[] = []
    const killed = new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        const m = JSON.parse(String(data))
        if (m[0] !== 'OK') return
        if (m[2] !== true) throw new Error(`refused: ${m[3]}`)
        okd.push(m[1])
        if (okd.length === 150) {
          first.child.kill('SIGKILL')
          resolve()
        }
      })
    })
    for (const e of events) ws.send(JSON.stringify(['EVENT', e]))
    await killed
    await new Promise((resolve) => first.child.once('exit', resolve))
    ws.terminate()
    const again = await start(db)
    try {
      const raw = await RawClient.open(again.url)
      const stored = new Set((await raw.req('all', { kinds: [30078], limit: 1000 })).events.map((e) => e.id))
      expect(okd.length).toBeGreaterThanOrEqual(150)
      expect(okd.filter((id) => !stored.has(id))).toEqual([])
    } finally {
      again.child.kill('SIGTERM')
      await new Promise((resolve) => again.child.once('exit', resolve))
    }
  }, 120_000)
})
