/**
 * Group commit on PostgreSQL: a burst of EVENTs shares transactions, every OK comes after the
 * COMMIT that made its event durable, a unit the database refuses fails alone, and a batch whose
 * COMMIT never completes acknowledges nothing.
 */
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NostrEvent } from 'nostr-tools'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { BACKEND, h, pgDatabase, RawClient, relay, type User, user } from './helpers'

const clients: pg.Client[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) await c.end().catch(() => {})
})

/** A relay on a database of its own, and a direct connection to that database. */
async function setup() {
  const path = join(tmpdir(), `group-commit-${randomBytes(6).toString('hex')}.db`)
  const url = await pgDatabase(path)
  const sql = new pg.Client(url)
  await sql.connect()
  clients.push(sql)
  const r = await relay({ db: path, workers: 2, rateLimit: { events: 0, perSeconds: 1 } })
  return { r, sql, url }
}

/** Sends every event at once; resolves with the OK frames (in arrival order) once all are in. */
function burst(c: RawClient, events: NostrEvent[], onOk?: (id: string) => void): Promise<unknown[][]> {
  const ids = new Set(events.map((e) => e.id))
  const oks: unknown[][] = []
  return new Promise((resolve) => {
    c.ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as unknown[]
      if (m[0] !== 'OK' || !ids.has(m[1] as string)) return
      oks.push(m)
      onOk?.(m[1] as string)
      if (oks.length === events.length) resolve(oks)
    })
    for (const e of events) c.send(['EVENT', e])
  })
}

