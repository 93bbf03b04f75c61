import { searchTerms } from '@roost/nip29'
import type Database from 'better-sqlite3'
import type { Filter } from 'nostr-tools'
import { STAFF_ONLY_KINDS } from '../groups/visibility'
import { ftsQuery, RANK, ROWID_MASK } from './search-sqlite'
import type { Cursor, Page, ReadView, StoredRow } from './store'

type Param = string | number
/** Rows as the SQL returns them; `json` is null for a candidate that did not match. */
export type Candidate = Omit<StoredRow, 'json'> & { json: string | null }

/**
 * Rows one step may draw from a list's per-value walks: a step over many values examines fewer
 * candidates (at least one), so it stays bounded however long the list.
 */
const ARM_ROWS = 4_096
/** At most this many hidden groups are left out inside the search index (beyond, by the SQL alone). */
const FTS_EXCLUDE_MAX = 64

/**
 * The index walk a query is driven by, in answer order (`created_at` descending, then arrival):
 * its tables, conditions and the columns holding each candidate's `created_at` (`c`) and rowid (`r`).
 */
interface Drive {
  from: string
  where: string[]
  params: Param[]
  c: string
  r: string
  order: string
  /** The walk can meet one event twice (a tag filter with several values). */
  distinct: boolean
  /** The rows come from `events e` itself (no join needed). */
  events: boolean
  /** Filter fields the walk already enforces. */
  covers: Set<string>
}

/** The staff-only kinds as an SQL list (numbers, inlined). */
const STAFF_KINDS = [...STAFF_ONLY_KINDS].join(', ')

const list = (values: readonly Param[]) => values.map(() => '?').join(',')
const jsonList = (values: readonly string[]) => JSON.stringify(values)
const IN_JSON = 'IN (SELECT value FROM json_each(?))'

