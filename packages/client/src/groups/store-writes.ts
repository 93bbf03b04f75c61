import type { NostrEvent } from 'nostr-tools/core'
import type { EventStore } from '../store'

/**
 * The events a group received, written to the store in batches: one write per 16 ms or per 500
 * events. Live events in the order they arrived, numbered after every arrival held; events of
 * newest-first pages of history in page order, numbered below every arrival held (`addMany`'s
 * `older`): the store's order is the order the timeline shows (decision 21), across restarts.
 */
export class StoreWrites {
  private pending: NostrEvent[] = []
  /** Events of newest-first pages of history, as they came (each page older than the last). */
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

  /** Writes pending events to the store (a transaction for pages of history, one for the rest); resolves when done. */
  flush(): Promise<unknown> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    const { pending, older, fork, store } = this
    if (pending.length + older.length > 0) {
      this.pending = []
      this.older = []
      const write = (events: NostrEvent[], opts = {}) =>
        events.length > 0 ? store.addMany(events, fork, opts).catch(() => {}) : undefined
      this.writing = this.writing.then(async () => {
        await write(older, { older: true })
        await write(pending)
      })
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
