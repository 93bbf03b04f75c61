import { orderTies, timelineOrder } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'

/**
 * The order of one group's timeline (decision 21): `created_at`, then the order in which the relay
 * delivered the events, then id (`timelineOrder` of `@roost/nip29`), and within one second an event
 * after the events its `previous` tag names (`orderTies`). Live events count up from 0, pages of
 * older history (the store, `loadOlder`, a relay's stored backlog, all newest first) count down
 * from 0, so a tie within one second keeps the relay's order. Lists are kept oldest first.
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

  private readonly seqOf = (e: NostrEvent): number => this.seq.get(e.id) ?? 0

  /** Whether `a` comes before `b` by `created_at`, arrival and id (`previous` aside). */
  readonly before = (a: NostrEvent, b: NostrEvent): boolean =>
    timelineOrder(a, this.seqOf(a), b, this.seqOf(b)) < 0

  /**
   * Inserts into a list kept oldest first; appending (the common live case) is O(1) but for the
   * events of its second, which are put in order again when they share it with others.
   */
  insert(list: NostrEvent[], event: NostrEvent): void {
    let at = list.length
    if (at === 0 || this.before(list[at - 1]!, event)) list.push(event)
    else {
      let lo = 0
      while (lo < at) {
        const mid = (lo + at) >>> 1
        if (this.before(list[mid]!, event)) lo = mid + 1
        else at = mid
      }
      list.splice(at, 0, event)
    }
    this.settle(list, at)
  }

  /** Puts the events of the second of `list[at]` in order, `previous` references included. */
  private settle(list: NostrEvent[], at: number): void {
    const second = list[at]!.created_at
    let from = at
    let to = at + 1
    while (from > 0 && list[from - 1]!.created_at === second) from--
    while (to < list.length && list[to]!.created_at === second) to++
    if (to - from < 2) return
    const ordered = orderTies(list.slice(from, to), this.seqOf)
    for (let i = 0; i < ordered.length; i++) list[from + i] = ordered[i]!
  }
}
