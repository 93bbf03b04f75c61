import type { NostrEvent } from 'nostr-tools/core'
import type { EventStore } from '../store'

/**
 * The events a group received, written to the store in batches: one transaction per 16 ms or
 * per 500 events, in the order they arrived (so the store's arrival sequence follows the relay's).
 */
export class StoreWrites {
  private pending: NostrEvent[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private writing: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly store: EventStore,
    private readonly fork: string,
  ) {}

  /** Queues one event for the next batch. */
  queue(event: NostrEvent): void {
    this.pending.push(event)
    if (this.pending.length >= 500) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), 16)
  }

  /** Writes pending events to the store (one transaction) and resolves when done. */
  flush(): Promise<unknown> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.pending
    if (batch.length > 0) {
      this.pending = []
      this.writing = this.writing.then(() => this.store.addMany(batch, this.fork)).catch(() => {})
    }
    return this.writing
  }

  /** Drops what is pending (the group is being deleted). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.pending = []
  }
}
