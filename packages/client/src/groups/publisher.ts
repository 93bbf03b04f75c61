import type { GroupKey } from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'
import type { PublishResult, RelayPool } from '../pool'
import type { Signer } from '../signers'
import { isPreviousRejection, publishError } from './publish-errors'

/** What the publisher needs from its group. */
export interface PublisherContext {
  readonly key: GroupKey
  readonly pool: RelayPool
  readonly signer: Signer
  readonly me: string
  readonly publishTimeout?: number
  /** The group's `previous` window (decision 4), its stored page folded in when read or replaced. */
  readonly window: {
    previousTag(me: string): string[] | undefined
    replace(newestFirst: readonly NostrEvent[]): void
  }
  /** Folds our own accepted event in, so it shows at once. */
  ingest(event: NostrEvent): void
  /** Folds in what a fetch of the group's newest events brought. */
  ingestMany(events: readonly NostrEvent[]): void
}

/**
 * How every event a user or admin writes reaches one group: signed with the account's signer, sent
 * to the group's relay only with fresh `previous` references (decision 4), retried once with a
 * refreshed window when the relay says a reference was not found, ingested when the relay says OK,
 * and otherwise thrown as the relay's refusal, a typed error.
 */
export class GroupPublisher {
  constructor(private readonly ctx: PublisherContext) {}

  /** The publish deadline in ms. */
  get timeout(): number {
    return this.ctx.publishTimeout ?? this.ctx.pool.publishTimeout
  }

  private async publishOnce(template: EventTemplate): Promise<{ event: NostrEvent; result: PublishResult }> {
    const event = await this.ctx.signer.signEvent(template)
    const [result] = await this.ctx.pool.publish([this.ctx.key.relay], event, { timeout: this.timeout })
    return { event, result: result! }
  }

  /** Signs and sends the event `build` makes with the `previous` references it is given. */
  async publish(build: (previous: string[] | undefined) => EventTemplate): Promise<NostrEvent> {
    const { window, me } = this.ctx
    // The window is read now, synchronously: what we have seen when the user pressed send.
    let attempt = await this.publishOnce(build(window.previousTag(me)))
    if (!attempt.result.ok && !attempt.result.timedOut && isPreviousRejection(attempt.result.message)) {
      const named = [...attempt.result.message.matchAll(/'([0-9a-f]{1,64})'/g)].map((m) => m[1]!)
      await this.refreshWindow()
      const fresh = window.previousTag(me)?.filter((v) => !named.includes(v))
      attempt = await this.publishOnce(build(fresh && fresh.length > 1 ? fresh : undefined))
    }
    if (!attempt.result.ok) throw publishError(attempt.result, this.timeout)
    this.ctx.ingest(attempt.event)
    return attempt.event
  }

  /** Rebuilds the `previous` window from the relay's newest 50 events of the group (folded in too). */
  async refreshWindow(): Promise<void> {
    const { key, pool } = this.ctx
    const events = await pool.fetch([key.relay], [key.id.timelineFilter(50)])
    const mine = events.filter((e) => e.tags.find((t) => t[0] === 'h')?.[1] === key.id.value)
    this.ctx.ingestMany(events)
    this.ctx.window.replace(mine)
  }
}
