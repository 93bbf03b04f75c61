/**
 * What the timeline order reads of an event (any `NostrEvent` has it).
 * @example const e: TimelineOrdered = { created_at: 1700000000, id: event.id }
 */
export interface TimelineOrdered {
  /** Unix seconds. */
  readonly created_at: number
  /** The event id (64 hex); ties go to the lowest. */
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

/** What {@link orderTies} reads of an event: its order fields and its tags (`previous`). */
export interface TimelineTied extends TimelineOrdered {
  /** The event's tags (its `previous` tags order ties). */
  readonly tags: readonly (readonly string[])[]
}

const PREVIOUS_VALUE = /^[0-9a-f]{8,64}$/

/**
 * The references of an event's `previous` tags (decision 4): the values that can name an event,
 * 8 to 64 lowercase hex characters, each naming the events whose id starts with it.
 *
 * @example previousRefs({ tags: [['h', 'general'], ['previous', 'a1b2c3d4', 'ffff0000']] }) // ['a1b2c3d4', 'ffff0000']
 */
export function previousRefs(event: { readonly tags: readonly (readonly string[])[] }): string[] {
  const out: string[] = []
  for (const tag of event.tags) {
    if (tag[0] !== 'previous') continue
    for (let i = 1; i < tag.length; i++) {
      const v = tag[i]
      if (typeof v === 'string' && PREVIOUS_VALUE.test(v)) out.push(v)
    }
  }
  return out
}

/**
 * The events of one second (one `created_at`) in timeline order (decision 21), oldest first: by
 * `seq` (the relay's order, {@link timelineOrder}), then id, except that an event comes after every
 * event of the second its `previous` tag names. Where the relay's order already has each event after
 * the ones it names (ours always does: it takes a reference only to an event it holds), that order
 * is kept; where it does not (a relay answering ties by id), the events are placed so that it does,
 * each place taken by the first event in the relay's order whose references are all placed. A
 * circle of references, which only a forged id makes, is broken the same way. So devices that hold
 * the same events of a second agree on their order whenever references link them.
 *
 * @example
 * // b names a in `previous`, but a relay ordering ties by id gave b first
 * orderTies([b, a], (e) => seq.get(e.id)!) // [a, b]
 */
export function orderTies<T extends TimelineTied>(events: readonly T[], seqOf: (e: T) => number): T[] {
  const base = [...events].sort((a, b) => timelineOrder(a, seqOf(a), b, seqOf(b)))
  const n = base.length
  if (n < 2) return base
  // after[i]: the places of the events i must come after (the ones its references name)
  const byPrefix = new Map<string, number[]>()
  for (const [i, e] of base.entries()) {
    const p = e.id.slice(0, 8)
    const list = byPrefix.get(p)
    if (list) list.push(i)
    else byPrefix.set(p, [i])
  }
  const after: number[][] = base.map(() => [])
  let linked = false
  let kept = true
  for (const [i, e] of base.entries()) {
    for (const ref of previousRefs(e)) {
      for (const j of byPrefix.get(ref.slice(0, 8)) ?? []) {
        if (j === i || !(base[j] as T).id.startsWith(ref) || after[i]?.includes(j)) continue
        after[i]?.push(j)
        linked = true
        if (j > i) kept = false
      }
    }
  }
  if (!linked || kept) return base
  // Kahn's walk, always taking the first free event in the relay's order.
  const waiting = after.map((a) => a.length)
  const next: number[][] = base.map(() => [])
  for (const [i, list] of after.entries()) for (const j of list) next[j]?.push(i)
  const free = new MinHeap()
  for (let i = 0; i < n; i++) if (waiting[i] === 0) free.push(i)
  const placed = new Array<boolean>(n).fill(false)
  const out: T[] = []
  let cursor = 0 // the first place not yet taken: where a circle is broken
  while (out.length < n) {
    let i = free.pop()
    if (i === undefined) {
      while (placed[cursor]) cursor++
      i = cursor
    }
    if (placed[i]) continue
    placed[i] = true
    out.push(base[i] as T)
    for (const k of next[i] ?? []) {
      const w = (waiting[k] as number) - 1
      waiting[k] = w
      if (w === 0 && !placed[k]) free.push(k)
    }
  }
  return out
}

/** A binary min-heap of places. */
class MinHeap {
  private readonly items: number[] = []

  push(v: number): void {
    const a = this.items
    a.push(v)
    let i = a.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if ((a[parent] as number) <= v) break
      a[i] = a[parent] as number
      i = parent
    }
    a[i] = v
  }

  pop(): number | undefined {
    const a = this.items
    const top = a[0]
    const last = a.pop()
    if (a.length === 0 || last === undefined) return top
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= a.length) break
      const r = l + 1
      const c = r < a.length && (a[r] as number) < (a[l] as number) ? r : l
      if ((a[c] as number) >= last) break
      a[i] = a[c] as number
      i = c
    }
    a[i] = last
    return top
  }
}
