import { searchTerms } from '@roost/nip29'
import type { Filter } from 'nostr-tools'
import type pg from 'pg'
import { STAFF_ONLY_KINDS } from '../groups/visibility'
import type { Cursor, Page, ReadView, StoredRow } from './store'

/** The staff-only kinds as an SQL list (numbers, inlined). */
const STAFF_KINDS = [...STAFF_ONLY_KINDS].join(', ')

/** What both the pool and one checked-out client offer: a parameterized query. */
type Q = Pick<pg.Pool, 'query'>
type Param = string | number | string[]

/**
 * Text PostgreSQL can hold: NUL is not allowed in `text`, so a value with NUL (or one starting with
 * the escape mark) is stored as the mark followed by its JSON, which keeps the mapping one-to-one.
 */
export function pgText(s: string): string {
  return s.includes('\u0000') || s.startsWith('\u0001') ? `\u0001${JSON.stringify(s)}` : s
}

/** How many distinct query texts get a named prepared statement; later texts are planned each time. */
const NAMED_MAX = 256
const names = new Map<string, string>()

/**
 * Runs a query as a named prepared statement, so each pooled connection parses and plans a query
 * shape once and then only binds: planning a read (a tag walk joined to its events) costs more
 * than running it. Filters differ mostly in their parameters, so the shapes are few; past
 * {@link NAMED_MAX} of them (per process, each prepared at most once per connection) queries go
 * unnamed, which keeps what the server holds per connection bounded. `reuse` false plans it for
 * its values every time: a search, whose best plan depends on how common its terms are.
 */
export function prepared(q: Q, text: string, values: unknown[], reuse = true): Promise<pg.QueryResult> {
  let name = reuse ? names.get(text) : undefined
  if (reuse && name === undefined && names.size < NAMED_MAX) {
    name = `roost_${names.size}`
    names.set(text, name)
  }
  return name === undefined ? q.query(text, values) : q.query({ name, text, values })
}

/** The columns of a {@link StoredRow}, in `SELECT` order. */
export const ROW_COLUMNS = 'json, id, pubkey, kind, created_at, grp, seq'

/** A row as the store's contract describes it (no driver-added properties). */
export function plain(r: StoredRow): StoredRow {
  return {
    json: r.json,
    id: r.id,
    pubkey: r.pubkey,
    kind: r.kind,
    created_at: r.created_at,
    grp: r.grp,
    seq: r.seq,
  }
}

/**
 * The tsquery of some search terms: every term, as a word prefix, as written or without its
 * diacritics (the index holds both forms; terms hold only letters, digits and marks).
 */
function tsQuery(terms: readonly string[]): string {
  const lexeme = (t: string) => `'${t.replaceAll("'", "''")}':*`
  return terms
    .map((t) => {
      const bare = t.normalize('NFKD').replace(/\p{M}/gu, '')
      return bare === t || bare === '' ? lexeme(t) : `(${lexeme(t)} | ${lexeme(bare)})`
    })
    .join(' & ')
}

/**
 * The rule-29 view as SQL on `e` (see `ReadView`): rows of hidden groups are left out, but for their
 * 9000/9001 naming the reader where the view keeps those, and 39000 follows its own list.
 */
function visibility(view: ReadView, p: (v: Param) => string): string | undefined {
  // Join requests, invite codes and reports: their group's staff and their author only.
  const staff = view.staffOf
    ? `(e.kind NOT IN (${STAFF_KINDS}) OR e.grp IS NULL OR e.grp = ANY(${p(view.staffOf.map(pgText))}::text[])
      OR e.pubkey = ANY(${p([...view.readers])}::text[]))`
    : undefined
  if (view.hideAll.length === 0 && view.hide39000.length === 0) return staff
  const k39 = view.hide39000.length > 0 ? `e.grp <> ALL(${p(view.hide39000.map(pgText))}::text[])` : 'true'
  let rest = view.hideAll.length > 0 ? `e.grp <> ALL(${p(view.hideAll.map(pgText))}::text[])` : 'true'
  if (view.naming.length > 0)
    rest = `(${rest} OR (e.kind IN (9000, 9001) AND e.grp = ANY(${p(view.naming.map(pgText))}::text[])
      AND EXISTS (SELECT 1 FROM tags v WHERE v.event = e.seq AND v.name = 'p' AND v.value = ANY(${p([...view.readers])}::text[]))))`
  const groups = `(e.grp IS NULL OR CASE WHEN e.kind = 39000 THEN ${k39} ELSE ${rest} END)`
  return staff ? `${groups} AND ${staff}` : groups
}

