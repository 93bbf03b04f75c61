/**
 * How far our clock runs ahead of each relay's. Relays refuse events dated too far ahead of their
 * own clock (`blocked: event too much in the future`, 30 to 900 s), so a device whose clock runs
 * minutes ahead has every send refused unless it stamps `created_at` by the relay's clock.
 *
 * Each observation is a time the relay itself gave (the HTTP `Date` of its NIP-11 answer, the
 * `created_at` of an event it signed just now) against our clock at that moment. Both are at most
 * the relay's time when we read them, so the newest observation bounds the offset from below and
 * stamping with it never dates an event ahead of the relay. Only a clock running ahead by more
 * than 5 seconds (`AHEAD_TOLERANCE`) is corrected: a clock that is behind, or barely ahead, is
 * left as it is (a second's difference is the truncation of the relay's time, not a skew).
 *
 * @example
 * const clocks = new RelayClocks()
 * clocks.observe('wss://r.example', 1_700_000_000, 1_700_000_600) // we run 10 minutes ahead
 * clocks.offset('wss://r.example') // -600
 */
export class RelayClocks {
  private readonly offsets = new Map<string, number>()

  /** The relay said its time was `relayAt` when our clock said `localAt` (Unix seconds). */
  observe(relay: string, relayAt: number, localAt: number): void {
    if (!Number.isFinite(relayAt) || !Number.isFinite(localAt)) return
    this.offsets.set(relay, Math.round(relayAt - localAt))
  }

  /** Seconds to add to our clock for this relay: negative when ours runs ahead, else 0. */
  offset(relay: string): number {
    const offset = this.offsets.get(relay)
    return offset === undefined || offset >= -AHEAD_TOLERANCE ? 0 : offset
  }

  /** How many seconds our clock ran ahead of the relay's when last observed (0 if behind), if known. */
  ahead(relay: string): number | undefined {
    const offset = this.offsets.get(relay)
    return offset === undefined ? undefined : Math.max(0, -offset)
  }
}

/** Seconds of skew left uncorrected (every relay window is larger). */
export const AHEAD_TOLERANCE = 5

/** Unix seconds of an HTTP `Date` header, `undefined` when absent or unreadable. @example httpDate('Wed, 02 Dec 2026 23:45:46 GMT') */
export function httpDate(value: string | null | undefined): number | undefined {
  if (typeof value !== 'string') return undefined
  const ms = Date.parse(value)
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined
}
