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
