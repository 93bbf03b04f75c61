import { KINDS, TimelineWindow } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { isVerified } from '../verify'
import { STATE_KINDS } from './group-state'
import { JOIN_REQUEST_KINDS } from './join-requests'
import type { MembershipFold } from './membership'
import { Timeline } from './timeline'

/**
 * Kinds whose presence in a stored page makes it fold at once: state (never in a timeline page,
 * but taken as `ingest` would), the membership and join request kinds the first snapshot shows,
 * and moderators' deletions, judged against the admins and relay key held now.
 */
const FOLD_AT_ONCE: ReadonlySet<number> = new Set([
  ...STATE_KINDS,
  ...JOIN_REQUEST_KINDS,
  KINDS.putUser,
  KINDS.removeUser,
  KINDS.deleteEvent,
])

/**
 * How far back a group's history is held: the oldest second reached by pages from its relay (the
 * standing subscription's stored backlog, `loadOlder`), which are whole down to there, and by pages
 * of the local store (the stored first page, `loadOlder`), which hold what this device kept, live
 * events and events fetched aside among them, so some of what lies between may be missing. Live
 * events and events fetched aside (membership, join requests) move neither: their `created_at`
 * says nothing of what lies between.
 */
export interface HistoryEdges {
  readonly relay?: number | undefined
  readonly store?: number | undefined
}

/** What {@link TimelineFold} needs from its group. */
export interface TimelineFoldContext {
  readonly me: string
  /** The group's id (`h`) and its fork key (`relay'id`). */
  readonly id: string
  readonly channel: string
  readonly membership: MembershipFold
  isModerator(pubkey: string): boolean
  /** A folded event of the stored page (join requests are counted from it). */
  folded(event: NostrEvent): void
}

/**
 * A group's timeline side, fed together: the render fold (`timeline.ts`), the `previous` window
 * and the membership evidence. The newest-first page the store hands over at start is kept as it
 * is and folded when something first reads what it feeds, or when another event arrives: a cold
 * start opens every group but shows one.
 */
export class TimelineFold {
  /** The `previous` window (decisions 4 and 21), `@roost/nip29`'s. */
  readonly window = new TimelineWindow()
  /** The render fold, made when the first event goes in (a group kept unfolded needs none). */
  private value: Timeline | undefined
  private unfolded: readonly NostrEvent[] | undefined
  /** How far back the group's history is held, by where it came from (see {@link HistoryEdges}). */
  private readonly edges: { relay: number | undefined; store: number | undefined } = {
    relay: undefined,
    store: undefined,
  }
  /** How many events are held of each second (any kind, however they came). */
  private readonly perSecond = new Map<number, number>()

  constructor(private readonly ctx: TimelineFoldContext) {}

  /** The timeline as it is, the stored page not folded in (for what comes in: `has`, `add`). */
  get timeline(): Timeline {
    this.value ??= new Timeline(this.ctx.me, (pk) => this.ctx.isModerator(pk), this.ctx.channel)
    return this.value
  }

  /** The timeline with the stored page folded in: what every read goes through. */
  folded(): Timeline {
    this.fold()
    return this.timeline
  }

  /** An `h`-tagged event of this group (not state): what the timeline takes. */
  owns(event: NostrEvent): boolean {
    return event.tags.find((t) => t[0] === 'h')?.[1] === this.ctx.id
  }

  /** Whether the group holds this event (any kind), the stored page folded in. */
  has(id: string): boolean {
    return this.folded().has(id)
  }

  /** How far back the group's history is held, the stored page folded in (`history.ts` pages back from it). */
  reach(): HistoryEdges {
    this.fold()
    return { ...this.edges }
  }

  /** A page of history from the relay or the store reached back to `second` (all it held is held now). */
  reached(source: keyof HistoryEdges, second: number): void {
    const edge = this.edges[source]
    if (edge === undefined || second < edge) this.edges[source] = second
  }

  /** How many events of this second are held, of any kind. */
  heldAt(second: number): number {
    this.fold()
    return this.perSecond.get(second) ?? 0
  }

  /**
   * The timeline, the `previous` window and the membership evidence take one new event; `older`
   * for one of a newest-first page of history (from the store when `fromStore`), `aside` for one
   * fetched apart from the timeline's pages (membership, join requests).
   */
  add(event: NostrEvent, older: boolean, from: { fromStore?: boolean; aside?: boolean } = {}): boolean {
    if (this.timeline.add(event, { older }) === 'duplicate') return false
    const at = event.created_at
    this.perSecond.set(at, (this.perSecond.get(at) ?? 0) + 1)
    if (older && from.aside !== true) this.reached(from.fromStore === true ? 'store' : 'relay', at)
    this.window.push(event, { older })
    this.ctx.membership.consider(event)
    return true
  }

  /**
   * Keeps a first page unfolded; false when it must be taken at once instead (something is folded
   * already, or it holds a kind the first snapshot depends on).
   */
  keep(newestFirst: readonly NostrEvent[]): boolean {
    if (this.unfolded !== undefined || this.value?.size || newestFirst.some((e) => FOLD_AT_ONCE.has(e.kind)))
      return false
    this.unfolded = newestFirst
    return true
  }

  /**
   * Folds the stored page held since start, as `ingest(e, { fromStore: true, older: true })` would
   * have when it came: the snapshots taken since already stand for it, so nothing is pinned or
   * notified. Called before anything reads or changes what the page feeds.
   */
  fold(): void {
    const page = this.unfolded
    if (page === undefined) return
    this.unfolded = undefined
    for (const event of page) {
      if (!isVerified(event) || !this.owns(event)) continue
      this.ctx.folded(event)
      if (!this.timeline.has(event.id)) this.add(event, true, { fromStore: true })
    }
  }

  /** Replaces the `previous` window with the relay's newest page, the stored page folded in first. */
  replace(newestFirst: readonly NostrEvent[]): void {
    this.fold()
    this.window.replace(newestFirst)
  }

  /** The `previous` tag of a message sent now. */
  previousTag(me: string): string[] | undefined {
    this.fold()
    return this.window.previousTag(me)
  }
}
