import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { contentMatches, searchTerms } from '@roost/nip29'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import type { Filter, NostrEvent } from 'nostr-tools'
import { matchFilter } from 'nostr-tools/filter'
import { describe, expect, it } from 'vitest'
import { GroupIndex } from '../src/groups/group-index'
import { newGroup } from '../src/groups/record'
import { canSee } from '../src/groups/visibility'
import { PROFILES } from '../src/profiles'
import { EventDatabase } from '../src/store/database'
import { SCHEMA } from '../src/store/schema'

const hex = (n: number) => n.toString(16).padStart(64, '0')

/** Newest `created_at` first, then the later arrival (`events` is in arrival order). */
function answerOrder(events: NostrEvent[]): (a: NostrEvent, b: NostrEvent) => number {
  const arrival = new Map(events.map((e, i) => [e.id, i]))
  return (a, b) => b.created_at - a.created_at || (arrival.get(b.id) ?? 0) - (arrival.get(a.id) ?? 0)
}

/** The reference model: every stored event through nostr-tools' matchFilter, newest first, later arrival on ties. */
function model(events: NostrEvent[], f: Filter, limit: number): string[] {
  return events
    .filter((e) => matchFilter(f, e))
    .sort(answerOrder(events))
    .slice(0, limit)
    .map((e) => e.id)
}

const event = fc.record({
  n: fc.integer({ min: 1, max: 1_000_000 }),
  pubkey: fc.integer({ min: 1, max: 4 }).map(hex),
  kind: fc.constantFrom(1, 7, 9, 11),
  created_at: fc.integer({ min: 100, max: 110 }),
  // Several values of one tag on one event (h=a and h=b) must not return the event twice.
  tags: fc.uniqueArray(fc.tuple(fc.constantFrom('h', 't'), fc.constantFrom('a', 'b')), {
    maxLength: 4,
    selector: (t) => t.join(),
  }),
})

const filter = fc.record(
  {
    authors: fc.array(fc.integer({ min: 1, max: 4 }).map(hex), { minLength: 1, maxLength: 2 }),
    kinds: fc.array(fc.constantFrom(1, 7, 9, 11), { minLength: 1, maxLength: 2 }),
    since: fc.integer({ min: 100, max: 110 }),
    until: fc.integer({ min: 100, max: 110 }),
    '#h': fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }),
    '#t': fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }),
  },
  { requiredKeys: [] },
)