/** Which walk a filter takes: ids, else search, else a tag (`#h`, `#d`, the first), else authors, kinds, or time. */
function drive(
  f: Filter,
  terms: string[] | undefined,
  view: ReadView | undefined,
  cursor: Cursor | undefined,
  armLimit: number | undefined,
): Drive {
  const tags = tagFilters(f)
  const d: Drive = {
    from: 'events e',
    where: [],
    params: [],
    c: 'e.created_at',
    r: 'e.rowid',
    order: 'e.created_at DESC, e.rowid DESC',
    distinct: false,
    events: true,
    covers: new Set(),
  }
  const tag = tags.find(([k]) => k === '#h') ?? tags.find(([k]) => k === '#d') ?? tags[0]
  if (f.ids) {
    d.where.push(`e.id IN (${list(f.ids)})`)
    d.params.push(...f.ids)
    d.covers.add('ids')
  } else if (terms) {
    const hide = view && view.hideAll.length <= FTS_EXCLUDE_MAX ? view.hideAll : []
    Object.assign(d, { from: 'events_search s', events: false, order: 's.rowid DESC' })
    d.c = `(s.rowid >> 30)`
    d.r = `(s.rowid & ${ROWID_MASK})`
    d.where.push('events_search MATCH ?')
    d.params.push(ftsQuery(terms, f['#h'], hide))
    d.covers.add('search').add('#h')
    if (f.since !== undefined) {
      d.where.push(`s.rowid >= ${RANK('?', '0')}`)
      d.params.push(Math.max(0, f.since))
    }
    if (f.until !== undefined) {
      d.where.push(`s.rowid < ${RANK('?', '0')}`)
      d.params.push(f.until + 1)
    }
    if (cursor) {
      d.where.push(`s.rowid < ${RANK('?', '?')}`)
      d.params.push(cursor.created_at, cursor.seq)
    }
    return d
  }
  // A walk over a list of values (a tag's, authors, kinds): one index range per value.
  let listed: { on: string; pre: Param[]; values: readonly Param[] } | undefined
  if (!f.ids && tag) {
    Object.assign(d, { from: 'tags t', events: false, c: 't.created_at', r: 't.event' })
    d.order = 't.created_at DESC, t.event DESC'
    listed = { on: 't.name = ? AND t.value', pre: [tag[0].slice(1)], values: tag[1] }
    d.distinct = tag[1].length > 1
    d.covers.add(tag[0])
  } else if (!f.ids && f.authors) {
    listed = { on: 'e.pubkey', pre: [], values: f.authors }
    d.covers.add('authors')
  } else if (!f.ids && f.kinds) {
    listed = { on: 'e.kind', pre: [], values: f.kinds }
    d.covers.add('kinds')
  }
  const range: string[] = []
  const rangeParams: Param[] = []
  if (f.since !== undefined) {
    range.push(`${d.c} >= ?`)
    rangeParams.push(f.since)
  }
  if (f.until !== undefined) {
    range.push(`${d.c} <= ?`)
    rangeParams.push(f.until)
  }
  if (cursor) {
    range.push(`(${d.c}, ${d.r}) < (?, ?)`)
    rangeParams.push(cursor.created_at, cursor.seq)
  }
  if (listed && armLimit !== undefined && listed.values.length > 1) {
    // Each value's range walked newest first and cut at the limit, then merged: no sort of every
    // row the values hold. UNION drops an event met under two values. SQLite takes at most 500
    // terms in one compound SELECT: longer lists are nested by the hundred.
    const cut = Math.max(1, Math.floor(armLimit))
    const arm = () => {
      const where = [`${listed.on} = ?`, ...range].join(' AND ')
      return `SELECT * FROM (SELECT ${d.c} AS c, ${d.r} AS r FROM ${d.from} WHERE ${where} ORDER BY ${d.order} LIMIT ${cut})`
    }
    const arms: string[] = []
    for (let i = 0; i < listed.values.length; i += 100) {
      const chunk = listed.values.slice(i, i + 100).map(arm)
      arms.push(chunk.length === 1 ? (chunk[0] as string) : `SELECT * FROM (${chunk.join(' UNION ')})`)
    }
    for (const v of listed.values) d.params.push(...listed.pre, v, ...rangeParams)
    return Object.assign(d, {
      from: `(SELECT c, r FROM (${arms.join(' UNION ')}) ORDER BY c DESC, r DESC LIMIT ${cut}) u`,
      events: false,
      c: 'u.c',
      r: 'u.r',
      order: 'u.c DESC, u.r DESC',
      distinct: false,
    })
  }
  if (listed) {
    d.where.push(`${listed.on} IN (${list(listed.values)})`)
    d.params.push(...listed.pre, ...listed.values)
  }
  d.where.push(...range)
  d.params.push(...rangeParams)
  return d
}

/** How many values the list a filter walks holds (1 when it walks no list). */
function listLength(f: Filter): number {
  if (f.ids || f.search !== undefined) return 1
  const tags = tagFilters(f)
  const tag = tags.find(([k]) => k === '#h') ?? tags.find(([k]) => k === '#d') ?? tags[0]
  return Math.max(1, (tag?.[1] ?? f.authors ?? f.kinds ?? []).length)
}

function tagFilters(f: Filter): [string, string[]][] {
  return Object.entries(f).filter(
    (e): e is [string, string[]] => e[0].startsWith('#') && e[0].length === 2 && Array.isArray(e[1]),
  )
}

