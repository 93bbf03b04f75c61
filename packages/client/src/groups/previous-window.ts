import { TimelineWindow } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'

/**
 * The `previous` window of one group (decision 4), built on first use: a cold start loads
 * thousands of events that only a send will ever read references from. Until then its input
 * waits (bounded: it is folded in whenever it grows past a few windows' worth).
 */
export class PreviousWindow {
  private state: TimelineWindow | undefined
  private input: NostrEvent[] = []

  /** One more event of the group, from the relay, the store or our own send. */
  feed(event: NostrEvent): void {
    if (this.state) this.state.push(event)
    else if (this.input.push(event) > 200) this.current()
  }

  /** The window, folding in what arrived since it was last read. */
  current(): TimelineWindow {
    if (!this.state) {
      const w = new TimelineWindow(50)
      // Newest first (ties: lowest id), the window's own order: once it is full, the rest is older.
      this.input.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      for (const e of this.input) {
        if (w.size >= w.capacity) break
        w.push(e)
      }
      this.input = []
      this.state = w
    }
    return this.state
  }

  /**
   * Replaces the window with the relay's newest page of the group. When a full page comes back,
   * events of its oldest second are left out: relays check against the last 50 events in arrival
   * order, and a REQ orders ties by id, so those may already be out of the ring.
   */
  replace(page: readonly NostrEvent[]): void {
    let boundary = Number.NEGATIVE_INFINITY
    if (page.length >= 50) boundary = Math.min(...page.map((e) => e.created_at))
    const fresh = new TimelineWindow(50)
    for (const e of page) if (e.created_at > boundary) fresh.push(e)
    this.state = fresh
    this.input = []
  }
}
