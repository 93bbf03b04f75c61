import Database from 'better-sqlite3'
import type { Filter, NostrEvent } from 'nostr-tools'
import type { GroupRecord } from '../groups/record'
import { type PageOptions, SqliteReads } from './query-sqlite'
import { DROP_OLD_INDEXES, SCHEMA } from './schema'
import { groupToken, installSearch, MAX_RANKED_ROWID, SEARCH_INSERT } from './search-sqlite'
import type { InsertResult, Page, ReadView, StoredRow } from './store'

export type { InsertResult, StoredRow } from './store'

/** True for replaceable kinds (0, 3, 10000–19999). */
export function isReplaceable(kind: number): boolean {
  return kind === 0 || kind === 3 || (kind >= 10000 && kind < 20000)
}
/** True for addressable kinds (30000–39999). */
export function isAddressable(kind: number): boolean {
  return kind >= 30000 && kind < 40000
}
/** True for ephemeral kinds (20000–29999): broadcast, never stored. */
export function isEphemeral(kind: number): boolean {
  return kind >= 20000 && kind < 30000
}

/** Tag values longer than this are not indexed (they can still be returned). */
const MAX_INDEXED_VALUE = 512
/** How many recently deleted ids are remembered (rule 14). */
const DELETED_KEEP = 1024

/** The group an event belongs to: its `h` tag, or the `d` of relay-signed state. */
export function groupColumn(event: NostrEvent, relayKey: string): string | null {
  if (event.kind >= 39000 && event.kind <= 39005 && event.pubkey === relayKey)
    return event.tags.find((t) => t[0] === 'd')?.[1] ?? null
  return event.tags.find((t) => t[0] === 'h')?.[1] ?? null
}

/**
 * The SQL of the relay's storage on better-sqlite3 (WAL), synchronous; `SqliteStore` puts it behind
 * the `EventStore` contract.
 *
 * @example
 * const db = new EventDatabase(':memory:', relayKey)
 * db.insert(event) // 'saved'
 * db.query({ '#h': ['general'], limit: 100 })
 */
export class EventDatabase {
  readonly sql: Database.Database
  private readonly reads: SqliteReads
  private readonly stmts
  constructor(
    path: string,
    private readonly relayKey: () => string,
  ) {
    this.sql = new Database(path)
    if (path !== ':memory:') this.sql.pragma('journal_mode = WAL')
    this.sql.pragma('synchronous = NORMAL')
    // Sorts of query results stay in memory (no temporary file per sorted query).
    this.sql.pragma('temp_store = MEMORY')
    this.sql.pragma('foreign_keys = ON')
    this.sql.exec(SCHEMA)
    this.sql.exec(DROP_OLD_INDEXES)
    installSearch(this.sql)
    this.reads = new SqliteReads(this.sql)
    const s = this.sql
    this.stmts = {
      byId: s.prepare<[string], StoredRow>(
        'SELECT json, id, pubkey, kind, created_at, grp, rowid AS seq FROM events WHERE id = ?',
      ),
      hasId: s.prepare<[string], { one: number }>('SELECT 1 AS one FROM events WHERE id = ?'),
      replaceable: s.prepare<[number, string, string], { rowid: number; id: string; created_at: number }>(
        'SELECT rowid, id, created_at FROM events WHERE kind = ? AND pubkey = ? AND d = ?',
      ),
      insert: s.prepare(
        'INSERT INTO events (id, pubkey, kind, created_at, d, grp, json) VALUES (@id, @pubkey, @kind, @created_at, @d, @grp, @json)',
      ),
      insertSearch: s.prepare(SEARCH_INSERT),
      insertTag: s.prepare('INSERT INTO tags (event, name, value, created_at) VALUES (?, ?, ?, ?)'),
      deleteRow: s.prepare('DELETE FROM events WHERE rowid = ?'),
      deleteId: s.prepare('DELETE FROM events WHERE id = ?'),
      getMeta: s.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: s.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
      groups: s.prepare<[], { state: string }>('SELECT state FROM groups'),
      saveGroup: s.prepare(
        'INSERT INTO groups (id, state) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state',
      ),
      dropGroup: s.prepare('DELETE FROM groups WHERE id = ?'),
      addDeleted: s.prepare('INSERT OR REPLACE INTO deleted_ids (id, at) VALUES (?, ?)'),
      hasDeleted: s.prepare<[string], { one: number }>('SELECT 1 AS one FROM deleted_ids WHERE id = ?'),
      trimDeleted: s.prepare(
        `DELETE FROM deleted_ids WHERE id NOT IN (SELECT id FROM deleted_ids ORDER BY at DESC LIMIT ${DELETED_KEEP})`,
      ),
      // Arrival order (rowid), not created_at: a late-dated event that arrived last is the newest.
      ring: s.prepare<[string, number], { id: string; pubkey: string }>(
        `SELECT id, pubkey FROM events WHERE grp = ? AND (kind < 39000 OR kind > 39005)
         ORDER BY rowid DESC LIMIT ?`,
      ),
      groupRows: s.prepare<[string, string], { id: string }>(
        'SELECT id FROM events WHERE grp = ? AND id != ?',
      ),
      // Asked for every EVENT: one index probe, no sort (the general filter query costs ~10× more).
      authorDeleted: s.prepare<[string, string], { one: number }>(
        `SELECT 1 AS one FROM tags t JOIN events e ON e.rowid = t.event
         WHERE t.name = 'e' AND t.value = ? AND e.kind = 5 AND e.pubkey = ? LIMIT 1`,
      ),
    }
  }

