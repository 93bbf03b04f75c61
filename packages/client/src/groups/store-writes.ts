import type { NostrEvent } from 'nostr-tools/core'
import type { EventStore } from '../store'

/**
 * The events a group received, written to the store in batches: one transaction per 16 ms or
 * per 500 events, in the order they arrived (so the store's arrival sequence follows the relay's).
 */
export class StoreWrites {
  private pending: NostrEvent[] = []
  /** Events of a newest-first page, written oldest first so the store's arrival order matches. */
  private older: NostrEvent[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private writing: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly store: EventStore,
    private readonly fork: string,
  ) {}

  /** Queues one event for the next batch; `older` for one of a newest-first page of history. */
  queue(event: NostrEvent, older = false): void {
    if (older) this.older.push(event)
    else this.pending.push(event)
    if (this.pending.length + this.older.length >= 500) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), 16)
  }

  /** Writes pending events to the store (one transaction) and resolves when done. */
  flush(): Promise<unknown> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.older.length ? [...this.older.reverse(), ...this.pending] : this.pending
    if (batch.length > 0) {
      this.pending = []
      this.older = []
      this.writing = this.writing.then(() => this.store.addMany(batch, this.fork)).catch(() => {})
    }
    return this.writing
  }

  /** Drops what is pending (the group is being deleted). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.pending = []
    this.older = []
  }
}
