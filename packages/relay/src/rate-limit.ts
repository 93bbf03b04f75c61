/**
 * A token bucket: `capacity` events, refilled at `capacity / perSeconds` per second (capacity 0: no limit).
 * The time source is injectable (milliseconds) for tests.
 *
 * @example
 * const limit = new RateLimiter(10, 1)
 * limit.take() // true until ten events arrive within a second
 */
export class RateLimiter {
  private tokens: number
  private last: number
  constructor(
    private readonly capacity: number,
    private readonly perSeconds: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.tokens = capacity
    this.last = nowMs()
  }

  /** Spends one token; false when none is left. */
  take(): boolean {
    if (this.capacity <= 0) return true
    const now = this.nowMs()
    const rate = this.capacity / (this.perSeconds * 1000)
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * rate)
    this.last = now
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }
}
