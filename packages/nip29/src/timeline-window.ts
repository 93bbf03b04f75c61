import type { NostrEvent } from 'nostr-tools'
import { isHex64 } from './hex'
import { KINDS } from './kinds'
import { timelineOrder } from './timeline-order'

/**
 * At most this many `previous` references go into one tag (the spec recommends at least 3).
 * @example window.previousTag(me)!.length <= 1 + MAX_PREVIOUS // true
 */
export const MAX_PREVIOUS = 3

/** How many deleted ids a window remembers, so a deleted event met later is not taken in. */
const DELETED_MEMORY = 1000

/**
 * The `previous` window of one group on one relay (DESIGN decisions 4 and 21): the newest
 * `capacity` events seen there (default 50, any kind, any author), newest first by
 * {@link timelineOrder}. Within one `created_at` second the latest arrival comes first, as the
 * relay's own ring of the events it accepted last: an event pushed live arrived after every event
 * held, one pushed with `{ older: true }` (a page of history, newest first: the local store, a
 * relay's stored backlog) arrived before them. Ordering ties by id instead would name events the
 * relay has already let go of. Deduplicates by id. A deletion it takes in (a moderator's kind
 * 9005, an author's NIP-09 kind 5) drops the events it names: the relay has let go of them too.
 *
 * @example
 * const window = new TimelineWindow()
 * for (const e of storedNewestFirst) window.push(e, { older: true })
 * window.push(live) // as each event arrives
 * id.message('hi', { previous: window.previousTag(me) })
 */
export class TimelineWindow {
  /** How many events the window holds at most. */
  readonly capacity: number
  /** Newest first. */
  #events: NostrEvent[] = []
  /** The arrival sequence of each held event (its key set is the window's ids). */
  #seq = new Map<string, number>()
  #newest = 0
  #oldest = 0
  /** Ids deleted (by the relay's word), to the author a NIP-09 deletion needs, or '' for any. */
  #deleted = new Map<string, string>()

  constructor(capacity = 50) {
    this.capacity = Number.isInteger(capacity) && capacity > 0 ? capacity : 50
  }

  /**
   * Adds an event seen on the group's relay; `older` when it comes from a newest-first page of
   * history, so within its second it arrived before the events held. Ignores duplicates, events
   * without a valid id or `created_at`, and events that would fall out of a full window at once.
   * @example window.push(event); window.push(fromStore, { older: true })
   */
  push(event: NostrEvent, opts: { older?: boolean } = {}): void {
    const e = event as Partial<NostrEvent> | null
    if (typeof e !== 'object' || e === null || !isHex64(e.id) || this.#seq.has(e.id)) return
    if (typeof e.created_at !== 'number' || !Number.isFinite(e.created_at)) return
    if (e.kind === KINDS.deleteEvent || e.kind === KINDS.deletion) this.#deletes(event)
    const by = this.#deleted.get(event.id)
    if (by !== undefined && (by === '' || by === event.pubkey)) return
    const list = this.#events
    const seq = opts.older === true ? this.#oldest - 1 : this.#newest + 1
    // From the oldest end: a page of history (the cold-start case) lands there, usually at once.
    let at = list.length
    while (at > 0) {
      const held = list[at - 1] as NostrEvent
      if (timelineOrder(event, seq, held, this.#seq.get(held.id) as number) < 0) break
      at--
    }
    if (at >= this.capacity) return
    if (opts.older === true) this.#oldest = seq
    else this.#newest = seq
    list.splice(at, 0, event)
    this.#seq.set(event.id, seq)
    while (list.length > this.capacity) this.#seq.delete((list.pop() as NostrEvent).id)
  }

  /**
   * Drops the events a deletion names (`e` tags): any for a kind 9005 (the relay took it, so its
   * author may delete), the deletion's author's own for a kind 5; and remembers them, so one met
   * later (a page of history reaches the target after its deletion) is not taken in.
   */
  #deletes(deletion: NostrEvent): void {
    const by = deletion.kind === KINDS.deleteEvent ? '' : deletion.pubkey
    if (!Array.isArray(deletion.tags)) return
    for (const t of deletion.tags) {
      if (!Array.isArray(t) || t[0] !== 'e' || !isHex64(t[1])) continue
      const id = t[1]
      this.#deleted.delete(id)
      this.#deleted.set(id, by)
      if (this.#deleted.size > DELETED_MEMORY)
        this.#deleted.delete(this.#deleted.keys().next().value as string)
      if (!this.#seq.has(id)) continue
      const at = this.#events.findIndex((held) => held.id === id)
      if (at < 0 || (by !== '' && this.#events[at]!.pubkey !== by)) continue
      this.#events.splice(at, 1)
      this.#seq.delete(id)
    }
  }

  /**
   * Replaces the window with the relay's newest page of the group (newest first), e.g. after a
   * `previous … wasn't found` rejection. When a full page comes back, the events of its oldest
   * second are left out: the relay checks against the events it accepted last, and a REQ orders
   * ties by id, so those may already be out of its ring.
   * @example window.replace(await pool.fetch([relay], [id.timelineFilter(window.capacity)]))
   */
  replace(newestFirst: readonly NostrEvent[]): void {
    this.clear()
    let boundary = Number.NEGATIVE_INFINITY
    if (newestFirst.length >= this.capacity) {
      boundary = Number.POSITIVE_INFINITY
      for (const e of newestFirst) if (e.created_at < boundary) boundary = e.created_at
    }
    for (const e of newestFirst) if (e.created_at > boundary) this.push(e, { older: true })
  }

  /**
   * Empties the window.
   * @example window.clear()
   */
  clear(): void {
    this.#events = []
    this.#seq.clear()
    this.#newest = 0
    this.#oldest = 0
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
