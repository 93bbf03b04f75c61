import { type GroupKey, KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { groupSubscriptionId, type RelayPool } from '../pool'
import type { EventStore } from '../store/event-store'
import { GroupBackfills } from './group-backfill'
import type { GroupCore } from './group-core'

/** What the subscriptions need from the registry. */
export interface SubscriptionsContext {
  readonly pool: RelayPool
  /** The cache the NIP-77 backfill reconciles. */
  readonly store: EventStore
  /** Our pubkey (for the membership fetch). */
  me(): string
  /** The relay key to ask state from (NIP-11, once per relay). */
  relayKey(relay: string): Promise<string | undefined>
  /** The group a key string stands for now (undefined once it was dropped). */
  core(key: string): GroupCore | undefined
  /** The registry is closed: nothing more is opened. */
  closed(): boolean
}

/**
 * Each group's standing subscription and the routing of what comes in: one REQ per group
 * (timeline and relay-signed state under one id, `grp-<8 hex>`), plus a one-shot fetch of our
 * membership and the state when it opens. An event goes to the group its subscription id was
 * issued for, whatever it claims to be.
 */
export class GroupSubscriptions {
  /** subscription id → group key string */
  private readonly routes = new Map<string, string>()
  private readonly subs = new Map<string, { close(): void }>()
  /** group key → the REQ for the 9000/9001 naming us, held while the group refuses its standing REQ. */
  private readonly watches = new Map<string, { close(): void }>()
  /** group key → the 9000s naming us that made us ask for the standing REQ again (each once). */
  private readonly tried = new Map<string, Set<string>>()
  private readonly backfills: GroupBackfills

  constructor(private readonly ctx: SubscriptionsContext) {
    this.backfills = new GroupBackfills(ctx)
  }

  /** The subscription id that routes to a group, once one was issued. */
  id(key: GroupKey | string): string | undefined {
    const k = key.toString()
    for (const [id, v] of this.routes) if (v === k) return id
    return undefined
  }

  /** A standing subscription of the group is open. */
  isOpen(key: GroupKey): boolean {
    const id = this.id(key)
    return id !== undefined && this.subs.has(id)
  }

  /** (Re)opens the group's standing REQ, and fetches our membership and its state once. */
  async open(group: GroupCore): Promise<void> {
    const { ctx } = this
    const key = group.key
    const relayKey = await ctx.relayKey(key.relay)
    if (ctx.closed() || ctx.core(key.toString()) !== group) return
    const subId = this.routeFor(key)
    this.subs.get(subId)?.close()
    // A refusal of the new REQ watches again, and that REQ's stored answer covers the gap.
    this.unwatch(key)
    group.resubscribed()
    const openedAsMember = group.snapshot().membership.status === 'member'
    const filters = [key.id.timelineFilter(100), ...key.id.stateFilters(relayKey)]
    let answered = true
    const sub = ctx.pool.subscribe(
      key.relay,
      filters,
      {
        onevent: (e) => this.route(subId, e),
        onresume: () => this.routed(subId)?.resumed(),
        onrepeat: (id, createdAt) => this.routed(subId)?.repeated(id, createdAt),
        // nostr-tools ends the wait for EOSE after the pool's `eoseTimeout` as if one had come:
        // what follows is live all the same, but the relay has not said it answers.
        oneoseTimeout: () => {
          answered = false
        },
        // Each EOSE (the first, and the one after every resume that follows a reconnect) starts
        // the NIP-77 backfill of the cached window, where the relay speaks it.
        oneose: () => {
          const core = this.routed(subId)
          const relayAnswered = answered
          answered = true
          if (!core) return
          core.eose(relayAnswered)
          this.backfills.after(core)
        },
        onclosed: (reason) => {
          if (this.subs.get(subId) === sub) this.subs.delete(subId)
          const refused = this.routed(subId)
          refused?.refuse(reason)
          // A private group refuses a REQ sent before we were a member. When our join was
          // accepted while that refusal was on its way, ask again, once: the new REQ goes out
          // as a member, so its own refusal (if any) does not loop. Otherwise watch for the answer.
          if (!refused || ctx.closed()) return
          if (!openedAsMember && refused.snapshot().membership.status === 'member')
            void this.open(refused).catch(() => {})
          else if (refused.snapshot().membership.status !== 'member') this.watch(refused, subId)
        },
      },
      { id: subId },
    )
    this.subs.set(subId, sub)
    const once = await ctx.pool.fetch(
      [key.relay],
      [key.id.membershipFilter(ctx.me()), ...key.id.stateFilters(relayKey)],
    )
    // Our membership and the state, fetched aside: not a page of the timeline's history.
    for (const e of once) this.routed(subId)?.ingest(e, { aside: true })
  }

  /**
   * While a private group refuses our standing REQ (we are pending, or not in it), holds a REQ
   * for the 9000/9001 naming us in it, the one thing the relay shows us there: an approval arrives
   * live (or in the stored answer after a reconnect), and the standing REQ is opened again as a
   * member.
   */
  private watch(group: GroupCore, subId: string): void {
    const key = group.key
    this.unwatch(key)
    const sub = this.ctx.pool.subscribe(
      key.relay,
      [key.id.membershipFilter(this.ctx.me())],
      {
        onevent: (e) => {
          const core = this.routed(subId)
          if (!core || this.watches.get(key.toString()) !== sub) return
          core.ingest(e)
          if (this.ctx.closed()) return
          // Who may add us is listed where we cannot read yet (39001): a new 9000 naming us is
          // worth asking again, once per event, and the relay's answer (39002 or a refusal) decides.
          const member = core.snapshot().membership.status === 'member'
          const tried = this.tried.get(key.toString()) ?? new Set<string>()
          if (!member && (e.kind !== KINDS.putUser || tried.has(e.id))) return
          this.tried.set(key.toString(), tried.add(e.id))
          this.unwatch(key)
          void this.open(core).catch(() => {})
        },
        onclosed: () => {
          if (this.watches.get(key.toString()) === sub) this.watches.delete(key.toString())
        },
      },
      { id: `${subId}-me` },
    )
    this.watches.set(key.toString(), sub)
  }

  private unwatch(key: GroupKey): void {
    this.watches.get(key.toString())?.close()
    this.watches.delete(key.toString())
  }

  /** Closes a group's subscription and forgets its route. */
  drop(key: GroupKey): void {
    this.unwatch(key)
    this.tried.delete(key.toString())
    const id = this.id(key)
    if (id === undefined) return
    this.subs.get(id)?.close()
    this.subs.delete(id)
    this.routes.delete(id)
  }

  /** Closes every subscription. */
  close(): void {
    for (const s of this.subs.values()) s.close()
    this.subs.clear()
    for (const s of this.watches.values()) s.close()
    this.watches.clear()
  }

  /** The route id for a key: `grp-<8 hex>`, salted on the rare collision. */
  private routeFor(key: GroupKey): string {
    const k = key.toString()
    for (let salt = 0; ; salt++) {
      const id = groupSubscriptionId(k, salt)
      const taken = this.routes.get(id)
      if (taken === undefined || taken === k) {
        this.routes.set(id, k)
        return id
      }
    }
  }

  private routed(subId: string): GroupCore | undefined {
    const k = this.routes.get(subId)
    return k === undefined ? undefined : this.ctx.core(k)
  }

  /** Routing by subscription id: the event goes to the group the id was issued for. */
  private route(subId: string, event: NostrEvent): void {
    this.routed(subId)?.ingest(event)
  }
}
