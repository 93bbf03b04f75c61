/**
 * The ingest pipeline under load, over real WebSockets: signature checks on worker threads,
 * units committed in groups, OKs sent after their commit. Faults are injected inside SQLite itself
 * (a trigger that fails a write, a deferred constraint that fails the COMMIT).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { h, RawClient, relay, TestClock, user } from './helpers'

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

describe('ingest: verification workers and group commit', () => {
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

  it('a unit that fails mid-write leaves nothing of its event; the rest of its batch is stored', async () => {
    const path = tempDb()
    const first = await relay({ db: path })
    const g = await first.createGroup({})
    await first.close()
    const db = new Database(path)
    // Fails while the event's tags are being written, after its row went in.
    db.exec(`CREATE TRIGGER injected BEFORE INSERT ON tags WHEN NEW.name = 't' AND NEW.value = 'boom'
      BEGIN SELECT RAISE(ABORT, 'injected fault'); END`)
    db.close()
    const r = await relay({ db: path, workers: 2 })
    const raw = await RawClient.open(r.url)
    const u = user()
    const events = Array.from({ length: 30 }, (_, i) =>
      u.sign({ kind: 9, tags: h(g, ...(i === 13 ? [['t', 'boom']] : [])), content: `${i}` }),
    )
    const oks = await burst(raw, events)
    expect(oks.map((f) => f[1])).toEqual(events.map((e) => e.id))
    expect(oks[13]).toEqual(['OK', events[13]?.id, false, 'error: internal error, the event was not stored'])
    expect(oks.filter((f) => f[2] === true)).toHaveLength(29)
    const check = new Database(path, { readonly: true })
    const ids = check.prepare('SELECT id FROM events WHERE kind = 9').all() as { id: string }[]
    const orphanTags = check
      .prepare('SELECT count(*) AS n FROM tags WHERE event NOT IN (SELECT rowid FROM events)')
      .get() as { n: number }
    check.close()
    expect(ids.map((x) => x.id).sort()).toEqual(
      events
        .filter((_, i) => i !== 13)
        .map((e) => e.id)
        .sort(),
    )
    expect(orphanTags.n).toBe(0)
  })

  it('a COMMIT that fails rolls back the whole batch: no event, no group change, every EVENT told', async () => {
    const path = tempDb()
    const clock = new TestClock()
    const first = await relay({ db: path, clock: clock.now })
    const g = await first.createGroup({})
    await first.close()
    const db = new Database(path)
    // A deferred foreign key is only checked at COMMIT: a 'commit-boom' event breaks it.
    db.exec(`CREATE TABLE injected_parent (id INTEGER PRIMARY KEY);
      CREATE TABLE injected_child (p INTEGER REFERENCES injected_parent (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER injected AFTER INSERT ON events WHEN NEW.json LIKE '%commit-boom%'
      BEGIN INSERT INTO injected_child (p) VALUES (42); END`)
    db.close()
    const r = await relay({ db: path, clock: clock.now, workers: 0 })
    const raw = await RawClient.open(r.url)
    const joiner = user(clock)
    const poster = user(clock)
    // The join writes its event, the relay's 9000, the group record and a new 39002 in one unit;
    // the message beside it may share its batch or not (the turn decides): either way its OK must
    // match what is stored.
    const boom = joiner.sign({ kind: 9021, tags: h(g), content: 'commit-boom' })
    const other = poster.sign({ kind: 9, tags: h(g), content: 'fine' })
    const oks = await burst(raw, [boom, other])
    expect(oks.map((f) => f[1])).toEqual([boom.id, other.id])
    expect(oks[0]?.slice(2)).toEqual([false, 'error: internal error, the event was not stored'])
    expect(r.state(g)?.members).not.toContain(joiner.pk)
    const after = await raw.req('after', { '#h': [g] })
    expect(after.events.filter((e) => e.pubkey === joiner.pk)).toEqual([])
    expect(after.events.filter((e) => e.tags.some((t) => t[0] === 'p' && t[1] === joiner.pk))).toEqual([])
    expect(after.events.some((e) => e.id === other.id)).toBe(oks[1]?.[2] === true)
    // The relay keeps serving: the same join, alone, goes through.
    expect((await raw.publish(joiner.sign({ kind: 9021, tags: h(g), content: 'again' }))).ok).toBe(true)
    expect(r.state(g)?.members).toContain(joiner.pk)
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
    expect((await raw.publish(alice.sign({ kind: 9021, tags: h(g) }))).ok).toBe(true)
    const hello = alice.sign({ kind: 9, tags: h(g), content: 'hello' })
    expect((await raw.publish(hello)).ok).toBe(true)
    // A deletion drops the cached windows: the next check rebuilds them from the database.
    const scrap = alice.sign({ kind: 9, tags: h(g), content: 'scrap' })
    expect((await raw.publish(scrap)).ok).toBe(true)
    expect((await raw.publish(alice.sign({ kind: 5, tags: [['e', scrap.id]] }))).ok).toBe(true)
    const bob = user(clock)
    expect((await raw.publish(bob.sign({ kind: 9021, tags: h(g) }))).ok).toBe(true)
    const reply = bob.sign({ kind: 9, tags: h(g, ['previous', hello.id.slice(0, 8)]), content: 'hi' })
    expect(await raw.publish(reply)).toEqual({ ok: true, message: '' })
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
    const db = tempDb()
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
