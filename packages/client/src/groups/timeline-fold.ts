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

  /** The timeline, the `previous` window and the membership evidence take one new event. */
  add(event: NostrEvent, older: boolean): boolean {
    if (this.timeline.add(event, { older }) === 'duplicate') return false
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
      if (!this.timeline.has(event.id)) this.add(event, true)
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
