import { foldSearchText, searchTerms, searchWords } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { InvalidQueryError } from './errors'
import type { StoreSearch } from './event-store'
import { NO_FORK } from './rules'

/** The longest search text a store accepts (as the relay's NIP-50 cap). */
export const MAX_SEARCH_TEXT = 256
/** Results of one search when no limit is given, and at most. */
export const DEFAULT_SEARCH_LIMIT = 50
export const MAX_SEARCH_LIMIT = 500

/** A checked search: its terms, its limit, and the event conditions besides the text. */
export interface PlannedSearch {
  terms: string[]
  /** The terms as the words of a content are compared (`foldSearchText`). */
  folded: string[]
  limit: number
  forks?: Set<string>
  kinds?: Set<number>
  until?: number
}

/** Throws {@link InvalidQueryError} for a search the stores would not answer alike; returns its plan. */
export function planSearch(q: StoreSearch): PlannedSearch {
  if (q === null || typeof q !== 'object') throw new InvalidQueryError('a search is an object')
  if (typeof q.text !== 'string') throw new InvalidQueryError('search text must be a string')
  if (q.text.length > MAX_SEARCH_TEXT)
    throw new InvalidQueryError(`search text must be at most ${MAX_SEARCH_TEXT} characters`)
  if (
    q.forks !== undefined &&
    (!Array.isArray(q.forks) || q.forks.some((f) => typeof f !== 'string' || f === NO_FORK))
  )
    throw new InvalidQueryError('forks must be an array of GroupKey strings')
  if (q.kinds !== undefined && (!Array.isArray(q.kinds) || q.kinds.some((k) => !Number.isSafeInteger(k))))
    throw new InvalidQueryError('kinds must be an array of integers')
  if (q.until !== undefined && !Number.isSafeInteger(q.until))
    throw new InvalidQueryError('until must be an integer')
  if (q.limit !== undefined && (!Number.isSafeInteger(q.limit) || q.limit < 0))
    throw new InvalidQueryError('limit must be a non-negative integer')
  const terms = searchTerms(q.text)
  return {
    terms,
    folded: terms.map(foldSearchText),
    limit: Math.min(q.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT),
    ...(q.forks && { forks: new Set(q.forks) }),
    ...(q.kinds && { kinds: new Set(q.kinds) }),
    ...(q.until !== undefined && { until: q.until }),
  }
}

/**
 * Whether an event (seen in `forks`) is a result of the search: `contentMatches` of
 * `@roost/nip29`, the rule every store agrees with. `words`: the event's `searchWords`, when kept.
 */
export function searchAccepts(
  p: PlannedSearch,
  event: NostrEvent,
  forks: Iterable<string>,
  words?: readonly string[],
): boolean {
  if (p.kinds && !p.kinds.has(event.kind)) return false
  if (p.until !== undefined && event.created_at > p.until) return false
  if (p.forks) {
    let seen = false
    for (const f of forks) if (p.forks.has(f)) seen = true
    if (!seen) return false
  }
  if (p.folded.length === 0) return false
  const w = words ?? searchWords(event.content)
  return p.folded.every((t) => w.some((x) => x.startsWith(t)))
}
