import { timelineOrder } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'

/**
 * The order of one group's timeline (decision 21, `timelineOrder` of `@roost/nip29`): `created_at`,
 * then the order in which the relay delivered the events, then id. Live events count up from 0,
 * pages of older history (the store, `loadOlder`, a relay's stored backlog, all newest first) count
 * down from 0, so a tie within one second keeps the relay's order. Lists are kept oldest first.
 *
 * @example
 * const order = new ArrivalOrder()
 * order.arrived(event, false)
 * order.insert(rows, event)
 */
export class ArrivalOrder {
  private readonly seq = new Map<string, number>()
  private newest = 0
  private oldest = 0

  /** Numbers an event as it arrives; `older` for one of a newest-first page of history. */
  arrived(event: NostrEvent, older: boolean): void {
    this.seq.set(event.id, older ? --this.oldest : ++this.newest)
  }

  /** Whether `a` comes before `b`. */
  readonly before = (a: NostrEvent, b: NostrEvent): boolean =>
    timelineOrder(a, this.seq.get(a.id) ?? 0, b, this.seq.get(b.id) ?? 0) < 0

  /** Inserts into a list kept oldest first; appending (the common live case) is O(1). */
  insert(list: NostrEvent[], event: NostrEvent): void {
    let hi = list.length
    if (hi === 0 || this.before(list[hi - 1]!, event)) {
      list.push(event)
      return
    }
    let lo = 0
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.before(list[mid]!, event)) lo = mid + 1
      else hi = mid
    }
    list.splice(lo, 0, event)
  }
}
