/**
 * Reconnect delays: exponential backoff with "equal jitter" (half fixed, half random), so a relay
 * that restarts is not hit by every client at the same instant, and a client never waits longer
 * than `maxMs`.
 *
 * @example
 * const delay = backoffDelay(attempt, { baseMs: 500, maxMs: 30_000 }, Math.random)
 */
export interface BackoffOptions {
  /** First delay before jitter (default 500 ms). */
  baseMs?: number
  /** Cap on any delay (default 30 s). */
  maxMs?: number
}

/** The delay before reconnect attempt `attempt` (0-based), using `random()` in [0, 1) for jitter. */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const base = opts.baseMs ?? 500
  const max = opts.maxMs ?? 30_000
  const ceiling = Math.min(max, base * 2 ** Math.min(attempt, 30))
  const half = ceiling / 2
  return Math.round(half + random() * half)
}

/**
 * The reconnect timer of one connection: one pending attempt at a time, each delay from
 * {@link backoffDelay}, back to the first delay once a socket opens.
 *
 * @example
 * const again = new Reconnector({ baseMs: 500 }, Math.random)
 * socket.onclose = () => again.schedule(() => connect())
 * socket.onopen = () => again.succeeded()
 */
export class Reconnector {
  private attempts = 0
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly opts: BackoffOptions,
    private readonly random: () => number,
  ) {}

  /** An attempt is waiting for its delay. */
  get pending(): boolean {
    return this.timer !== undefined
  }

  /** A socket opened: the next loss starts from the first delay again. */
  succeeded(): void {
    this.attempts = 0
  }

  /** Runs `attempt` after the next delay, unless one is already waiting. */
  schedule(attempt: () => void): void {
    if (this.timer) return
    const delay = backoffDelay(this.attempts++, this.opts, this.random)
    this.timer = setTimeout(() => {
      this.timer = undefined
      attempt()
    }, delay)
  }

  /** Forgets the waiting attempt (connecting now, or closing). */
  cancel(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}