interface Options {
  view?: ReadView
  after?: Cursor
  offset?: number
}

/** A filter as SQL: the walk (`from`, `drive`) in answer order, and the conditions the walk leaves (`rest`). */
interface Plan {
  from: string
  ts: string
  seq: string
  drive: string[]
  rest: string[]
  params: Param[]
  distinct: boolean
}

/**
 * The SQL of one NIP-01 filter, in answer order: `created_at` descending, then arrival (`seq`)
 * descending. The walk is the first of ids, search, a tag (`#h`, `#d`, the first), authors, kinds;
 * with a view, rows the reader may not see are left out by the query itself; with a cursor, it
 * continues after it. Undefined when nothing can match.
 */
function plan(filter: Filter, opts: Options): Plan | undefined {
  const params: Param[] = []
  const p = (v: Param) => {
    params.push(v)
    return `$${params.length}`
  }
  const tagFilters = Object.entries(filter)
    .filter((e): e is [string, string[]] => e[0].startsWith('#') && e[0].length === 2 && Array.isArray(e[1]))
    .map(([k, values]): [string, string[]] => [k, values.filter((v) => typeof v === 'string').map(pgText)])
  if (tagFilters.some(([, values]) => values.length === 0)) return undefined
  const clean = (list: readonly string[] | undefined) => list?.filter((v) => !v.includes('\u0000'))
  const ids = clean(filter.ids)
  const authors = clean(filter.authors)
  if (ids?.length === 0 || authors?.length === 0 || filter.kinds?.length === 0) return undefined
  const terms = filter.search === undefined ? undefined : searchTerms(filter.search)
  if (terms?.length === 0) return undefined
  const tag = tagFilters.find(([k]) => k === '#h') ?? tagFilters.find(([k]) => k === '#d') ?? tagFilters[0]
  const out: Plan = {
    from: 'events e',
    ts: 'e.created_at',
    seq: 'e.seq',
    drive: [],
    rest: [],
    params,
    distinct: false,
  }
  const list = (col: string, values: readonly (string | number)[]) => `${col} IN (${values.map(p).join(',')})`
  const driver = ids
    ? 'ids'
    : terms
      ? 'search'
      : tag
        ? 'tag'
        : authors
          ? 'authors'
          : filter.kinds
            ? 'kinds'
            : 'time'
  const search = () =>
    `e.seq IN (SELECT event FROM event_text WHERE doc @@ to_tsquery('simple', ${p(tsQuery(terms ?? []))}))`
  if (driver === 'ids') out.drive.push(list('e.id', ids ?? []))
  else if (driver === 'search') out.drive.push(search())
  else if (driver === 'tag' && tag) {
    Object.assign(out, {
      from: 'tags t JOIN events e ON e.seq = t.event',
      ts: 't.created_at',
      seq: 't.event',
    })
    out.drive.push(`t.name = ${p(tag[0].slice(1))} AND ${list('t.value', tag[1])}`)
    out.distinct = tag[1].length > 1
  } else if (driver === 'authors') out.drive.push(list('e.pubkey', authors ?? []))
  else if (driver === 'kinds') out.drive.push(list('e.kind', filter.kinds ?? []))
  if (filter.since !== undefined) out.drive.push(`${out.ts} >= ${p(filter.since)}`)
  if (filter.until !== undefined) out.drive.push(`${out.ts} <= ${p(filter.until)}`)
  if (opts.after)
    out.drive.push(`(${out.ts}, ${out.seq}) < (${p(opts.after.created_at)}, ${p(opts.after.seq)})`)
  if (authors && driver !== 'authors') out.rest.push(list('e.pubkey', authors))
  if (filter.kinds && driver !== 'kinds') out.rest.push(list('e.kind', filter.kinds))
  if (terms && driver !== 'search') out.rest.push(search())
  for (const [key, values] of tagFilters) {
    if (driver === 'tag' && key === tag?.[0]) continue
    out.rest.push(
      `EXISTS (SELECT 1 FROM tags x WHERE x.event = e.seq AND x.name = ${p(key.slice(1))} AND ${list('x.value', values)})`,
    )
  }
  // A search leaves hidden rows out with its matches (as SQLite's index does): they are not candidates.
  const visible = opts.view && visibility(opts.view, p)
  if (visible) (driver === 'search' ? out.drive : out.rest).push(visible)
  return out
}

