/**
 * A hand-moved millisecond clock and timer queue, for the parts of the client that take `now` and
 * `timers` (the pool's liveness watch). Time moves only in `advance`, and each timer runs with the
 * clock set to its own due time, timers set meanwhile included. Usable in Node and browser tests.
 */
export class FakeTimers {
  t = 0
  private seq = 0
  private tasks: { at: number; id: number; fn: () => void }[] = []

  readonly now = (): number => this.t

  readonly timers = {
    setTimeout: (fn: () => void, ms: number): unknown => {
      const id = ++this.seq
      this.tasks.push({ at: this.t + Math.max(0, ms), id, fn })
      return id
    },
    clearTimeout: (handle: unknown): void => {
      this.tasks = this.tasks.filter((task) => task.id !== handle)
    },
  }

  /** Moves the clock `ms` forward, running every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const end = this.t + ms
    for (;;) {
      let next: (typeof this.tasks)[number] | undefined
      for (const task of this.tasks) if (task.at <= end && (!next || task.at < next.at)) next = task
      if (!next) break
      this.tasks = this.tasks.filter((task) => task !== next)
      this.t = next.at
      next.fn()
    }
    this.t = end
  }

  /** Timers waiting to run. */
  pending(): number {
    return this.tasks.length
  }
}
