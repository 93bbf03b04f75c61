import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { afterAll, describe, expect, it } from 'vitest'
import { SqliteEventStore } from '../src/sqlite'
import { type EventStore, MemoryEventStore, StoreOpenError } from '../src/store'
import { storeContract } from './store-contract'
import { storeSearchContract } from './store-search-contract'

function chatEvent() {
  return finalizeEvent(
    { kind: 9, tags: [['h', 'general']], content: 'hi', created_at: 1 },
    generateSecretKey(),
  )
}

const dir = mkdtempSync(join(tmpdir(), 'roost-store-'))
let files = 0
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('MemoryEventStore', () => {
  storeContract('MemoryEventStore', { open: async () => new MemoryEventStore() })
  storeSearchContract('MemoryEventStore', { open: async () => new MemoryEventStore() })
})

describe('SqliteEventStore', () => {
  storeContract('SqliteEventStore :memory:', { open: async () => SqliteEventStore.open(':memory:') })
  storeSearchContract('SqliteEventStore :memory:', { open: async () => SqliteEventStore.open(':memory:') })

  const paths = new WeakMap<EventStore, string>()
  storeContract('SqliteEventStore on a file', {
    open: async () => {
      const path = join(dir, `store-${files++}.db`)
      const store = SqliteEventStore.open(path)
      paths.set(store, path)
      return store
    },
    reopen: async (store) => {
      const path = paths.get(store) as string
      await store.close()
      const again = SqliteEventStore.open(path)
      paths.set(again, path)
      return again
    },
    runs: 25,
  })
  storeSearchContract('SqliteEventStore on a file', {
    open: async () => {
      const path = join(dir, `search-${files++}.db`)
      const store = SqliteEventStore.open(path)
      paths.set(store, path)
      return store
    },
    reopen: async (store) => {
      const path = paths.get(store) as string
      await store.close()
      const again = SqliteEventStore.open(path)
      paths.set(again, path)
      return again
    },
    runs: 15,
  })

  it('indexes for search a cache written before the search index', async () => {
    const path = join(dir, 'before-search.db')
    const store = SqliteEventStore.open(path)
    const e = finalizeEvent(
      { kind: 9, tags: [['h', 'general']], content: 'an old remark', created_at: 1 },
      generateSecretKey(),
    )
    await store.add(e, "wss://relay.example.com'general")
    await store.close()
    const db = new Database(path)
    db.exec('DROP TRIGGER events_fts_insert; DROP TRIGGER events_fts_delete; DROP TABLE events_fts')
    db.close()
    const again = SqliteEventStore.open(path)
    expect((await again.search({ text: 'remark' })).map((x) => x.id)).toEqual([e.id])
    await again.close()
  })

  it('uses WAL and walks the (name, value, created_at) tag index for a group page', async () => {
    const path = join(dir, 'plan.db')
    const store = SqliteEventStore.open(path)
    await store.add(chatEvent(), "wss://relay.example.com'general")
    expect(existsSync(`${path}-wal`)).toBe(true)
    const db = new Database(path, { readonly: true })
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT e.json FROM tags x JOIN events e ON e.rowid = x.event
         WHERE x.name = 'h' AND x.value = 'general' ORDER BY x.created_at DESC, e.id ASC LIMIT 100`,
      )
      .all()
      .map((r) => (r as { detail: string }).detail)
      .join('\n')
    db.close()
    await store.close()
    expect(plan).toMatch(/SEARCH x USING (COVERING )?INDEX tags_lookup \(name=\? AND value=\?\)/)
    expect(plan).not.toMatch(/SCAN/)
  })

  it('orders a page of rows stored before the arrival sequence (seq 0) by id among ties, as query does', async () => {
    const path = join(dir, 'legacy-seq.db')
    const fork = "wss://groups.example.com'general"
    const store = SqliteEventStore.open(path)
    const sk = generateSecretKey()
    // 12 messages over 3 seconds, 4 per second: ties at the page's cut and inside it
    const events = Array.from({ length: 12 }, (_, i) =>
      finalizeEvent({ kind: 9, tags: [['h', 'general']], content: `m${i}`, created_at: 100 + (i % 3) }, sk),
    )
    await store.addMany(events, fork)
    await store.close()
    const db = new Database(path)
    db.prepare('UPDATE forks SET seq = 0').run() // as the schema 1 → 2 migration leaves old rows
    db.close()
    const again = SqliteEventStore.open(path)
    const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
    const expected = [...events]
      .sort((a, b) => b.created_at - a.created_at || byId(a.id, b.id))
      .map((e) => e.id)
    for (const limit of [1, 3, 4, 5, 6, 12, 50]) {
      const page = (await again.newestPerFork([fork], limit)).get(fork)!
      expect(page.map((e) => e.id)).toEqual(expected.slice(0, limit))
      expect((await again.query({ fork, limit })).map((e) => e.id)).toEqual(expected.slice(0, limit))
    }
    await again.close()
  })

  it('refuses a database written by a newer schema', async () => {
    const path = join(dir, 'future.db')
    const store = SqliteEventStore.open(path)
    await store.close()
    const db = new Database(path)
    db.pragma('user_version = 99') // as a newer release would leave it
    db.close()
    expect(() => SqliteEventStore.open(path)).toThrow(StoreOpenError)
    expect(() => SqliteEventStore.open(path)).toThrow(/newer Roost/)
  })

  it('refuses a path it cannot open, or a file that is not a database, with StoreOpenError', () => {
    expect(() => SqliteEventStore.open(join(dir, 'no', 'such', 'dir.db'))).toThrow(StoreOpenError)
    expect(() => SqliteEventStore.open('')).toThrow(StoreOpenError)
    const junk = join(dir, 'junk.db')
    writeFileSync(junk, 'this is not sqlite '.repeat(100))
    expect(() => SqliteEventStore.open(junk)).toThrow(StoreOpenError)
  })
})