describe.skipIf(BACKEND !== 'postgres')('PostgreSQL group commit', () => {
  it('stores a burst from several connections into several groups in order, in shared transactions, each OK after its commit', {
    timeout: 120_000,
  }, async () => {
    const { r, sql, url } = await setup()
    const groups = [await r.createGroup({}), await r.createGroup({})]
    // Which top-level transaction stored each event (a unit's savepoint has an id of its own).
    await sql.query(`
      CREATE TABLE stored_by (id text, xid bigint);
      CREATE FUNCTION note_xid() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO stored_by VALUES (NEW.id, txid_current()); RETURN NULL; END $$;
      CREATE TRIGGER note_xid AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION note_xid();`)
    const users = Array.from({ length: 3 }, () => user())
    const conns = await Promise.all(users.map(() => RawClient.open(r.url)))
    // Each OK is checked against the database as it arrives: the row must be committed already.
    const watcher = new pg.Client(url)
    await watcher.connect()
    clients.push(watcher)
    const missing: string[] = []
    let checks = Promise.resolve()
    const check = (id: string) => {
      checks = checks
        .then(() => watcher.query('SELECT 1 FROM events WHERE id = $1', [id]))
        .then(({ rowCount }) => {
          if (rowCount !== 1) missing.push(id)
        })
    }
    const sent = users.map((u, i) =>
      Array.from({ length: 60 }, (_, k) =>
        u.sign({ kind: 9, tags: h(groups[k % 2] as string), content: `${i}/${k}` }),
      ),
    )
    const oks = await Promise.all(conns.map((c, i) => burst(c, sent[i] as NostrEvent[], check)))
    await checks
    expect(missing).toEqual([])
    for (const [i, events] of sent.entries()) {
      // Answered in the order sent, every one accepted.
      expect(oks[i]?.map((f) => f[1])).toEqual(events.map((e) => e.id))
      expect(oks[i]?.filter((f) => f[2] !== true)).toEqual([])
      // Stored in the order sent, within each group.
      for (const g of groups) {
        const { rows } = await sql.query<{ id: string }>(
          'SELECT id FROM events WHERE grp = $1 AND pubkey = $2 AND kind = 9 ORDER BY seq',
          [g, users[i]?.pk],
        )
        expect(rows.map((row) => row.id)).toEqual(events.filter((e) => e.tags[0]?.[1] === g).map((e) => e.id))
      }
    }
    // 180 events in fewer transactions than events: units shared their COMMITs.
    const { rows } = await sql.query<{ n: number }>(
      'SELECT count(DISTINCT xid)::int AS n FROM stored_by WHERE id = ANY($1::text[])',
      [sent.flat().map((e) => e.id)],
    )
    expect(rows[0]?.n).toBeLessThan(180)
  })

  it('fails only the unit the database refuses: the others of its batch are stored and acknowledged', {
    timeout: 120_000,
  }, async () => {
    const { r, sql } = await setup()
    const g = await r.createGroup({})
    await sql.query(`
      CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.json LIKE '%"content":"refuse me"%' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_marked BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_marked();`)
    const users = Array.from({ length: 3 }, () => user())
    const conns = await Promise.all(users.map(() => RawClient.open(r.url)))
    const sent = users.map((u, i) =>
      Array.from({ length: 30 }, (_, k) =>
        u.sign({ kind: 9, tags: h(g), content: k === 15 && i === 1 ? 'refuse me' : `${i}/${k}` }),
      ),
    )
    const oks = await Promise.all(conns.map((c, i) => burst(c, sent[i] as NostrEvent[])))
    const refused = sent[1]?.[15] as NostrEvent
    for (const [i, events] of sent.entries()) {
      expect(oks[i]?.map((f) => f[1])).toEqual(events.map((e) => e.id))
      const expected = events.map((e) => e.id !== refused.id)
      expect(oks[i]?.map((f) => f[2])).toEqual(expected)
    }
    const { rows } = await sql.query<{ id: string }>('SELECT id FROM events WHERE grp = $1 AND kind = 9', [g])
    const stored = new Set(rows.map((row) => row.id))
    expect(stored.size).toBe(89)
    expect(stored.has(refused.id)).toBe(false)
  })

  it('acknowledges nothing of a batch whose COMMIT never completes (its connection killed)', {
    timeout: 120_000,
  }, async () => {
    const { r, sql, url } = await setup()
    const g = await r.createGroup({})
    // A deferred trigger runs at COMMIT and waits there for a lock this test holds.
    await sql.query(`
      CREATE FUNCTION hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NULL; END $$;
      CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION hold_commit();`)
    const holder = new pg.Client(url)
    await holder.connect()
    clients.push(holder)
    await holder.query('BEGIN')
    await holder.query('SELECT pg_advisory_xact_lock(4242)')
    const u = user()
    const c = await RawClient.open(r.url)
    const events = Array.from({ length: 20 }, (_, k) => u.sign({ kind: 9, tags: h(g), content: `${k}` }))
    const answered = burst(c, events)
    // Each batch waits in its COMMIT: the connection holding it is killed there, until every
    // EVENT was answered.
    let done = false
    answered.then(() => {
      done = true
    })
    let killed = 0
    while (!done) {
      const { rows } = await sql.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory'
         AND pid <> $1`,
        [(holder as unknown as { processID: number }).processID],
      )
      if (rows.length > 0 && killed === 0) expect(c.frames.filter((f) => f[0] === 'OK')).toEqual([])
      for (const { pid } of rows) {
        await sql.query('SELECT pg_terminate_backend($1)', [pid])
        killed++
      }
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    expect(killed).toBeGreaterThan(0)
    const oks = await answered
    expect(oks.filter((f) => f[2] === true)).toEqual([])
    await holder.query('ROLLBACK')
    const { rows } = await sql.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::text[])', [
      events.map((e) => e.id),
    ])
    expect(rows).toEqual([])
    // The relay goes on: without the trigger, the next EVENT is stored and acknowledged.
    await sql.query('DROP TRIGGER hold_commit ON events')
    expect(await c.publish(u.sign({ kind: 9, tags: h(g), content: 'after' }))).toEqual({
      ok: true,
      message: '',
    })
  })
  it("refuses, with the ban's own words, the events of a key banned in the database behind its copy, and stores the rest of their batches", {
    timeout: 120_000,
  }, async () => {
    const { r, sql } = await setup()
    const g = await r.createGroup({})
    const banned = user()
    const others = Array.from({ length: 2 }, () => user())
    // Written straight into the table, as another process's ban is before its fan-out arrives: this
    // process's copy of the list does not know it yet, so only the database can refuse.
    await sql.query("INSERT INTO moderation (list, value, at) VALUES ('banned-pubkey', $1, 0)", [banned.pk])
    const people = [...others, banned]
    const conns = await Promise.all(people.map(() => RawClient.open(r.url)))
    const sent = people.map((u, i) =>
      Array.from({ length: 30 }, (_, k) => u.sign({ kind: 9, tags: h(g), content: `${i}/${k}` })),
    )
    const oks = await Promise.all(conns.map((c, i) => burst(c, sent[i] as NostrEvent[])))
    for (const i of [0, 1]) expect(oks[i]?.filter((f) => f[2] !== true)).toEqual([])
    expect(new Set(oks[2]?.map((f) => `${f[2]} ${f[3]}`))).toEqual(
      new Set(['false blocked: you are banned from this relay']),
    )
    const { rows } = await sql.query<{ pubkey: string; n: number }>(
      'SELECT pubkey, count(*)::int AS n FROM events WHERE grp = $1 AND kind = 9 GROUP BY pubkey',
      [g],
    )
    expect(Object.fromEntries(rows.map((row) => [row.pubkey, row.n]))).toEqual({
      [others[0]?.pk as string]: 30,
      [others[1]?.pk as string]: 30,
    })
  })
})

// Both backends: a burst is decided unit by unit, each on what the units before it left, even when
// the database reads for a whole batch ahead (PostgreSQL probes the queued EVENTs of a group at once).
describe('a burst into one group', () => {
  it('decides each EVENT after the ones before it: a repeat is a duplicate, an event its author deleted just before is refused', {
    timeout: 120_000,
  }, async () => {
    const path = join(tmpdir(), `burst-${randomBytes(6).toString('hex')}.db`)
    const r = await relay({ db: path, rateLimit: { events: 0, perSeconds: 1 } })
    const g = await r.createGroup({})
    const u = user()
    const c = await RawClient.open(r.url)
    const before = Array.from({ length: 20 }, (_, k) =>
      u.sign({ kind: 9, tags: h(g), content: `before ${k}` }),
    )
    const doomed = u.sign({ kind: 9, tags: h(g), content: 'doomed' })
    // Withdrawn before it ever reached the relay.
    const ghost = u.sign({ kind: 9, tags: h(g), content: 'ghost' })
    const del = u.sign({ kind: 5, tags: [...h(g), ['e', doomed.id], ['e', ghost.id], ['k', '9']] })
    const after = Array.from({ length: 20 }, (_, k) => u.sign({ kind: 9, tags: h(g), content: `after ${k}` }))
    const first = before[0] as NostrEvent
    // All sent at once: `ghost` right after the deletion, `doomed` and `first` again among the later ones.
    const sent = [...before, doomed, del, ghost, ...after.slice(0, 10), doomed, first, ...after.slice(10)]
    const oks = await burst(c, sent)
    const reply = (i: number) => oks.filter((f) => f[1] === sent[i]?.id).map((f) => [f[2], f[3]])
    const at = (e: NostrEvent, from = 0) => sent.indexOf(e, from)
    expect(oks).toHaveLength(sent.length)
    for (const e of [...before, ...after, del]) expect(oks.find((f) => f[1] === e.id)?.[2]).toBe(true)
    const doomedReplies = reply(at(doomed))
    expect(doomedReplies[0]).toEqual([true, ''])
    expect(doomedReplies[1]?.[0]).toBe(false)
    expect(String(doomedReplies[1]?.[1])).toMatch(/^blocked: /)
    expect(reply(at(ghost))).toEqual([[false, 'blocked: this event was deleted by its author']])
    expect(reply(at(first))).toEqual([
      [true, ''],
      [true, 'duplicate: already have this event'],
    ])
    const { events: stored } = await c.req('stored', { '#h': [g], kinds: [9], limit: 500 })
    expect(stored.map((e) => e.id).sort()).toEqual([...before, ...after].map((e) => e.id).sort())
  })
})

/** A relay without a rate limit, a group on it, a writer and a raw connection to send bursts on. */
async function burstingGroup(): Promise<{ g: string; u: User; c: RawClient }> {
  const r = await relay({ rateLimit: { events: 0, perSeconds: 1 } })
  return { g: await r.createGroup({}), u: user(), c: await RawClient.open(r.url) }
}

describe('events stored in a burst', () => {
  it('are found by search as they are written and without their diacritics, those that hold NUL or a lone surrogate stored all the same', {
    timeout: 120_000,
  }, async () => {
    const { g, u, c } = await burstingGroup()
    const words = [
      'plain zebra',
      'wörld café',
      'nul\u0000inside zebra',
      'lone \ud800 zebra',
      'back\\u0041slash zebra',
      '🦜 zebra',
    ]
    const sent = words.flatMap((s) =>
      Array.from({ length: 10 }, (_, i) => u.sign({ kind: 9, tags: h(g), content: `${s} ${i}` })),
    )
    const oks = await burst(c, sent)
    expect(oks.filter((f) => f[2] !== true)).toEqual([])
    const { events } = await c.req('all', { '#h': [g], kinds: [9], limit: 500 })
    expect(events).toHaveLength(sent.length)
    const found = async (search: string) =>
      (await c.req(`s${search}`, { '#h': [g], search, limit: 500 })).events.map((e) => e.content).sort()
    const written = (prefix: string) =>
      sent
        .map((e) => e.content)
        .filter((t) => t.startsWith(prefix))
        .sort()
    expect(await found('world')).toEqual(written('wörld'))
    expect(await found('wörld')).toEqual(written('wörld'))
    expect(await found('cafe')).toEqual(written('wörld'))
    const zebras = await found('zebra')
    for (const prefix of ['plain', 'back', '🦜'])
      expect(zebras).toEqual(expect.arrayContaining(written(prefix)))
    // SQLite indexes NUL and lone surrogates too; PostgreSQL, which cannot hold them in a JSON value,
    // stores those events unsearchable.
    expect(zebras.length).toBe(BACKEND === 'postgres' ? 30 : 50)
  })
  it('are all stored and answered in order, a burst of over a megabyte into one group', {
    timeout: 120_000,
  }, async () => {
    const { g, u, c } = await burstingGroup()
    // Each under what one notification carries, together more than one batch statement takes.
    const sent = Array.from({ length: 240 }, (_, i) =>
      u.sign({ kind: 9, tags: h(g), content: `${i} ${'x'.repeat(6_000)}` }),
    )
    const oks = await burst(c, sent)
    expect(oks.map((f) => f[1])).toEqual(sent.map((e) => e.id))
    expect(oks.filter((f) => f[2] !== true)).toEqual([])
    const { events } = await c.req('all', { '#h': [g], kinds: [9], limit: 500 })
    expect(events.map((e) => e.id).sort()).toEqual(sent.map((e) => e.id).sort())
  })

  it('come back exactly as sent, whatever their content and tags hold (quotes, backslashes, NUL, emoji)', {
    timeout: 120_000,
  }, async () => {
    const { g, u, c } = await burstingGroup()
    const odd = [
      "it's",
      'back\\slash',
      "E'\\x41'",
      'nul\u0000inside',
      '🦜 "quoted" \n',
      "\\'; DROP TABLE events; --",
    ]
    const sent = odd.flatMap((s, k) =>
      Array.from({ length: 5 }, (_, i) =>
        u.sign({ kind: 9, tags: [...h(g), ['t', s], ['x', `${k}/${i}`]], content: `${s} ${i}` }),
      ),
    )
    const oks = await burst(c, sent)
    expect(oks.filter((f) => f[2] !== true)).toEqual([])
    const { events } = await c.req('all', { '#h': [g], kinds: [9], limit: 500 })
    const byId = new Map(events.map((e) => [e.id, e]))
    for (const e of sent) expect(byId.get(e.id)).toEqual(JSON.parse(JSON.stringify(e)))
    for (const s of odd) {
      const { events: tagged } = await c.req(`t${odd.indexOf(s)}`, { '#t': [s] })
      expect(tagged.map((e) => e.content).sort()).toEqual(
        sent
          .filter((e) => e.tags[1]?.[1] === s)
          .map((e) => e.content)
          .sort(),
      )
    }
  })
})
