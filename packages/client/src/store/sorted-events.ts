import type { NostrEvent } from 'nostr-tools/core'

/** Ascending by created_at, then descending by id: read backwards, it is NIP-01 query order. */
function ascending(a: NostrEvent, b: NostrEvent): number {
  if (a.created_at !== b.created_at) return a.created_at - b.created_at
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

/**
 * Events kept in query order, so "newest N" walks from the end and stops (MemoryEventStore's
 * per-fork timelines). Appending the newest event, the common case, is O(1); anything else is
 * a binary search and a splice.
 */
export class SortedEvents {
  private readonly items: NostrEvent[] = []
  private readonly ascending: (a: NostrEvent, b: NostrEvent) => number

  /**
   * `rank`: a fork's arrival sequence (decision 12), ordering ties within one `created_at` before
   * the id: read backwards, newest first and the latest arrival first.
   */
  constructor(rank?: (e: NostrEvent) => number) {
    this.ascending = rank
      ? (a, b) => a.created_at - b.created_at || rank(a) - rank(b) || ascending(a, b)
      : ascending
  }

  get size(): number {
    return this.items.length
  }

  /** Index of the first item ordered after `e`. */
  private upper(e: NostrEvent): number {
    let lo = 0
    let hi = this.items.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.ascending(this.items[mid] as NostrEvent, e) <= 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  insert(e: NostrEvent): void {
    const last = this.items[this.items.length - 1]
    if (!last || this.ascending(last, e) < 0) this.items.push(e)
    else this.items.splice(this.upper(e), 0, e)
  }

  remove(e: NostrEvent): void {
    const i = this.upper(e) - 1
    if (i >= 0 && this.items[i]?.id === e.id) this.items.splice(i, 1)
  }

  /** Drops every event for which `drop` is true, in one pass. */
  removeWhere(drop: (e: NostrEvent) => boolean): void {
    let w = 0
    for (const e of this.items) if (!drop(e)) this.items[w++] = e
    this.items.length = w
  }

  /** Newest first (created_at desc, then the latest arrival or the lowest id). */
  *newestFirst(): Iterable<NostrEvent> {
    for (let i = this.items.length - 1; i >= 0; i--) yield this.items[i] as NostrEvent
  }
}