/** The conditions on `e` the walk does not enforce: the rest of the filter, then visibility. */
function checks(f: Filter, terms: string[] | undefined, d: Drive, view: ReadView | undefined) {
  const where: string[] = []
  const params: Param[] = []
  const inList = (col: string, key: string, values: readonly Param[] | undefined) => {
    if (!values || d.covers.has(key)) return
    where.push(`${col} IN (${list(values)})`)
    params.push(...values)
  }
  inList('e.id', 'ids', f.ids)
  inList('e.pubkey', 'authors', f.authors)
  inList('e.kind', 'kinds', f.kinds)
  if (terms && !d.covers.has('search')) {
    where.push(
      `EXISTS (SELECT 1 FROM events_search WHERE events_search MATCH ? AND rowid = ${RANK('e.created_at', 'e.rowid')})`,
    )
    params.push(ftsQuery(terms, undefined, []))
  }
  for (const [key, values] of tagFilters(f)) {
    if (d.covers.has(key)) continue
    where.push(
      `EXISTS (SELECT 1 FROM tags x WHERE x.event = e.rowid AND x.name = ? AND x.value IN (${list(values)}))`,
    )
    params.push(key.slice(1), ...values)
  }
  if (view && (view.hideAll.length > 0 || view.hide39000.length > 0)) {
    const k39 = view.hide39000.length > 0 ? `e.grp NOT ${IN_JSON}` : '1'
    let rest = view.hideAll.length > 0 ? `e.grp NOT ${IN_JSON}` : '1'
    const restParams: Param[] = view.hideAll.length > 0 ? [jsonList(view.hideAll)] : []
    if (view.naming.length > 0) {
      rest = `(${rest} OR (e.kind IN (9000, 9001) AND e.grp ${IN_JSON} AND EXISTS (SELECT 1 FROM tags p WHERE p.event = e.rowid AND p.name = 'p' AND p.value ${IN_JSON})))`
      restParams.push(jsonList(view.naming), jsonList(view.readers))
    }
    where.push(`(e.grp IS NULL OR CASE WHEN e.kind = 39000 THEN ${k39} ELSE ${rest} END)`)
    if (view.hide39000.length > 0) params.push(jsonList(view.hide39000))
    params.push(...restParams)
  }
  if (view?.staffOf) {
    // Join requests, invite codes and reports: their group's staff and their author only.
    where.push(`(e.kind NOT IN (${STAFF_KINDS}) OR e.grp IS NULL OR e.grp ${IN_JSON} OR e.pubkey ${IN_JSON})`)
    params.push(jsonList(view.staffOf), jsonList(view.readers))
  }
  return { where, params }
}

/** Nothing can match: an empty list in the filter, or a search with no words. */
function empty(f: Filter, terms: string[] | undefined): boolean {
  if (tagFilters(f).some(([, v]) => v.length === 0)) return true
  if (f.ids?.length === 0 || f.authors?.length === 0 || f.kinds?.length === 0) return true
  return terms?.length === 0
}

const COLS = 'e.id, e.pubkey, e.kind, e.grp'

/**
 * The SQL of the relay's reads on SQLite, prepared once per shape of filter.
 *
 * @example
 * const reads = new SqliteReads(db)
 * reads.query({ '#h': ['general'] }, 100) // the group's newest 100
 * reads.page({ search: 'pizza' }, 100, { window: 400, view }) // one bounded step of a REQ
 */
export class SqliteReads {
  /** Filters of the same shape share one prepared statement (a small LRU keyed by the SQL text). */
  private readonly cache = new Map<string, Database.Statement<Param[], Candidate>>()
  constructor(private readonly db: Database.Database) {}

  private prepared(sql: string): Database.Statement<Param[], Candidate> {
    let stmt = this.cache.get(sql)
    if (stmt) this.cache.delete(sql)
    else {
      stmt = this.db.prepare<Param[], Candidate>(sql)
      if (this.cache.size >= 256) this.cache.delete(this.cache.keys().next().value as string)
    }
    this.cache.set(sql, stmt)
    return stmt
  }

  /** Events matching one NIP-01 filter in answer order; at most `limit` after skipping `offset`. */
  query(f: Filter, limit: number, offset = 0): StoredRow[] {
    const terms = f.search === undefined ? undefined : searchTerms(f.search)
    if (empty(f, terms)) return []
    let d = drive(f, terms, undefined, undefined, limit + offset)
    let x = checks(f, terms, d, undefined)
    // Each value's walk is cut at the limit before the rest of the filter applies: with more
    // conditions, the cut rows may all fail them, and one statement has no next step to look further.
    if (x.where.length > 0 && listLength(f) > 1) {
      d = drive(f, terms, undefined, undefined, undefined)
      x = checks(f, terms, d, undefined)
    }
    const join = d.events ? '' : ` JOIN events e ON e.rowid = ${d.r}`
    const where = [...d.where, ...x.where]
    const sql = `SELECT ${d.distinct ? 'DISTINCT ' : ''}e.json, ${COLS}, ${d.c} AS created_at, ${d.r} AS seq
      FROM ${d.from}${join} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${d.order} LIMIT ? OFFSET ?`
    return this.prepared(sql).all(...d.params, ...x.params, limit, offset) as StoredRow[]
  }