describe('SQLite query path against a matchFilter model', () => {
  it('returns exactly the model’s events in the model’s order for any filter and limit', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(event, { selector: (e) => e.n, maxLength: 40 }),
        filter,
        fc.integer({ min: 1, max: 50 }),
        fc.boolean(),
        (raw, f, limit, byIds) => {
          const db = new EventDatabase(':memory:', () => hex(0))
          try {
            const events: NostrEvent[] = raw.map((r) => ({
              id: hex(r.n),
              pubkey: r.pubkey,
              kind: r.kind,
              created_at: r.created_at,
              content: '',
              tags: r.tags.map((t) => [...t]),
              sig: '0'.repeat(128),
            }))
            db.transaction(() => {
              for (const e of events) db.insert(e)
            })
            const query: Filter = byIds ? { ...f, ids: events.slice(0, 5).map((e) => e.id) } : f
            expect(db.query(query, limit).map((r) => r.id)).toEqual(model(events, query, limit))
          } finally {
            db.close()
          }
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('one statement over several values of a tag', () => {
  it('finds an older match when the newer rows of every value fail the rest of the filter', () => {
    const db = new EventDatabase(':memory:', () => hex(0))
    try {
      const e = (n: number, tags: string[][]) => ({
        id: hex(n),
        pubkey: hex(1),
        kind: 1,
        created_at: 100,
        content: '',
        tags,
        sig: '0'.repeat(128),
      })
      db.transaction(() => {
        db.insert(
          e(1, [
            ['h', 'a'],
            ['t', 'a'],
          ]),
        )
        db.insert(e(2, [['h', 'a']]))
        db.insert(e(3, [['h', 'b']]))
      })
      expect(db.query({ '#h': ['a', 'b'], '#t': ['a'] }, 1).map((r) => r.id)).toEqual([hex(1)])
    } finally {
      db.close()
    }
  })
})

describe('replaceable and addressable storage against a model', () => {
  it('keeps, per (kind, pubkey, d), the newest version with the lowest id on ties, whatever the arrival order', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            n: fc.integer({ min: 1, max: 1_000_000 }),
            kind: fc.constantFrom(0, 10002, 30078),
            d: fc.constantFrom('x', 'y'),
            created_at: fc.integer({ min: 1, max: 4 }),
          }),
          { selector: (e) => e.n, maxLength: 25 },
        ),
        (raw) => {
          const db = new EventDatabase(':memory:', () => hex(0))
          try {
            const events: NostrEvent[] = raw.map((r) => ({
              id: hex(r.n),
              pubkey: hex(1),
              kind: r.kind,
              created_at: r.created_at,
              content: '',
              tags: r.kind === 30078 ? [['d', r.d]] : [],
              sig: '0'.repeat(128),
            }))
            for (const e of events) db.insert(e)
            const key = (e: NostrEvent) => `${e.kind}:${e.kind === 30078 ? e.tags[0]?.[1] : ''}`
            const winners = new Map<string, NostrEvent>()
            for (const e of events) {
              const w = winners.get(key(e))
              if (!w || e.created_at > w.created_at || (e.created_at === w.created_at && e.id < w.id))
                winners.set(key(e), e)
            }
            const stored = db.query({ authors: [hex(1)] }, 100).map((r) => r.id)
            expect(stored.sort()).toEqual([...winners.values()].map((e) => e.id).sort())
          } finally {
            db.close()
          }
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('SQLite search (NIP-50) against a word-prefix model', () => {
  const words = ['apple', 'Apricot', 'banana', 'bänd', 'cherry', 'ch', 'x1']
  it('returns exactly the events whose content has every term as a word prefix, newest first', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...words), { maxLength: 5 }), { maxLength: 30 }),
        fc.array(fc.constantFrom('ap', 'APPLE', 'ban', 'band', 'ch', 'cherry', 'x', 'zzz'), {
          minLength: 1,
          maxLength: 3,
        }),
        (texts, query) => {
          const db = new EventDatabase(':memory:', () => hex(0))
          try {
            const events: NostrEvent[] = texts.map((t, i) => ({
              id: hex(i + 1),
              pubkey: hex(1),
              kind: 9,
              created_at: 100 + (i % 7),
              content: t.join(' '),
              tags: [],
              sig: '0'.repeat(128),
            }))
            for (const e of events) db.insert(e)
            const terms = searchTerms(query.join(' '))
            const want = events
              .filter((e) => contentMatches(e.content, terms))
              .sort(answerOrder(events))
              .map((e) => e.id)
            expect(db.query({ search: query.join(' ') }, 100).map((r) => r.id)).toEqual(want)
          } finally {
            db.close()
          }
        },
      ),
      { numRuns: 100 },
    )
  })

  /** Writes a file as an older relay did: the schema without search, plus `extra` SQL, and one event. */
  function olderFile(path: string, extra: string, e: NostrEvent): void {
    const old = new Database(path)
    old.exec(SCHEMA + extra)
    old
      .prepare('INSERT INTO events (id, pubkey, kind, created_at, grp, json) VALUES (?, ?, ?, ?, NULL, ?)')
      .run(e.id, e.pubkey, e.kind, e.created_at, JSON.stringify(e))
    old.close()
  }

  it('indexes the events of a file written before the search index existed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-search-'))
    const path = join(dir, 'relay.db')
    try {
      const e = { id: hex(1), pubkey: hex(1), kind: 9, created_at: 1, tags: [], sig: '0'.repeat(128) }
      olderFile(path, '', { ...e, content: 'written before the index' })
      const db = new EventDatabase(path, () => hex(0))
      db.insert({ ...e, id: hex(2), content: 'written after the index' })
      expect(db.query({ search: 'written index' }, 10).map((r) => r.id)).toEqual([hex(2), hex(1)])
      db.deleteIds([hex(1)])
      expect(db.query({ search: 'before' }, 10)).toEqual([])
      db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('opens a file whose index an insert trigger kept, and indexes each new event once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-search-'))
    const path = join(dir, 'relay.db')
    try {
      // The index as the previous release kept it: filled by a trigger on every insert.
      const triggered = `
        CREATE VIRTUAL TABLE events_fts USING fts5(
          content, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
        CREATE TRIGGER events_fts_insert AFTER INSERT ON events
        WHEN json_extract(new.json, '$.content') <> '' BEGIN
          INSERT INTO events_fts (rowid, content) VALUES (new.rowid, json_extract(new.json, '$.content'));
        END;`
      const e = { id: hex(1), pubkey: hex(1), kind: 9, created_at: 1, tags: [], sig: '0'.repeat(128) }
      olderFile(path, triggered, { ...e, content: 'kept by the trigger' })
      const db = new EventDatabase(path, () => hex(0))
      expect(db.insert({ ...e, id: hex(2), content: 'kept by the relay' })).toBe('saved')
      expect(db.query({ search: 'kept' }, 10).map((r) => r.id)).toEqual([hex(2), hex(1)])
      // The relay indexes each insert itself now: the old trigger is gone, or it would index twice.
      const triggers = db.sql.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all()
      expect(triggers).toEqual(['events_search_delete'])
      db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the reader’s view in SQL against the visibility rule', () => {
  const RELAY = hex(0)

  it('a reader who becomes staff of a group sees its staff-only rows at once (a cached view is dropped)', () => {
    const index = new GroupIndex()
    const g = { ...newGroup('a', 1, { private: false, closed: false }), members: { [hex(1)]: [] } }
    const reader = { authed: new Set([hex(1)]), relayKey: RELAY }
    index.set('a', g)
    expect(index.view(reader, {}, PROFILES.roost).staffOf).toEqual([])
    index.set('a', { ...g, members: { [hex(1)]: ['admin'] } })
    expect(index.view(reader, {}, PROFILES.roost).staffOf).toEqual(['a'])
    index.set('a', { ...g, members: { [hex(1)]: ['moderator'] } })
    expect(index.view(reader, {}, PROFILES.roost).staffOf).toEqual(['a'])
    // groups_relay gives moderators no power: they are no staff there.
    expect(index.view(reader, { '#h': ['a'] }, PROFILES.groups_relay).staffOf).toEqual([])
    index.set('a', g)
    expect(index.view(reader, {}, PROFILES.roost).staffOf).toEqual([])
    // The relay key sees everything: no staff clause at all.
    expect(
      index.view({ authed: new Set([RELAY]), relayKey: RELAY }, {}, PROFILES.roost).staffOf,
    ).toBeUndefined()
  })
  const groupIds = ['a', 'b', 'c', 'd']
  const flags = fc.record({
    private: fc.boolean(),
    hidden: fc.boolean(),
    closed: fc.boolean(),
    deleted: fc.boolean(),
  })
  const row = fc.record({
    // 1984, 9009 and 9021 are for the group's staff and their author only.
    kind: fc.constantFrom(9, 39000, 39002, 9000, 9001, 1984, 9009, 9021),
    group: fc.constantFrom(...groupIds, 'none', 'unknown'),
    p: fc.constantFrom(1, 2, 3),
    author: fc.constantFrom(1, 2, 3, 9),
    created_at: fc.integer({ min: 100, max: 104 }),
    search: fc.boolean(),
  })
  const roles = fc.constantFrom<string[]>([], ['admin'], ['moderator'], ['gardener'], ['Admin'])

  it('a step returns exactly the rows canSee keeps, in answer order, for any groups, roles, authors, reader, filter and profile', () => {
    fc.assert(
      fc.property(
        fc.array(flags, { minLength: 4, maxLength: 4 }),
        fc.array(fc.array(fc.tuple(fc.constantFrom(1, 2, 3), roles), { maxLength: 3 }), {
          minLength: 4,
          maxLength: 4,
        }),
        fc.array(row, { maxLength: 40 }),
        fc.subarray([1, 2, 3]),
        fc.constantFrom('roost', 'strict', 'relay29', 'zooid', 'groups_relay', 'pyramid'),
        fc.constantFrom<Filter>(
          {},
          { kinds: [9, 9000, 9001, 39000] },
          { '#h': ['a', 'b'] },
          { '#p': [hex(1)] },
          { search: 'word' },
          { kinds: [1984, 9009, 9021] },
          { '#p': [hex(2)], kinds: [1984, 9] },
          { ids: [hex(1000), hex(1001), hex(1002), hex(1003)] },
        ),
        fc.integer({ min: 1, max: 60 }),
        (gflags, members, rows, authed, profile, filter, window) => {
          const policy = PROFILES[profile as keyof typeof PROFILES]
          const index = new GroupIndex()
          const records = new Map(
            groupIds.map((id, i) => {
              const g = {
                ...newGroup(id, 1, gflags[i] ?? { private: false, closed: false }),
                ...gflags[i],
                members: Object.fromEntries((members[i] ?? []).map(([n, r]) => [hex(n), r])),
              }
              index.set(id, g)
              return [id, g] as const
            }),
          )
          const db = new EventDatabase(':memory:', () => RELAY)
          try {
            const events: NostrEvent[] = rows.map((r, i) => {
              const relaySigned = r.kind >= 39000
              const tags = relaySigned
                ? [['d', r.group]]
                : [...(r.group === 'none' ? [] : [['h', r.group]]), ['p', hex(r.p)]]
              return {
                id: hex(1000 + i),
                pubkey: relaySigned ? RELAY : hex(r.author),
                kind: r.kind,
                created_at: r.created_at,
                content: r.search ? 'a word here' : '',
                tags,
                sig: '0'.repeat(128),
              }
            })
            for (const e of events) db.insert(e)
            const reader = { authed: new Set(authed.map(hex)), relayKey: RELAY }
            const view = index.view(reader, filter, policy)
            const stored = db.query(filter, 1000)
            const want = stored
              .filter((r) => {
                const g = r.grp === null ? undefined : records.get(r.grp)
                const e = JSON.parse(r.json) as NostrEvent
                return canSee(e, g, reader, filter, policy)
              })
              .map((r) => r.id)
            const got: string[] = []
            let after: { created_at: number; seq: number } | undefined
            for (let step = 0; step < 100; step++) {
              const page = db.page(filter, 1000, { view, after, window })
              got.push(...page.rows.map((r) => r.id))
              if (!page.next) break
              after = page.next
            }
            expect(got).toEqual(want)
            // Independently of canSee: a join request, invite or report reaches its author or the group's staff only.
            const staff = (id: string) => {
              const g = records.get(id)
              if (!g || g.deleted) return false
              return [...reader.authed].some((pk) =>
                (g.members[pk] ?? []).some(
                  (role) =>
                    role.toLowerCase() === 'admin' || (role === 'moderator' && !policy.adminOnlyModeration),
                ),
              )
            }
            for (const id of got) {
              const e = events.find((x) => x.id === id) as NostrEvent
              const group = e.tags.find((t) => t[0] === 'h')?.[1]
              if (![1984, 9009, 9021].includes(e.kind) || group === undefined) continue
              expect(reader.authed.has(e.pubkey) || staff(group)).toBe(true)
            }
          } finally {
            db.close()
          }
        },
      ),
      { numRuns: 150 },
    )
  })
})
