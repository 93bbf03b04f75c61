/**
 * What the timeline order reads of an event (any `NostrEvent` has it).
 * @example const e: TimelineOrdered = { created_at: 1700000000, id: event.id }
 */
export interface TimelineOrdered {
  readonly created_at: number
  readonly id: string
}

/**
 * The order of one group's timeline (DESIGN decision 21), oldest first: `created_at`; then the
 * relay's order of the events, given as each event's arrival sequence `seq` (a live event counts up
 * from the newest held, a page of history, newest first, counts down from the oldest held, so its
 * ties land in reverse page order); then the id. Negative when `a` comes before `b`. The render
 * fold and the `previous` window ({@link TimelineWindow}) both order by this one rule.
 *
 * @example
 * const seq = new Map([[a.id, 1], [b.id, 2]]) // b arrived after a
 * timelineOrder(a, seq.get(a.id)!, b, seq.get(b.id)!) < 0 // true when both share a created_at
 */
export function timelineOrder(a: TimelineOrdered, aSeq: number, b: TimelineOrdered, bSeq: number): number {
  if (a.created_at !== b.created_at) return a.created_at - b.created_at
  if (aSeq !== bSeq) return aSeq - bSeq
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}