  /** One bounded step of a REQ: see `EventStore.page`. */
  page(f: Filter, limit: number, opts: PageOptions): Page {
    const q = this.pageSql(f, limit, opts)
    return q ? pageOf(this.prepared(q.sql).all(...q.params), limit, q.window) : NOTHING
  }

  /** COUNT: see `EventStore.countable`. */
  countable(f: Filter, view: ReadView | undefined, maxScan: number): number[] | undefined {
    const terms = f.search === undefined ? undefined : searchTerms(f.search)
    if (empty(f, terms)) return []
    const d = drive(f, terms, view, undefined, undefined)
    const x = checks(f, terms, d, view)
    const join = d.events ? '' : ` JOIN events e ON e.rowid = ${d.r}`
    const ok = x.where.length ? `CASE WHEN ${x.where.join(' AND ')} THEN 1 ELSE 0 END` : '1'
    const sql = `SELECT ${d.distinct ? 'DISTINCT ' : ''}${d.r} AS seq, ${ok} AS ok
      FROM ${d.from}${join} ${d.where.length ? `WHERE ${d.where.join(' AND ')}` : ''} LIMIT ?`
    const stmt = this.prepared(sql) as unknown as Database.Statement<Param[], { seq: number; ok: number }>
    const rows = stmt.all(...x.params, ...d.params, maxScan + 1)
    if (rows.length > maxScan) return undefined
    const out: number[] = []
    for (const r of rows) if (r.ok) out.push(r.seq)
    return out
  }

  /** The statement of one step (run here by {@link page}, or on another connection); undefined when nothing can match. */
  pageSql(
    f: Filter,
    limit: number,
    opts: PageOptions,
  ): { sql: string; params: Param[]; window: number } | undefined {
    const terms = f.search === undefined ? undefined : searchTerms(f.search)
    if (empty(f, terms) || limit <= 0) return undefined
    const values = listLength(f)
    const window = Math.max(1, Math.min(Math.floor(opts.window), Math.floor(ARM_ROWS / values)))
    const d = drive(f, terms, opts.view, opts.after, window)
    const x = checks(f, terms, d, opts.view)
    const join = d.events ? '' : ` JOIN events e ON e.rowid = ${d.r}`
    const ok = x.where.length ? `CASE WHEN ${x.where.join(' AND ')} THEN e.json END` : 'e.json'
    const sql = `SELECT ${d.distinct ? 'DISTINCT ' : ''}${ok} AS json, ${COLS}, ${d.c} AS created_at, ${d.r} AS seq
      FROM ${d.from}${join} ${d.where.length ? `WHERE ${d.where.join(' AND ')}` : ''}
      ORDER BY ${d.order} LIMIT ?`
    return { sql, params: [...x.params, ...d.params, window], window }
  }
}

/** What one step may take: the reader's view, the cursor, and how many candidates to examine. */
export interface PageOptions {
  view?: ReadView
  after?: Cursor
  window: number
}

const NOTHING: Page = { rows: [], next: undefined, scanned: 0 }

/** The step's answer from its candidates: the matching ones up to `limit`, and where to continue. */
export function pageOf(found: readonly Candidate[], limit: number, window: number): Page {
  const rows: StoredRow[] = []
  for (const c of found) {
    if (c.json === null) continue
    rows.push(c as StoredRow)
    if (rows.length === limit)
      return { rows, next: { created_at: c.created_at, seq: c.seq }, scanned: found.length }
  }
  const last = found.length === window ? found[found.length - 1] : undefined
  return { rows, next: last && { created_at: last.created_at, seq: last.seq }, scanned: found.length }
}