  /** Runs `fn` in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.sql.transaction(fn)()
  }

  /** Stores an event, replacing older versions of replaceable and addressable ones (lowest id wins a tie). */
  insert(event: NostrEvent): InsertResult {
    if (this.stmts.hasId.get(event.id)) return 'duplicate'
    let d: string | null = null
    if (isReplaceable(event.kind)) d = ''
    else if (isAddressable(event.kind)) d = event.tags.find((t) => t[0] === 'd')?.[1] ?? ''
    if (d !== null) {
      const old = this.stmts.replaceable.get(event.kind, event.pubkey, d)
      if (old) {
        const newer =
          event.created_at > old.created_at || (event.created_at === old.created_at && event.id < old.id)
        if (!newer) return 'stale'
        this.stmts.deleteRow.run(old.rowid)
      }
    }
    const info = this.stmts.insert.run({
      id: event.id,
      pubkey: event.pubkey,
      kind: event.kind,
      created_at: event.created_at,
      d,
      grp: groupColumn(event, this.relayKey()),
      json: JSON.stringify(event),
    })
    const rowid = Number(info.lastInsertRowid)
    if (event.content !== '' && rowid <= MAX_RANKED_ROWID) {
      const h = event.tags.find((t) => t[0] === 'h')?.[1]
      this.stmts.insertSearch.run(
        event.created_at,
        rowid,
        event.content,
        h === undefined ? '' : groupToken(h, event.kind),
      )
    }
    const seen = new Set<string>()
    for (const tag of event.tags) {
      const [name, value] = tag
      if (
        name === undefined ||
        name.length !== 1 ||
        typeof value !== 'string' ||
        value.length > MAX_INDEXED_VALUE
      )
        continue
      const key = `${name}\u0000${value}`
      if (seen.has(key)) continue
      seen.add(key)
      this.stmts.insertTag.run(rowid, name, value, event.created_at)
    }
    return 'saved'
  }

  get(id: string): StoredRow | undefined {
    return this.stmts.byId.get(id)
  }

  /** Deletes events by id; returns how many were removed. */
  deleteIds(ids: readonly string[]): number {
    let n = 0
    for (const id of ids) n += this.stmts.deleteId.run(id).changes
    return n
  }

  /** The newest stored version of an addressable event, if any. */
  latest(kind: number, pubkey: string, d: string): StoredRow | undefined {
    const row = this.stmts.replaceable.get(kind, pubkey, d)
    return row ? this.stmts.byId.get(row.id) : undefined
  }

  /** Events matching one NIP-01 filter, newest first (latest arrival first within a second). */
  query(filter: Filter, limit: number, offset = 0): StoredRow[] {
    return this.reads.query(filter, limit, offset)
  }

  /** COUNT: see `EventStore.countable`. */
  countable(filter: Filter, view: ReadView | undefined, maxScan: number): number[] | undefined {
    return this.reads.countable(filter, view, maxScan)
  }

  /** One bounded step of a REQ's read (see `EventStore.page`). */
  page(filter: Filter, limit: number, opts: PageOptions): Page {
    return this.reads.page(filter, limit, opts)
  }

  /** The statement of one step, to run on another connection (see `SearchThread`). */
  pageSql(
    filter: Filter,
    limit: number,
    opts: PageOptions,
  ): { sql: string; params: (string | number)[]; window: number } | undefined {
    return this.reads.pageSql(filter, limit, opts)
  }

  /** The last `n` events of a group to arrive (any kind, any author), newest first: the `previous` ring. */
  ring(groupId: string, n: number): { id: string; pubkey: string }[] {
    return this.stmts.ring.all(groupId, n)
  }

  /**
   * Deletes every event of a group except `keepId`: its `h`-tagged events and the relay's 390xx for
   * it, never other events that merely carry its id as a `d` value. Returns the deleted ids.
   */
  deleteGroupEvents(groupId: string, keepId: string): string[] {
    const ids = this.stmts.groupRows.all(groupId, keepId).map((r) => r.id)
    this.deleteIds(ids)
    return ids
  }

  getMeta(key: string): string | undefined {
    return this.stmts.getMeta.get(key)?.value
  }
  setMeta(key: string, value: string): void {
    this.stmts.setMeta.run(key, value)
  }

  loadGroups(): GroupRecord[] {
    return this.stmts.groups.all().map((r) => JSON.parse(r.state) as GroupRecord)
  }
  saveGroup(g: GroupRecord): void {
    this.stmts.saveGroup.run(g.id, JSON.stringify(g))
  }
  dropGroup(id: string): void {
    this.stmts.dropGroup.run(id)
  }

  /** Remembers ids deleted by moderators or authors, so they cannot be published again (rule 14). */
  rememberDeleted(ids: readonly string[], at: number): void {
    for (const id of ids) this.stmts.addDeleted.run(id, at)
    this.stmts.trimDeleted.run()
  }
  /** True when `pubkey` stored a kind 5 naming `id` in an `e` tag. */
  deletedByAuthor(pubkey: string, id: string): boolean {
    return !!this.stmts.authorDeleted.get(id, pubkey)
  }
  wasDeleted(id: string): boolean {
    return !!this.stmts.hasDeleted.get(id)
  }

  close(): void {
    this.sql.close()
  }
}
