import type { NostrEvent } from 'nostr-tools/core'

const CAPACITY = 50
const MAX_PREVIOUS = 3

/**
 * The `previous` window of one group (decision 4): the newest 50 events of the group seen on its
 * relay, in the relay's order. Ties within one `created_at` second follow arrival (decision 12),
 * latest first, as the relay's own ring does: a window ordered by id there would name events the
 * relay has already let go of.
 */
export class PreviousWindow {
  /** Newest first; within a second, the latest arrival first. */
  private events: NostrEvent[] = []
  private readonly ids = new Set<string>()

  /**
   * One more event of the group. `older`: it comes from a newest-first page of history (the
   * store, a relay's backlog), so within its second it arrived before those held.
   */
  feed(event: NostrEvent, older = false): void {
    if (this.ids.has(event.id)) return
    const list = this.events
    const last = list[list.length - 1]
    if (list.length >= CAPACITY && last && event.created_at < last.created_at) return // the common cold-start case
    let at = 0
    while (
      at < list.length &&
      (list[at]!.created_at > event.created_at || (older && list[at]!.created_at === event.created_at))
    )
      at++
    if (at >= CAPACITY) return
    list.splice(at, 0, event)
    this.ids.add(event.id)
    while (list.length > CAPACITY) this.ids.delete(list.pop()!.id)
  }

  /** `['previous', …]` with up to 3 distinct 8-hex prefixes of the newest events not by `me`, or `undefined`. */
  previousTag(me: string): string[] | undefined {
    const prefixes: string[] = []
    for (const e of this.events) {
      if (e.pubkey === me) continue
      const prefix = e.id.slice(0, 8)
      if (!prefixes.includes(prefix)) prefixes.push(prefix)
      if (prefixes.length === MAX_PREVIOUS) break
    }
    return prefixes.length ? ['previous', ...prefixes] : undefined
  }

  /**
   * Replaces the window with the relay's newest page of the group (newest first). When a full page
   * comes back, events of its oldest second are left out: relays check against the last 50 events
   * in arrival order, and a REQ orders ties by id, so those may already be out of the ring.
   */
  replace(page: readonly NostrEvent[]): void {
    let boundary = Number.NEGATIVE_INFINITY
    if (page.length >= CAPACITY) boundary = Math.min(...page.map((e) => e.created_at))
    this.events = []
    this.ids.clear()
    for (const e of page) if (e.created_at > boundary) this.feed(e, true)
  }
}
