/**
 * The rules every store shares (one definition, so Memory, SQLite and IndexedDB cannot drift):
 * query validation and matching (nostr-tools `matchFilter` semantics plus `fork`), NIP-01 order,
 * replaceable/addressable keys and the NIP-01 "newest wins, lowest id on a tie" rule.
 */
import { type NostrEvent, validateEvent } from 'nostr-tools/core'
import { brandVerified } from '../verify'
import { InvalidQueryError, InvalidStoreEventError, InvalidValueError } from './errors'
import type { StoreQuery } from './event-store'

/** The fork name used for events added without a fork. A `GroupKey` string is never empty. */
export const NO_FORK = ''

export function isReplaceable(kind: number): boolean {
  return kind === 0 || kind === 3 || (kind >= 10000 && kind < 20000)
}

export function isAddressable(kind: number): boolean {
  return kind >= 30000 && kind < 40000
}

/** The first `d` tag's value, '' when there is none. */
export function dTag(event: NostrEvent): string {
  for (const tag of event.tags) if (tag[0] === 'd') return tag[1] ?? ''
  return ''
}

/** The `d` value that, with kind and pubkey, addresses the event; undefined for regular kinds. */
export function replaceD(event: NostrEvent): string | undefined {
  if (isReplaceable(event.kind)) return ''
  if (isAddressable(event.kind)) return dTag(event)
  return undefined
}

/** True when `a` supersedes `b` (NIP-01: later created_at; on a tie, the lowest id). */
export function supersedes(
  a: { created_at: number; id: string },
  b: { created_at: number; id: string },
): boolean {
  return a.created_at > b.created_at || (a.created_at === b.created_at && a.id < b.id)
}

/** Newest first, then id ascending (nostr-tools `compareEvents`, without locale rules). */
export function newestFirst(a: NostrEvent, b: NostrEvent): number {
  if (a.created_at !== b.created_at) return b.created_at - a.created_at
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

const HEX64 = /^[0-9a-f]{64}$/
const HEX128 = /^[0-9a-f]{128}$/
const TAG_NAME = /^[a-zA-Z]$/

export function checkEvent(event: NostrEvent): void {
  if (
    !validateEvent(event) ||
    typeof event.id !== 'string' ||
    !HEX64.test(event.id) ||
    typeof event.sig !== 'string' ||
    !HEX128.test(event.sig) ||
    !Number.isSafeInteger(event.kind) ||
    !Number.isSafeInteger(event.created_at)
  ) {
    throw new InvalidStoreEventError('not a NIP-01 event (id, pubkey, sig, kind, created_at, tags, content)')
  }
}

export function checkFork(fork: string | undefined): void {
  if (fork !== undefined && typeof fork !== 'string')
    throw new InvalidQueryError('a fork is a GroupKey string')
}

/** `removeFromFork`'s arguments: a GroupKey string and a list of ids. */
export function checkRemoval(fork: string, ids: readonly string[]): void {
  if (typeof fork !== 'string' || fork === NO_FORK)
    throw new InvalidQueryError('removeFromFork needs a GroupKey string')
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
    throw new InvalidQueryError('ids must be an array of strings')
}

function checkList(name: string, list: unknown, item: 'string' | 'number'): void {
  if (list === undefined) return
  if (!Array.isArray(list) || list.some((v) => typeof v !== item)) {
    throw new InvalidQueryError(`${name} must be an array of ${item}s`)
  }
}

/** Throws {@link InvalidQueryError} for a query the stores would not answer alike. */
export function checkQuery(q: StoreQuery): void {
  if (q === null || typeof q !== 'object') throw new InvalidQueryError('a query is an object')
  checkFork(q.fork)
  checkList('ids', q.ids, 'string')
  checkList('kinds', q.kinds, 'number')
  checkList('authors', q.authors, 'string')
  if (q.tags !== undefined) {
    if (q.tags === null || typeof q.tags !== 'object')
      throw new InvalidQueryError('tags maps a letter to values')
    for (const [name, values] of Object.entries(q.tags)) {
      if (!TAG_NAME.test(name)) {
        throw new InvalidQueryError(`only single-letter tags are indexed (got ${JSON.stringify(name)})`)
      }
      checkList(`tags.${name}`, values, 'string')
    }
  }
  for (const bound of ['since', 'until'] as const) {
    const v = q[bound]
    if (v !== undefined && !Number.isSafeInteger(v))
      throw new InvalidQueryError(`${bound} must be an integer`)
  }
  if (q.limit !== undefined && (!Number.isSafeInteger(q.limit) || q.limit < 0)) {
    throw new InvalidQueryError('limit must be a non-negative integer')
  }
}

/** Throws {@link InvalidQueryError} unless `forks` is an array of GroupKey strings and `limit` a count. */
export function checkForks(forks: readonly string[], limit: number): void {
  if (!Array.isArray(forks) || forks.some((f) => typeof f !== 'string' || f === NO_FORK)) {
    throw new InvalidQueryError('forks must be an array of GroupKey strings')
  }
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new InvalidQueryError('limit must be a non-negative integer')
}

/** Whether `event` passes every condition of `q` except `fork` and `limit`. */
export function matches(event: NostrEvent, q: StoreQuery): boolean {
  if (q.ids && !q.ids.includes(event.id)) return false
  if (q.kinds && !q.kinds.includes(event.kind)) return false
  if (q.authors && !q.authors.includes(event.pubkey)) return false
  if (q.since !== undefined && event.created_at < q.since) return false
  if (q.until !== undefined && event.created_at > q.until) return false
  if (q.tags) {
    for (const name in q.tags) {
      const values = q.tags[name] as string[]
      if (!event.tags.some((t) => t[0] === name && t[1] !== undefined && values.includes(t[1]))) return false
    }
  }
  return true
}

/** Distinct (name, value) pairs of an event's single-letter tags: what the stores index. */
export function indexedTags(event: NostrEvent): Array<[string, string]> {
  const seen = new Set<string>()
  const out: Array<[string, string]> = []
  for (const tag of event.tags) {
    const [name, value] = tag
    if (name === undefined || value === undefined || !TAG_NAME.test(name)) continue
    const key = `${name}\u0000${value}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push([name, value])
  }
  return out
}

/** A plain copy carrying only the NIP-01 fields, branded verified. */
export function cleanCopy(event: NostrEvent): NostrEvent {
  const copy: NostrEvent = {
    id: event.id,
    pubkey: event.pubkey,
    created_at: event.created_at,
    kind: event.kind,
    tags: event.tags.map((t) => t.slice()),
    content: event.content,
    sig: event.sig,
  }
  return brandVerified(copy)
}

/** Marks an event read back from storage as verified (it was verified before it was stored). */
export function branded(event: NostrEvent): NostrEvent {
  return brandVerified(event)
}

/** The GroupKey string a state event belongs to: `<relay>'<d>`. */
export function stateFork(relay: string, event: NostrEvent): string {
  return `${relay}'${dTag(event)}`
}

export function limitOf(q: StoreQuery): number {
  return q.limit ?? Number.POSITIVE_INFINITY
}

/** JSON text of a setting; refuses what JSON cannot carry (functions, cycles, bigint). */
export function serializeValue(key: string, value: unknown): string {
  if (typeof key !== 'string') throw new InvalidValueError('a setting key is a string')
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (e) {
    throw new InvalidValueError(`a setting must be JSON-serializable: ${(e as Error).message}`)
  }
  if (text === undefined) throw new InvalidValueError('a setting must be JSON-serializable')
  return text
}