const COLS = 'e.id, e.pubkey, e.kind, e.created_at, e.grp, e.seq'

/** Events matching one NIP-01 filter, in answer order; at most `limit` after skipping `offset`. */
export async function queryRows(
  q: Q,
  filter: Filter,
  limit: number,
  opts: Options = {},
): Promise<StoredRow[]> {
  const x = limit > 0 ? plan(filter, opts) : undefined
  if (!x) return []
  const where = [...x.drive, ...x.rest]
  const body = `FROM ${x.from} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`
  const order = `ORDER BY ${x.distinct ? 'e.created_at' : x.ts} DESC, ${x.distinct ? 'e.seq' : x.seq} DESC`
  const page = `LIMIT ${Math.floor(limit)} OFFSET ${Math.max(0, Math.floor(opts.offset ?? 0))}`
  const text = x.distinct
    ? `SELECT e.json, ${COLS} FROM (SELECT DISTINCT e.json, ${COLS} ${body}) e ${order} ${page}`
    : `SELECT e.json, ${COLS} ${body} ${order} ${page}`
  return ((await prepared(q, text, x.params, filter.search === undefined)).rows as StoredRow[]).map(plain)
}

/**
 * One step of a REQ's read on PostgreSQL (see `EventStore.page`): at most `window` candidates of the
 * walk after the cursor, with the rest of the filter and the reader's view decided in the same query.
 */
export async function pageRows(
  q: Q,
  filter: Filter,
  limit: number,
  opts: { view?: ReadView; after?: Cursor; window: number },
): Promise<Page> {
  const x = limit > 0 ? plan(filter, opts) : undefined
  if (!x) return { rows: [], next: undefined, scanned: 0 }
  const ok = x.rest.length > 0 ? `CASE WHEN ${x.rest.join(' AND ')} THEN e.json END` : 'e.json'
  const body = `FROM ${x.from} ${x.drive.length ? `WHERE ${x.drive.join(' AND ')}` : ''}`
  const cols = `${ok} AS json, ${COLS}`
  const text = x.distinct
    ? `SELECT * FROM (SELECT DISTINCT ${cols} ${body}) e ORDER BY created_at DESC, seq DESC LIMIT ${Math.floor(opts.window)}`
    : `SELECT ${cols} ${body} ORDER BY ${x.ts} DESC, ${x.seq} DESC LIMIT ${Math.floor(opts.window)}`
  const found = (await prepared(q, text, x.params, filter.search === undefined)).rows as (Omit<
    StoredRow,
    'json'
  > & {
    json: string | null
  })[]
  const rows: StoredRow[] = []
  for (const c of found) {
    if (c.json === null) continue
    rows.push(plain(c as StoredRow))
    if (rows.length === limit)
      return { rows, next: { created_at: c.created_at, seq: c.seq }, scanned: found.length }
  }
  const last = found.length === opts.window ? found[found.length - 1] : undefined
  return { rows, next: last && { created_at: last.created_at, seq: last.seq }, scanned: found.length }
}

/** COUNT on PostgreSQL: see `EventStore.countable`. */
export async function countableRows(
  q: Q,
  filter: Filter,
  view: ReadView | undefined,
  maxScan: number,
): Promise<number[] | undefined> {
  const x = plan(filter, view ? { view } : {})
  if (!x) return []
  const ok = x.rest.length > 0 ? `CASE WHEN ${x.rest.join(' AND ')} THEN 1 ELSE 0 END` : '1'
  const body = `FROM ${x.from} ${x.drive.length ? `WHERE ${x.drive.join(' AND ')}` : ''}`
  const text = `SELECT ${x.distinct ? 'DISTINCT ' : ''}${x.seq} AS seq, ${ok} AS ok ${body} LIMIT ${Math.floor(maxScan) + 1}`
  const rows = (await prepared(q, text, x.params, filter.search === undefined)).rows as {
    seq: string | number
    ok: number
  }[]
  if (rows.length > maxScan) return undefined
  const out: number[] = []
  for (const r of rows) if (Number(r.ok) === 1) out.push(Number(r.seq))
  return out
}
