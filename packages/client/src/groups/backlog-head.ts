import type { NostrEvent } from 'nostr-tools/core'

/**
 * The head of a stored answer to the group's standing REQ (the first REQ, one after a restart,
 * or its resume after a reconnect): what the relay sent while this device was away. The answer
 * comes newest first, and within a second in the relay's order, the latest arrival first
 * (decision 21). So an event of a second comes after every event of that second the group holds
 * when it is listed before them, and before them when it is listed after one of them.
 *
 * The head is every event listed before an event held of its own second: held back, and taken
 * oldest first, as live arrivals, when the answer reaches an event the group holds (`met`) or
 * ends. Within a crowded second they then follow what was held, in the relay's order; taken as a
 * page of history, they would go before it. An event held of a newer second ends the head so far,
 * not the head of an older second: what a device holds may be newer than what another device,
 * its clock behind, wrote meanwhile into a second held in part. Events older than every row held,
 * and those listed after an event held or taken as a page in their second, are older history,
 * taken as a page. A group holding nothing has no head: its whole answer is a page of history.
 *
 * @example
 * head.start()
 * if (holds(event)) take(head.met(event.created_at)) // oldest first, as live arrivals
 * else if (!head.hold(event, oldestHeld)) takeAsPage(event)
 * take(head.end())
 */
export class BacklogHead {
  private open = false
  /**
   * The second of the last event the answer reached that is held or taken as a page: what follows
   * in it arrived earlier.
   */
  private passed: number | undefined
  private events: NostrEvent[] = []

  /** A stored answer begins. Whatever an earlier one held back must be taken first ({@link end}). */
  start(): void {
    this.open = true
    this.passed = undefined
  }

  /**
   * Holds an event of the answer the group does not hold back when it is in the head; false when
   * it is to be taken now, as a page. `oldestHeld` is the `created_at` of the oldest row held.
   */
  hold(event: NostrEvent, oldestHeld: number | undefined): boolean {
    if (!this.open) return false
    if (oldestHeld === undefined && this.events.length === 0) {
      this.open = false
      return false
    }
    if (event.created_at !== this.passed && (oldestHeld === undefined || event.created_at >= oldestHeld)) {
      this.events.push(event)
      return true
    }
    // Older history: what follows of its second arrived before it.
    this.passed = event.created_at
    return false
  }

  /**
   * The answer reached an event the group holds, of second `createdAt`: the head so far ended (its
   * events, oldest first); what follows of that second arrived before it.
   */
  met(createdAt: number): NostrEvent[] {
    if (!this.open) return []
    this.passed = createdAt
    return this.take()
  }

  /** The answer ended: the events held back, oldest first. */
  end(): NostrEvent[] {
    this.open = false
    return this.take()
  }

  private take(): NostrEvent[] {
    const out = this.events.reverse()
    this.events = []
    return out
  }
}
