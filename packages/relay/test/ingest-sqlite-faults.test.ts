/**
 * Group commit on SQLite, with faults injected inside SQLite itself: a trigger that fails one
 * unit's write, a deferred constraint that fails the COMMIT of a whole batch. (PostgreSQL commits
 * each unit on its own; its crash and ordering tests are in ingest-pipeline.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { NostrEvent } from 'nostr-tools'
import { afterEach, describe, expect, it } from 'vitest'
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

/** Sends every frame at once and resolves to the OK frames, once one came for each. */
async function burst(raw: RawClient, events: NostrEvent[]): Promise<unknown[][]> {
  const from = raw.frames.length
  for (const e of events) raw.send(['EVENT', e])
  const oks = () => raw.frames.slice(from).filter((f) => f[0] === 'OK')
  while (oks().length < events.length) await raw.next((f) => f[0] === 'OK', raw.frames.length)
  return oks()
}

describe('ingest on SQLite: a batch commits whole or not at all', () => {
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
})
