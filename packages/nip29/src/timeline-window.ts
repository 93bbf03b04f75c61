import type { NostrEvent } from 'nostr-tools'
import { isHex64 } from './hex'

/**
 * At most this many `previous` references go into one tag (the spec recommends at least 3).
 * @example window.previousTag(me)!.length <= 1 + MAX_PREVIOUS // true
 */
export const MAX_PREVIOUS = 3

/**
 * The newest events seen for one group on one relay (any kind, any author), from which the
 * `previous` timeline references are drawn (NIP-29 timeline references). Deduplicates by id, keeps
 * the newest `capacity` (default 50), newest first (ties: lowest id first, as NIP-01 orders).
 *
 * @example
 * const window = new TimelineWindow()
 * for (const e of events) window.push(e)
 * id.message('hi', { previous: window.previousTag(me) })
 */
export class TimelineWindow {
  readonly capacity: number
  #events: NostrEvent[] = []
  #ids = new Set<string>()

  constructor(capacity = 50) {
    this.capacity = Number.isInteger(capacity) && capacity > 0 ? capacity : 50
  }

  /** Adds an event; ignores duplicates, events without a valid id, and events older than a full window. */
  push(event: NostrEvent): void {
    const e = event as Partial<NostrEvent> | null
    if (typeof e !== 'object' || e === null || !isHex64(e.id) || this.#ids.has(e.id)) return
    if (typeof e.created_at !== 'number' || !Number.isFinite(e.created_at)) return
    const list = this.#events
    let at = list.length
    while (at > 0 && before(event, list[at - 1] as NostrEvent)) at--
    if (at >= this.capacity) return
    list.splice(at, 0, event)
    this.#ids.add(event.id)
    while (list.length > this.capacity) this.#ids.delete((list.pop() as NostrEvent).id)
  }

  /**
   * Empties the window, e.g. before refilling it from the relay after a `previous … wasn't found`
   * rejection.
   * @example window.clear(); for (const e of await pool.fetch([relay], [id.timelineFilter(50)])) window.push(e)
   */
  clear(): void {
    this.#events = []
    this.#ids.clear()
  }

  /** The window's events, newest first. @example window.events()[0] */
  events(): NostrEvent[] {
    return this.#events.slice()
  }

  /** @example window.size */
  get size(): number {
    return this.#events.length
  }

  /**
   * `['previous', …]` with up to 3 distinct 8-hex prefixes of the newest events not by `me`, or
   * `undefined` when there are none (then the builders add no tag).
   * @example window.previousTag(me) // ['previous', 'a1b2c3d4', '00ff00ff', '12345678']
   */
  previousTag(me: string): string[] | undefined {
    const prefixes: string[] = []
    for (const e of this.#events) {
      if (e.pubkey === me) continue
      const prefix = e.id.slice(0, 8)
      if (!prefixes.includes(prefix)) prefixes.push(prefix)
      if (prefixes.length === MAX_PREVIOUS) break
    }
    return prefixes.length === 0 ? undefined : ['previous', ...prefixes]
  }
}

/** Whether `a` sorts before `b`: newer first, then lower id. */
function before(a: NostrEvent, b: NostrEvent): boolean {
  return a.created_at > b.created_at || (a.created_at === b.created_at && a.id < b.id)
}
