import type { GroupKey } from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from '../pool'
import type { Signer } from '../signers'
import { GroupOutbox, OutgoingSend, type SendLink } from './outbox'

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
  /** First wait before an unanswered send is looked up on the relay (default the timeout, at most 5 s). */
  readonly recheckMs?: number
  /** True once the group is closed: unanswered sends stop looking. */
  closed?(): boolean
}

/**
 * How every event a user or admin writes reaches one group: signed with the account's signer, sent
 * to the group's relay only with fresh `previous` references (decision 4), retried once with a
 * refreshed window when the relay says a reference was not found, ingested when the relay says OK.
 * Each publish is an {@link OutgoingSend}: `track` hands it to the caller (and the group's outbox),
 * `publish` awaits its answer and throws a refusal or a timeout as a typed error (a timed-out send
 * still resolves in the background: it is looked up on the relay and ingested when stored).
 */
export class GroupPublisher {
  /** The sends made with {@link track} that are not sent yet. */
  readonly outbox = new GroupOutbox()
  /** Unknown sends, waiting for their echo. */
  private readonly live = new Set<OutgoingSend>()
  private readonly link: SendLink

  constructor(private readonly ctx: PublisherContext) {
    const { key, pool, signer, me, window } = ctx
    this.link = {
      timeout: this.timeout,
      recheckMs: ctx.recheckMs ?? Math.min(this.timeout, 5_000),
      sign: (template) => signer.signEvent(template),
      previous: (without = []) => window.previousTag(me)?.filter((v) => !without.includes(v)),
      refreshWindow: () => this.refreshWindow(),
      send: async (event) => (await pool.publish([key.relay], event, { timeout: this.timeout }))[0]!,
      lookup: async (id) => {
        let answered = false
        const found = await pool.fetch([key.relay], [{ ids: [id] }], {
          timeout: this.timeout,
          eose: () => {
            answered = true
          },
        })
        return found.some((e) => e.id === id) ? 'found' : answered ? 'absent' : 'unreachable'
      },
      ingest: (event) => ctx.ingest(event),
      closed: () => ctx.closed?.() ?? false,
    }
  }

  /** The publish deadline in ms. */
  get timeout(): number {
    return this.ctx.publishTimeout ?? this.ctx.pool.publishTimeout
  }

  /**
   * Signs and sends the event `build` makes with the `previous` references it is given; the send
   * is tracked in {@link outbox} until it is sent or discarded.
   */
  track(build: (previous: string[] | undefined) => EventTemplate): OutgoingSend {
    const send = this.start(build)
    this.outbox.add(send)
    return send
  }

  /** Signs and sends; resolves with the event on OK, or throws the relay's refusal or the timeout. */
  async publish(build: (previous: string[] | undefined) => EventTemplate): Promise<NostrEvent> {
    const state = await this.start(build).answered()
    if (state.status === 'sent') return state.event
    throw state.status === 'unknown' ? state.error : (state as { error: Error }).error
  }

  /** Our event came back from the relay (a live echo): a send waiting for it is sent. */
  seen(event: NostrEvent): void {
    for (const send of this.live) send.seen(event)
  }

  private start(build: (previous: string[] | undefined) => EventTemplate): OutgoingSend {
    // The window is read at once, synchronously: what we have seen when the user pressed send.
    const previous = this.ctx.window.previousTag(this.ctx.me)
    let first = true
    const send = new OutgoingSend(this.link, (p) => {
      const template = build(first ? previous : p)
      first = false
      return template
    })
    send.subscribe((s) => {
      if (s.status === 'unknown') this.live.add(send)
      else if (s.status !== 'sending') this.live.delete(send)
    })
    void send.attempt(false)
    return send
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
