import type { Filter } from 'nostr-tools'
import type { StoredRow } from './store/store'

/**
 * For tests of clients (`RelayOptions.tieOrder: 'id'`): one filter's stored answer as a NIP-01
 * relay gives it, `created_at` descending then the lowest id first, the `limit` cut on that order.
 * `pages(f)` reads a filter's visible rows in the relay's own order (arrival within a second). When
 * the answer is full, its oldest second is read whole, so the cut takes that second's lowest ids,
 * as an id-ordered index would.
 *
 * @example
 * for await (const page of tiesById(f, limit, (g) => query.visiblePages(g, reader))) send(page)
 */
export async function* tiesById(
  f: Filter,
  limit: number,
  pages: (f: Filter) => AsyncIterable<StoredRow[]>,
): AsyncGenerator<StoredRow[]> {
  const rows: StoredRow[] = []
  for await (const page of pages(f)) rows.push(...page)
  if (rows.length >= limit && rows.length > 0) {
    const last = Math.min(...rows.map((r) => r.created_at))
    const whole: StoredRow[] = []
    for await (const page of pages({ ...f, since: last, until: last, limit: Number.MAX_SAFE_INTEGER }))
      whole.push(...page)
    const ids = new Set(whole.map((r) => r.id))
    rows.splice(0, rows.length, ...rows.filter((r) => r.created_at !== last && !ids.has(r.id)), ...whole)
  }
  rows.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  yield rows.slice(0, limit)
}
