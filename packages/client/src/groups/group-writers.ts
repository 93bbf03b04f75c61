import type { GroupKey } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { GroupAdmin } from './group-admin'
import type { GroupContext } from './group-context'
import type { GroupRequests } from './group-requests'
import type { GroupState } from './group-state'
import { GroupPublisher, type PublisherContext } from './publisher'
import type { Timeline } from './timeline'
import type { CanSend, GroupSnapshot } from './types'
import { GroupWrites } from './writes'

/** What a group's writers need from it. */
export interface WritersContext {
  readonly key: GroupKey
  readonly ctx: GroupContext
  readonly state: GroupState
  readonly requests: GroupRequests
  /** The `previous` window, its stored page folded in when read or replaced. */
  readonly window: PublisherContext['window']
  snapshot(): GroupSnapshot
  folded(): Timeline
  canSend(kind: number): CanSend
  /** Folds our own accepted event in. */
  ingestOwn(event: NostrEvent): void
  /** Folds in fetched events of the group. */
  ingestMany(events: readonly NostrEvent[]): void
  /** True once the group is closed. */
  readonly closed: boolean
}

/**
 * The writing side of one group: its publisher, the channel writes and the admin acts, each built
 * when first used (a cold start opens many groups and writes to none).
 */
export class GroupWriters {
  private publisherPart: GroupPublisher | undefined
  private writesPart: GroupWrites | undefined
  private adminPart: GroupAdmin | undefined

  constructor(private readonly group: WritersContext) {}

  /**
   * `created_at` of what we send: our own event sorts after everything we had seen when we sent it
   * (decision 21), so it is never below the newest row's, and it arrives after them. Our clock is
   * moved back onto the relay's when it runs ahead (the relay refuses events dated in its future).
   */
  private readonly clock = (): number =>
    Math.max(
      this.group.ctx.clock() + this.group.ctx.pool.clockOffset(this.group.key.relay),
      this.group.folded().newestRow()?.created_at ?? 0,
    )

  get publisher(): GroupPublisher {
    const { key, ctx } = this.group
    this.publisherPart ??= new GroupPublisher({
      key,
      pool: ctx.pool,
      signer: ctx.signer,
      me: ctx.me,
      publishTimeout: ctx.publishTimeout,
      window: this.group.window,
      ingest: (event) => this.group.ingestOwn(event),
      ingestMany: (events) => this.group.ingestMany(events),
      closed: () => this.group.closed,
    })
    return this.publisherPart
  }

  /** One of our own events came from the relay: a send that had no answer is sent. */
  seen(event: NostrEvent): void {
    this.publisherPart?.seen(event)
  }

  get writes(): GroupWrites {
    const g = this.group
    this.writesPart ??= new GroupWrites({
      key: g.key,
      me: g.ctx.me,
      clock: this.clock,
      publisher: this.publisher,
      canSend: (kind) => g.canSend(kind),
      myReactions: (id, emoji) => g.folded().myReactions(id, emoji),
    })
    return this.writesPart
  }

  get admin(): GroupAdmin {
    const g = this.group
    this.adminPart ??= new GroupAdmin({
      key: g.key,
      clock: this.clock,
      publisher: this.publisher,
      metadata: () => g.state.metadata,
      joinRequests: () => g.snapshot().joinRequests,
      dismiss: (request) => g.requests.dismiss(request),
    })
    return this.adminPart
  }
}
