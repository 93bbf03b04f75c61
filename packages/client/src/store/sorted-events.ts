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

  get size(): number {
    return this.items.length
  }

  /** Index of the first item ordered after `e`. */
  private upper(e: NostrEvent): number {
    let lo = 0
    let hi = this.items.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (ascending(this.items[mid] as NostrEvent, e) <= 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  insert(e: NostrEvent): void {
    const last = this.items[this.items.length - 1]
    if (!last || ascending(last, e) < 0) this.items.push(e)
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

  /** Newest first (created_at desc, then id asc). */
  *newestFirst(): Iterable<NostrEvent> {
    for (let i = this.items.length - 1; i >= 0; i--) yield this.items[i] as NostrEvent
  }
}
