/**
 * A counting semaphore for one-shot queries on one connection: at most `limit` at once, the rest
 * wait their turn in order.
 *
 * @example
 * const release = await slots.take(8)
 * try { await query() } finally { release() }
 */
export class Slots {
  private taken = 0
  private readonly queue: (() => void)[] = []

  /** Resolves with the release function once a slot is free. */
  async take(limit: number): Promise<() => void> {
    if (this.taken >= limit) await new Promise<void>((resolve) => this.queue.push(resolve))
    this.taken++
    let released = false
    return () => {
      if (released) return
      released = true
      this.taken--
      this.queue.shift()?.()
    }
  }

  /** Lets every waiter through (the connection is closing). */
  openAll(): void {
    for (const w of this.queue.splice(0)) w()
  }
}
