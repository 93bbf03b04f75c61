import { searchTerms } from '@roost/nip29'
import type { Filter } from 'nostr-tools'
import type pg from 'pg'
import type { Cursor, Page, ReadView, StoredRow } from './store'

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
  if (view.hideAll.length === 0 && view.hide39000.length === 0) return undefined
  const k39 = view.hide39000.length > 0 ? `e.grp <> ALL(${p(view.hide39000.map(pgText))}::text[])` : 'true'
  let rest = view.hideAll.length > 0 ? `e.grp <> ALL(${p(view.hideAll.map(pgText))}::text[])` : 'true'
  if (view.naming.length > 0)
    rest = `(${rest} OR (e.kind IN (9000, 9001) AND e.grp = ANY(${p(view.naming.map(pgText))}::text[])
      AND EXISTS (SELECT 1 FROM tags v WHERE v.event = e.seq AND v.name = 'p' AND v.value = ANY(${p([...view.readers])}::text[]))))`
  return `(e.grp IS NULL OR CASE WHEN e.kind = 39000 THEN ${k39} ELSE ${rest} END)`
}

interface Options {
  view?: ReadView
  after?: Cursor
  offset?: number
}

/**
 * The SQL of one NIP-01 filter (the same plan as SQLite's: drive by `#h`, `#d` or the first tag),
 * in answer order: `created_at` descending, then arrival (`seq`) descending. With a view, rows the
 * reader may not see are left out by the query itself; with a cursor, it continues after it.
 */
export async function queryRows(q: Q, filter: Filter, limit: number, opts: Options = {}): Promise<StoredRow[]> {
  const where: string[] = []
  const params: Param[] = []
  const p = (v: Param) => {
    params.push(v)
    return `$${params.length}`
  }
  const tagFilters = Object.entries(filter)
    .filter((e): e is [string, string[]] => e[0].startsWith('#') && e[0].length === 2 && Array.isArray(e[1]))
    .map(([k, values]): [string, string[]] => [k, values.filter((v) => typeof v === 'string').map(pgText)])
  for (const [, values] of tagFilters) if (values.length === 0) return []
  const clean = (list: readonly string[] | undefined) => list?.filter((v) => !v.includes('\u0000'))
  const ids = clean(filter.ids)
  const authors = clean(filter.authors)
  if (ids?.length === 0 || authors?.length === 0 || filter.kinds?.length === 0) return []
  const terms = filter.search === undefined ? undefined : searchTerms(filter.search)
  if (terms?.length === 0 || limit <= 0) return []
  const drive = tagFilters.find(([k]) => k === '#h') ?? tagFilters.find(([k]) => k === '#d') ?? tagFilters[0]
  let from = 'events e'
  let ts = 'e.created_at'
  let seq = 'e.seq'
  if (drive && !ids) {
    from = 'tags t JOIN events e ON e.seq = t.event'
    ts = 't.created_at'
    seq = 't.event'
    where.push(`t.name = ${p(drive[0].slice(1))} AND t.value IN (${drive[1].map(p).join(',')})`)
  }
  const list = (col: string, values: readonly (string | number)[]) =>
    where.push(`${col} IN (${values.map(p).join(',')})`)
  if (ids) list('e.id', ids)
  if (authors) list('e.pubkey', authors)
  if (filter.kinds) list('e.kind', filter.kinds)
  if (filter.since !== undefined) where.push(`${ts} >= ${p(filter.since)}`)
  if (filter.until !== undefined) where.push(`${ts} <= ${p(filter.until)}`)
  if (opts.after) where.push(`(${ts}, ${seq}) < (${p(opts.after.created_at)}, ${p(opts.after.seq)})`)
  if (terms)
    where.push(
      `e.seq IN (SELECT event FROM event_text WHERE doc @@ to_tsquery('simple', ${p(tsQuery(terms))}))`,
    )
  for (const [key, values] of tagFilters) {
    if (drive && key === drive[0] && !ids) continue
    where.push(
      `EXISTS (SELECT 1 FROM tags x WHERE x.event = e.seq AND x.name = ${p(key.slice(1))} AND x.value IN (${values.map(p).join(',')}))`,
    )
  }
  const visible = opts.view && visibility(opts.view, p)
  if (visible) where.push(visible)
  const distinct = drive && !ids && drive[1].length > 1
  const cols = 'e.json, e.id, e.pubkey, e.kind, e.created_at, e.grp, e.seq'
  const order = `ORDER BY ${distinct ? 'e.created_at' : ts} DESC, ${distinct ? 'e.seq' : seq} DESC LIMIT ${p(limit)} OFFSET ${p(opts.offset ?? 0)}`
  const body = `FROM ${from} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`
  const text = distinct
    ? `SELECT ${cols} FROM (SELECT DISTINCT ${cols} ${body}) e ${order}`
    : `SELECT ${cols} ${body} ${order}`
  return ((await q.query(text, params)).rows as StoredRow[]).map(plain)
}

/**
 * One step of a REQ's read on PostgreSQL: the query runs on the database server (the relay's event
 * loop only waits), with the view and the cursor in its SQL, so one step returns up to `limit`
 * visible rows however many hidden ones lie between them.
 */
export async function pageRows(
  q: Q,
  filter: Filter,
  limit: number,
  opts: { view?: ReadView; after?: Cursor },
): Promise<Page> {
  const rows = await queryRows(q, filter, limit, opts)
  const last = rows.length === limit ? rows[rows.length - 1] : undefined
  return { rows, next: last && { created_at: last.created_at, seq: last.seq }, scanned: rows.length }
}
