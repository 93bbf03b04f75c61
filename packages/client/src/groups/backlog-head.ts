import type { NostrEvent } from 'nostr-tools/core'

/**
 * The head of a stored answer to the group's standing REQ (the first REQ, one after a restart,
 * or its resume after a reconnect): what the relay sends, newest first, before the first event
 * the group already holds. Those are newer than everything held (sent while this device was away),
 * so they are held back and taken oldest first, as live arrivals, once the head ends (an event
 * already held comes, or EOSE). Within a crowded second they then follow what was held, in the
 * relay's order; taken as a page of history, they would go before it (decision 21). Past the head,
 * the answer is older history, taken as a page. A group holding nothing has no head: its whole
 * answer is a page of history.
 *
 * @example
 * head.start()
 * if (!head.hold(event, holdsRows)) take(event) // past the head, or nothing held
 * for (const e of head.end()) takeAsLive(e) // oldest first
 */
export class BacklogHead {
  private open = false
  private events: NostrEvent[] = []

  /** A stored answer begins. Whatever an earlier one held back must be taken first ({@link end}). */
  start(): void {
    this.open = true
  }

  /** Holds an event of the answer back when it is in the head; false when it is to be taken now. */
  hold(event: NostrEvent, holdsRows: boolean): boolean {
    if (!this.open) return false
    if (!holdsRows && this.events.length === 0) {
      this.open = false
      return false
    }
    this.events.push(event)
    return true
  }

  /** The head ended: the events held back, oldest first. */
  end(): NostrEvent[] {
    this.open = false
    const out = this.events.reverse()
    this.events = []
    return out
  }
}
