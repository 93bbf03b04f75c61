const MAX_RETRY_MS = 5 * 60_000

/**
 * When the next publish is due (decision g): a trailing debounce after the last change, at most
 * `maxWaitMs` after the first pending one, and after a failure a growing retry delay (never a
 * tight loop). Times are the injected clock's milliseconds.
 */
export class PublishSchedule {
  pending: boolean
  /** Bumped on every change: a publish cycle that started before a change leaves it pending. */
  changeSeq = 0
  private firstPendingAt: number | undefined
  private lastChangeAt: number | undefined
  private retryAt: number | undefined
  private failures = 0
  /** `pending` changed (it is persisted). */
  dirty = false

  constructor(
    private readonly clock: () => number,
    private readonly debounceMs: number,
    private readonly maxWaitMs: number,
    pending: boolean,
  ) {
    this.pending = pending
    if (pending) {
      const now = clock()
      this.firstPendingAt = now
      this.lastChangeAt = now
    }
  }

  /** A change to publish. */
  markPending(): void {
    const now = this.clock()
    this.changeSeq++
    if (!this.pending) {
      this.pending = true
      this.firstPendingAt = now
      this.dirty = true
    }
    this.firstPendingAt ??= now
    this.lastChangeAt = now
  }

  /** Nothing left to publish. */
  clearPending(): void {
    this.pending = false
    this.firstPendingAt = undefined
    this.lastChangeAt = undefined
    this.dirty = true
  }

  /** A publish reached a relay: the max wait restarts for what changed meanwhile. */
  succeeded(stillPending: boolean): void {
    this.failures = 0
    this.retryAt = undefined
    if (stillPending) this.firstPendingAt = this.clock()
    else this.clearPending()
  }

  /** A publish reached no relay: retry after a growing delay. */
  failed(): void {
    this.failures++
    this.retryAt = this.clock() + Math.min(MAX_RETRY_MS, Math.max(this.debounceMs, 1000) * 2 ** this.failures)
  }

  /** When the next cycle is due, `null` when nothing is pending. */
  dueAt(): number | null {
    if (!this.pending) return null
    const last = this.lastChangeAt ?? this.clock()
    const first = this.firstPendingAt ?? last
    let due = Math.min(last + this.debounceMs, first + this.maxWaitMs)
    if (this.retryAt !== undefined) due = Math.max(due, this.retryAt)
    return due
  }
}
