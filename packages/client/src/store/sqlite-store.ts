import Database from 'better-sqlite3'
import type { NostrEvent } from 'nostr-tools/core'
import { InvalidQueryError, StoreClosedError, StoreOpenError } from './errors'
import type { AddOptions, EventStore, StoreQuery, StoreSearch } from './event-store'
import {
  branded,
  checkEvent,
  checkFork,
  checkForks,
  checkQuery,
  checkRemoval,
  indexedTags,
  NO_FORK,
  replaceD,
  serializeValue,
  stateFork,
  supersedes,
} from './rules'
import { planSearch } from './search-rules'
import { ftsQuery, installSearchIndex, searchSql } from './sqlite-search'

type DB = Database.Database
type Statement = Database.Statement

const SCHEMA_VERSION = 2

// Tags are indexed on (name, value, created_at DESC) with the event rowid, so "newest N with #h=x"
// walks one index range in order and stops after N (no sort, no scan of the group's history).
// Fork memberships carry created_at for the same reason: a fork's timeline is one range too, and
// `seq`, the order in which the fork's events arrived (decision 12), which orders ties.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  pubkey TEXT NOT NULL,
  kind INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  d TEXT,
  json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_time ON events (created_at DESC, id);
CREATE INDEX IF NOT EXISTS events_kind ON events (kind, created_at DESC);
CREATE INDEX IF NOT EXISTS events_author ON events (pubkey, created_at DESC);
CREATE INDEX IF NOT EXISTS events_address ON events (kind, pubkey, d) WHERE d IS NOT NULL;
CREATE TABLE IF NOT EXISTS tags (
  event INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tags_lookup ON tags (name, value, created_at DESC, event);
CREATE INDEX IF NOT EXISTS tags_event ON tags (event);
CREATE TABLE IF NOT EXISTS forks (
  fork TEXT NOT NULL,
  event INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  seq INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (fork, event)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS forks_order ON forks (fork, created_at DESC, seq DESC);
CREATE INDEX IF NOT EXISTS forks_event ON forks (event);
CREATE INDEX IF NOT EXISTS forks_seq ON forks (seq);
CREATE TABLE IF NOT EXISTS state (
  relay TEXT NOT NULL,
  kind INTEGER NOT NULL,
  d TEXT NOT NULL,
  fork TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  id TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (relay, kind, d)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS state_fork ON state (fork);
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`

interface Row {
  json: string
}

/** The stored text of an event: its NIP-01 fields only. */
function eventJson(e: NostrEvent): string {
  return JSON.stringify({
    id: e.id,
    pubkey: e.pubkey,
    created_at: e.created_at,
    kind: e.kind,
    tags: e.tags,
    content: e.content,
    sig: e.sig,
  })
}

/**
 * The {@link EventStore} on SQLite (better-sqlite3, Node only): WAL journal, prepared statements,
 * batches in one transaction, tags indexed on (name, value, created_at DESC) with the event rowid
 * so a group's newest page is an index range walk. Import it from `@roost/client/sqlite`; the
 * package root stays free of native modules for browsers.
 *
 * @example
 * import { SqliteEventStore } from '@roost/client/sqlite'
 * const store = SqliteEventStore.open('.roost/client.db') // or ':memory:'
 * await store.addMany(events, "wss://groups.example.com'general")
 * const page = await store.query({ tags: { h: ['general'] }, limit: 100 })
 * await store.close()
 */
export class SqliteEventStore implements EventStore {
  private readonly statements = new Map<string, Statement>()
  /** newestPerFork's statements by page size. */
  private readonly pageStatements = new Map<number, Statement>()
  private closed = false
  private readonly sql: {
    insertEvent: Statement
    eventRowid: Statement
    insertTag: Statement
    insertFork: Statement
    findAddress: Statement
    unlinkFork: Statement
    dropTags: Statement
    dropEventIfOrphan: Statement
    get: Statement
    getStateMeta: Statement
    putState: Statement
    getState: Statement
    statePerFork: Statement
    getValue: Statement
    setValue: Statement
    deleteValue: Statement
  }
  private readonly addBatch: (events: NostrEvent[], fork: string, older: boolean) => number
  private readonly deleteForkTx: (fork: string) => void

  /** The last arrival sequence handed out (decision 21). */
  private nextSeq: number
  /** The last sequence handed to an event of a page of older history (counting down, below 0). */
  private olderSeq: number
  /**
   * Whether rows stored before schema 2 are held: they share arrival sequence 0, so their pages
   * need the id tie-break. Every later row has a sequence of its own.
   */
  private readonly legacyTies: boolean

  private constructor(private readonly db: DB) {
    const p = (sql: string) => db.prepare(sql)
    // Both through forks_seq: a full scan of forks here cost a cold start its page cache.
    const seqs = db
      .prepare(
        `SELECT coalesce((SELECT max(seq) FROM forks), 0) AS last, coalesce((SELECT min(seq) FROM forks), 0) AS first,
         EXISTS (SELECT 1 FROM forks WHERE seq = 0) AS legacy`,
      )
      .get() as { last: number; first: number; legacy: number }
    this.nextSeq = seqs.last
    this.olderSeq = Math.min(seqs.first, 0)
    this.legacyTies = seqs.legacy === 1
    this.sql = {
      insertEvent: p(
        'INSERT OR IGNORE INTO events (id, pubkey, kind, created_at, d, json) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      eventRowid: p('SELECT rowid FROM events WHERE id = ?').pluck(),
      insertTag: p('INSERT INTO tags (event, name, value, created_at) VALUES (?, ?, ?, ?)'),
      insertFork: p('INSERT OR IGNORE INTO forks (fork, event, created_at, seq) VALUES (?, ?, ?, ?)'),
      findAddress: p(
        `SELECT e.rowid AS rowid, e.id AS id, e.created_at AS created_at FROM events e
         JOIN forks f ON f.event = e.rowid AND f.fork = '' WHERE e.kind = ? AND e.pubkey = ? AND e.d = ?`,
      ),
      unlinkFork: p('DELETE FROM forks WHERE fork = ? AND event = ?'),
      dropTags: p('DELETE FROM tags WHERE event = ? AND NOT EXISTS (SELECT 1 FROM forks WHERE event = ?)'),
      dropEventIfOrphan: p(
        'DELETE FROM events WHERE rowid = ? AND NOT EXISTS (SELECT 1 FROM forks WHERE event = ?)',
      ),
      get: p('SELECT json FROM events WHERE id = ?'),
      getStateMeta: p('SELECT id, created_at FROM state WHERE relay = ? AND kind = ? AND d = ?'),
      putState: p(
        'INSERT OR REPLACE INTO state (relay, kind, d, fork, created_at, id, json) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      getState: p('SELECT json FROM state WHERE relay = ? AND kind = ? AND d = ?'),
      // every fork's state rows in one statement, unsorted (a handful per fork: ordered in JS)
      statePerFork: p('SELECT j.key, s.json FROM json_each(?) j JOIN state s ON s.fork = j.value').raw(),
      getValue: p('SELECT value FROM kv WHERE key = ?').pluck(),
      setValue: p('INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)'),
      deleteValue: p('DELETE FROM kv WHERE key = ?'),
    }
    this.addBatch = db.transaction((events: NostrEvent[], fork: string, older: boolean) => {
      let changed = 0
      for (const e of events) if (this.addOne(e, fork, older)) changed++
      return changed
    })
    const collect = p('INSERT INTO doomed (rowid) SELECT event FROM forks WHERE fork = ?')
    const unlinkAll = p('DELETE FROM forks WHERE fork = ?')
    const spare = p('DELETE FROM doomed WHERE EXISTS (SELECT 1 FROM forks WHERE event = doomed.rowid)')
    const dropTags = p('DELETE FROM tags WHERE event IN (SELECT rowid FROM doomed)')
    const dropEvents = p('DELETE FROM events WHERE rowid IN (SELECT rowid FROM doomed)')
    const dropState = p('DELETE FROM state WHERE fork = ?')
    const clear = p('DELETE FROM doomed')
    this.deleteForkTx = db.transaction((fork: string) => {
      collect.run(fork)
      unlinkAll.run(fork)
      spare.run()
      dropTags.run()
      dropEvents.run()
      clear.run()
      dropState.run(fork)
    })
  }

  /**
   * Opens (creating if needed) the database at `path`, or an in-memory one for `':memory:'`.
   *
   * @example
   * const store = SqliteEventStore.open(':memory:')
   */
  static open(path: string): SqliteEventStore {
    if (typeof path !== 'string' || path === '')
      throw new StoreOpenError('a database path (or ":memory:") is needed')
    let db: DB
    try {
      db = new Database(path)
    } catch (e) {
      throw new StoreOpenError(`cannot open ${path}: ${(e as Error).message}`, { cause: e })
    }
    try {
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = NORMAL')
      db.pragma('temp_store = MEMORY')
      const version = db.pragma('user_version', { simple: true }) as number
      if (version > SCHEMA_VERSION) {
        throw new StoreOpenError(
          `${path} was written by a newer Roost (schema ${version} > ${SCHEMA_VERSION})`,
        )
      }
      if (version === 1) {
        // schema 1 → 2: the arrival sequence; rows stored before it keep the id order among ties
        db.exec('ALTER TABLE forks ADD COLUMN seq INTEGER NOT NULL DEFAULT 0')
        db.exec('DROP INDEX IF EXISTS forks_timeline')
      }
      db.exec(SCHEMA)
      installSearchIndex(db)
      db.exec('CREATE TEMP TABLE IF NOT EXISTS doomed (rowid INTEGER PRIMARY KEY)')
      db.pragma(`user_version = ${SCHEMA_VERSION}`)
      return new SqliteEventStore(db)
    } catch (e) {
      db.close()
      if (e instanceof StoreOpenError) throw e
      throw new StoreOpenError(`cannot use ${path}: ${(e as Error).message}`, { cause: e })
    }
  }

  private open(): void {
    if (this.closed) throw new StoreClosedError()
  }

  private addOne(event: NostrEvent, fork: string, older: boolean): boolean {
    const d = replaceD(event)
    if (fork === NO_FORK && d !== undefined) {
      const current = this.sql.findAddress.get(event.kind, event.pubkey, d) as
        | { rowid: number; id: string; created_at: number }
        | undefined
      if (current) {
        if (current.id === event.id || !supersedes(event, current)) return false
        this.unlink(current.rowid, NO_FORK)
      }
    }
    const inserted = this.sql.insertEvent.run(
      event.id,
      event.pubkey,
      event.kind,
      event.created_at,
      d ?? null,
      eventJson(event),
    )
    let rowid: number | bigint
    if (inserted.changes > 0) {
      rowid = inserted.lastInsertRowid
      for (const [name, value] of indexedTags(event))
        this.sql.insertTag.run(rowid, name, value, event.created_at)
    } else {
      rowid = this.sql.eventRowid.get(event.id) as number
    }
    const seq = older ? this.olderSeq - 1 : this.nextSeq + 1
    if (this.sql.insertFork.run(fork, rowid, event.created_at, seq).changes === 0) return false
    if (older) this.olderSeq = seq
    else this.nextSeq = seq
    return true
  }

  private unlink(rowid: number, fork: string): void {
    this.sql.unlinkFork.run(fork, rowid)
    this.sql.dropTags.run(rowid, rowid)
    this.sql.dropEventIfOrphan.run(rowid, rowid)
  }

  async add(event: NostrEvent, fork?: string): Promise<boolean> {
    this.open()
    checkEvent(event)
    checkFork(fork)
    return this.addBatch([event], fork ?? NO_FORK, false) > 0
  }

  async addMany(events: NostrEvent[], fork?: string, opts: AddOptions = {}): Promise<number> {
    this.open()
    checkFork(fork)
    for (const e of events) checkEvent(e)
    return this.addBatch(events, fork ?? NO_FORK, opts.older === true)
  }

  async query(q: StoreQuery): Promise<NostrEvent[]> {
    this.open()
    checkQuery(q)
    if (q.limit === 0) return []
    const { sql, params } = buildQuery(q)
    let stmt = this.statements.get(sql)
    if (!stmt) {
      stmt = this.db.prepare(sql)
      this.statements.set(sql, stmt)
    }
    const rows = stmt.all(...params) as Row[]
    return rows.map((r) => branded(JSON.parse(r.json)))
  }

  async newestPerFork(forks: readonly string[], limit: number): Promise<Map<string, NostrEvent[]>> {
    this.open()
    checkForks(forks, limit)
    const pages = new Map<string, NostrEvent[]>()
    if (limit === 0) {
      for (const fork of forks) pages.set(fork, [])
      return pages
    }
    const statement = this.newestOfFork(limit)
    for (const fork of forks) {
      if (pages.has(fork)) continue
      const page: NostrEvent[] = []
      pages.set(fork, page)
      // Our own rows: verified when they arrived (decision 10), so parsed and branded, not re-checked.
      for (const json of statement.all(fork) as string[]) page.push(branded(JSON.parse(json)))
    }
    return pages
  }

  /**
   * The statement reading one fork's newest `limit` events: a walk down forks_order, already in
   * timeline order (decision 12: created_at, then arrival), so nothing is sorted; with the id
   * tie-break (a sort within each run of ties) only while rows from before schema 2 share seq 0.
   * The limit is written into the SQL (a checked integer): SQLite walks a bound `LIMIT ?` about
   * a third slower. A prepared statement per limit in use (a few kept).
   */
  private newestOfFork(limit: number): Statement {
    let stmt = this.pageStatements.get(limit)
    if (!stmt) {
      const tieBreak = this.legacyTies ? ', e.id ASC' : ''
      stmt = this.db
        .prepare(
          `SELECT e.json FROM forks f JOIN events e ON e.rowid = f.event
           WHERE f.fork = ? ORDER BY f.created_at DESC, f.seq DESC${tieBreak} LIMIT ${limit}`,
        )
        .pluck()
      if (this.pageStatements.size >= 8) this.pageStatements.clear()
      this.pageStatements.set(limit, stmt)
    }
    return stmt
  }

  async get(id: string): Promise<NostrEvent | undefined> {
    this.open()
    const row = this.sql.get.get(id) as Row | undefined
    return row ? branded(JSON.parse(row.json)) : undefined
  }

  /** Through the FTS5 index (`sqlite-search.ts`), newest first. */
  async search(q: StoreSearch): Promise<NostrEvent[]> {
    this.open()
    const plan = planSearch(q)
    if (plan.terms.length === 0 || plan.limit === 0) return []
    const sql = searchSql(!!plan.forks, !!plan.kinds, plan.until !== undefined)
    let stmt = this.statements.get(sql)
    if (!stmt) {
      stmt = this.db.prepare(sql)
      this.statements.set(sql, stmt)
    }
    const params: unknown[] = [ftsQuery(plan.terms)]
    if (plan.forks) params.push(JSON.stringify([...plan.forks]))
    if (plan.kinds) params.push(JSON.stringify([...plan.kinds]))
    if (plan.until !== undefined) params.push(plan.until)
    params.push(plan.limit)
    return (stmt.all(...params) as Row[]).map((r) => branded(JSON.parse(r.json)))
  }

  async putState(relay: string, event: NostrEvent): Promise<boolean> {
    this.open()
    checkEvent(event)
    const fork = stateFork(relay, event)
    const d = fork.slice(relay.length + 1)
    const current = this.sql.getStateMeta.get(relay, event.kind, d) as
      | { id: string; created_at: number }
      | undefined
    if (current && (current.id === event.id || !supersedes(event, current))) return false
    this.sql.putState.run(relay, event.kind, d, fork, event.created_at, event.id, eventJson(event))
    return true
  }

  async getState(relay: string, kind: number, d: string): Promise<NostrEvent | undefined> {
    this.open()
    const row = this.sql.getState.get(relay, kind, d) as Row | undefined
    return row ? branded(JSON.parse(row.json)) : undefined
  }

  async statePerFork(forks: readonly string[]): Promise<Map<string, NostrEvent[]>> {
    this.open()
    checkForks(forks, 0)
    const unique = [...new Set(forks)]
    const lists: NostrEvent[][] = unique.map(() => [])
    if (unique.length > 0) {
      const rows = this.sql.statePerFork.all(JSON.stringify(unique)) as [number, string][]
      for (const [i, json] of rows) (lists[i] as NostrEvent[]).push(branded(JSON.parse(json)))
      for (const list of lists) if (list.length > 1) list.sort((a, b) => a.kind - b.kind)
    }
    return new Map(unique.map((fork, i) => [fork, lists[i] as NostrEvent[]]))
  }

  async deleteFork(fork: string): Promise<void> {
    this.open()
    if (typeof fork !== 'string' || fork === NO_FORK)
      throw new InvalidQueryError('deleteFork needs a GroupKey string')
    this.deleteForkTx(fork)
  }

  async removeFromFork(fork: string, ids: readonly string[]): Promise<number> {
    this.open()
    checkRemoval(fork, ids)
    return this.db.transaction(() => {
      let removed = 0
      for (const id of new Set(ids)) {
        const rowid = this.sql.eventRowid.get(id) as number | undefined
        if (rowid === undefined || this.sql.unlinkFork.run(fork, rowid).changes === 0) continue
        this.unlink(rowid, fork)
        removed++
      }
      return removed
    })()
  }

  async getValue<T = unknown>(key: string): Promise<T | undefined> {
    this.open()
    const raw = this.sql.getValue.get(key) as string | undefined
    return raw === undefined ? undefined : (JSON.parse(raw) as T)
  }

  async setValue(key: string, value: unknown): Promise<void> {
    this.open()
    if (value === undefined) this.sql.deleteValue.run(key)
    else this.sql.setValue.run(key, serializeValue(key, value))
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.db.close()
  }
}

/**
 * One SELECT per query shape (values travel as JSON arrays through `json_each`, so the SQL text
 * depends only on which fields are present and its prepared statement is reused). The driving
 * table is the most selective ordered index available: a single-value tag, else the fork, else
 * the events table; every other condition is a filter on the event row.
 */
function buildQuery(q: StoreQuery): { sql: string; params: unknown[] } {
  const joinParams: unknown[] = []
  const params: unknown[] = []
  const where: string[] = []
  const tagEntries = Object.entries(q.tags ?? {})
  const driverTag = q.ids ? undefined : tagEntries.find(([, values]) => values.length === 1)
  let from: string
  let time: string
  if (driverTag) {
    from = 'tags x JOIN events e ON e.rowid = x.event'
    where.push('x.name = ? AND x.value = ?')
    params.push(driverTag[0], driverTag[1][0])
    time = 'x.created_at'
  } else if (q.fork && !q.ids) {
    from = 'forks x JOIN events e ON e.rowid = x.event'
    where.push('x.fork = ?')
    params.push(q.fork)
    time = 'x.created_at'
  } else {
    from = 'events e'
    time = 'e.created_at'
  }
  if (q.fork && (driverTag || q.ids)) {
    from += ' JOIN forks f ON f.event = e.rowid AND f.fork = ?'
    joinParams.push(q.fork)
  }
  if (q.ids) {
    where.push('e.id IN (SELECT value FROM json_each(?))')
    params.push(JSON.stringify(q.ids))
  }
  if (q.kinds) {
    where.push('e.kind IN (SELECT value FROM json_each(?))')
    params.push(JSON.stringify(q.kinds))
  }
  if (q.authors) {
    where.push('e.pubkey IN (SELECT value FROM json_each(?))')
    params.push(JSON.stringify(q.authors))
  }
  for (const [name, values] of tagEntries) {
    if (driverTag && name === driverTag[0]) continue
    where.push(
      'EXISTS (SELECT 1 FROM tags t WHERE t.event = e.rowid AND t.name = ? AND t.value IN (SELECT value FROM json_each(?)))',
    )
    params.push(name, JSON.stringify(values))
  }
  if (q.since !== undefined) {
    where.push(`${time} >= ?`)
    params.push(q.since)
  }
  if (q.until !== undefined) {
    where.push(`${time} <= ?`)
    params.push(q.until)
  }
  let sql = `SELECT e.json AS json FROM ${from}`
  if (where.length) sql += ` WHERE ${where.join(' AND ')}`
  // A fork's ties follow its arrival order, latest first (decision 12), then the id.
  const seq = !q.fork ? '' : driverTag || q.ids ? 'f.seq DESC, ' : 'x.seq DESC, '
  sql += ` ORDER BY ${time} DESC, ${seq}e.id ASC`
  if (q.limit !== undefined) {
    sql += ' LIMIT ?'
    params.push(q.limit)
  }
  return { sql, params: [...joinParams, ...params] }
}
