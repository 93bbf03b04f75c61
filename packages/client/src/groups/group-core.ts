import type { GroupKey, Membership } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { isVerified } from '../verify'
import { BacklogHead } from './backlog-head'
import { canSendWith } from './can-send'
import { cores } from './core-of'
import { Group } from './group'
import type { GroupContext } from './group-context'
import type { GroupInside } from './group-inside'
import { GroupRequests } from './group-requests'
import { GroupSnapshots, type SnapshotSource } from './group-snapshot'
import { GroupState, STATE_KINDS } from './group-state'
import { GroupUpdates } from './group-updates'
import { GroupWriters, type WritersContext } from './group-writers'
import { GroupHistory } from './history'
import { MembershipFold } from './membership'
import { StoreWrites } from './store-writes'
import type { Timeline } from './timeline'
import { TimelineFold } from './timeline-fold'
import type { CanSend, GroupSnapshot, IngestOptions } from './types'
import { GroupUnread } from './unread'

/**
 * The inside of one group: its parts, and the entry points only the registry calls. `ingest` is
 * the only place its state changes (the relay's events, our own accepted ones, pages of history);
 * EOSE, refusals and resubscriptions move its loading state; it writes what it received to the
 * store in batches. The registry holds it (one per GroupKey, `ingest` routed by subscription id)
 * and hands out `group`, the facade a UI holds.
 */
export class GroupCore implements GroupInside, SnapshotSource, WritersContext {
  readonly key: GroupKey
  /** The public face of this group. */
  readonly group: Group
  readonly state: GroupState
  readonly membershipFold: MembershipFold
  readonly requests: GroupRequests
  readonly reads: GroupUnread
  readonly history: GroupHistory
  /** The timeline, the `previous` window and the membership evidence, and the stored page not folded yet. */
  private readonly rows: TimelineFold
  private readonly storeWrites: StoreWrites
  private readonly updates: GroupUpdates
  private readonly snapshots: GroupSnapshots
  readonly writers: GroupWriters
  /** The standing subscription: before its first EOSE, in its stored backlog (newest first), refused. */
  readonly subscription: { loading: boolean; backlog: boolean; refused: string | undefined } = {
    loading: true,
    backlog: true,
    refused: undefined,
  }
  /** The newest-first head of the standing subscription's stored answer, held back until it ends. */
  private readonly head = new BacklogHead()
  /** True once closed or discarded. */
  closed = false
  private readonly unsubscribeReadState: (() => void) | undefined

  constructor(
    key: GroupKey,
    readonly ctx: GroupContext,
  ) {
    this.key = key
    const channel = key.toString()
    this.state = new GroupState(key.id.value, {
      current: () => ctx.relayKey(key.relay),
      pin: (pubkey) => ctx.pinRelayKey(key.relay, pubkey),
    })
    this.membershipFold = new MembershipFold(ctx.me, this.state)
    this.requests = new GroupRequests({
      key,
      store: ctx.store,
      pool: ctx.pool,
      changed: () => this.changed(),
      ingest: (events) => this.ingestMany(events, { older: true, aside: true }),
    })
    this.rows = new TimelineFold({
      me: ctx.me,
      id: key.id.value,
      channel,
      membership: this.membershipFold,
      isModerator: (pk) => this.state.isModerator(pk),
      folded: (event) => this.requests.add(event),
    })
    this.reads = new GroupUnread(channel, () => this.folded(), ctx.readState)
    this.history = new GroupHistory({
      key,
      store: ctx.store,
      pool: ctx.pool,
      clock: ctx.clock,
      rows: this.rows,
      ingestOlder: (events, fromStore) => this.ingestMany(events, { fromStore, older: true }),
      changed: () => this.changed(),
    })
    this.storeWrites = new StoreWrites(ctx.store, channel)
    this.updates = new GroupUpdates({
      closed: () => this.closed,
      membership: () => this.snapshot().membership,
      ...(ctx.onMembership && { onMembership: (m) => ctx.onMembership!(channel, m) }),
    })
    this.snapshots = new GroupSnapshots(this)
    this.writers = new GroupWriters(this)
    this.group = new Group(this)
    cores.set(this.group, this)
    this.unsubscribeReadState = ctx.readState?.subscribe(() => this.changed())
  }

  // ── what the group's facade and parts read ─────────────────────────────────────────────────
  readonly snapshot = (): GroupSnapshot => this.snapshots.current()
  get subscribe(): GroupUpdates['subscribe'] {
    return this.updates.subscribe
  }
  relayKey(): string | undefined {
    return this.ctx.relayKey(this.key.relay)
  }
  relayKeyPinned(): boolean {
    return this.ctx.relayKeyPinned?.(this.key.relay) === true
  }
  /** The timeline with any stored page folded in. */
  folded(): Timeline {
    return this.rows.folded()
  }
  canSend(kind: number): CanSend {
    return canSendWith(this.state.metadata, this.snapshot().membership, kind)
  }
  isAdmin(pubkey: string): boolean {
    return this.state.isAdmin(pubkey)
  }
  /** Resolves when every event received is in the store (written in 16 ms batches). */
  flushStore(): Promise<unknown> {
    return this.storeWrites.flush()
  }

  /** The `previous` window (the stored page folded in when it is read). */
  get window(): TimelineFold {
    return this.rows
  }
  ingestOwn(event: NostrEvent): void {
    this.ingest(event, { own: true })
  }

  private changed(): void {
    this.snapshots.invalidate()
    this.updates.queue()
  }

  // ── ingest: the only place state changes ───────────────────────────────────────────────────
  /**
   * Takes one verified event from this group's relay (or from the local store, `fromStore`), and
   * folds it in: relay-signed state (39000–39005, only from the relay key), or an `h`-tagged
   * timeline event of any kind (cached, fed to the `previous` window; kinds 9/1/11/1111/7 render).
   * Returns true if it changed anything. Unverified events, events for other groups and state
   * signed by anyone but the relay key are ignored.
   */
  ingest(event: NostrEvent, opts: IngestOptions = {}): boolean {
    if (this.closed) return false
    // Only verified events (branded by the pool's verifier, the store or our signer) are state.
    if (!isVerified(event)) return false
    this.rows.fold() // what arrives now arrives after the stored page, and may be decided by it
    const fromStore = opts.fromStore === true
    // What the relay signs and sends live was signed just now: its clock, for dating our sends.
    const live =
      !fromStore && !opts.older && !opts.aside && !opts.own && !opts.head && !this.subscription.backlog
    if (live && event.pubkey === this.ctx.relayKey(this.key.relay))
      this.ctx.pool.observeRelayTime(this.key.relay, event.created_at)
    if (STATE_KINDS.has(event.kind)) {
      if (!this.state.ingest(event, fromStore)) return false
      if (!fromStore) this.storeState(event)
      this.changed()
      this.fetchRequestsAsAdmin()
      return true
    }
    if (!this.rows.owns(event)) return false
    // In the standing subscription's stored answer (newest first), not a page asked for.
    const inAnswer =
      opts.older === undefined && !opts.own && !opts.head && !fromStore && this.subscription.backlog
    const older = opts.older ?? inAnswer
    const request = this.requests.add(event)
    if (this.rows.timeline.has(event.id)) {
      // An event held comes in the stored answer: what came before it was the head so far.
      if (inAnswer) this.takeHead(this.head.met(event.created_at))
      if (request) this.changed()
      if (!fromStore && event.pubkey === this.ctx.me) this.writers.seen(event)
      return request
    }
    if (inAnswer && this.head.hold(event, this.folded().oldestRow()?.created_at)) return request
    this.snapshots.pinRows()
    if (!this.rows.add(event, older, opts)) return request
    this.changed()
    if (!fromStore) {
      this.storeWrites.queue(event, older)
      this.updates.emit({ type: 'incoming', event }) // new arrivals only: a restart notifies nothing
      if (event.pubkey === this.ctx.me) this.writers.seen(event) // an unanswered send of ours is stored
    }
    return true
  }

  /**
   * Events the relay no longer has for us, found by a reconciliation (deleted while we were away,
   * or no longer visible to us; the store already forgot them): hidden as a moderator's deletion
   * hides one, and kept hidden if they arrive again.
   */
  forget(ids: readonly string[]): void {
    if (this.closed || ids.length === 0) return
    this.rows.fold()
    for (const id of ids) this.rows.timeline.delete(id)
    this.changed()
  }

  /** Many events at once (a store page, a fetch): one `updated` for all of them. */
  ingestMany(events: readonly NostrEvent[], opts: IngestOptions = {}): number {
    let n = 0
    for (const e of events) if (this.ingest(e, opts)) n++
    return n
  }

  /**
   * A page read back from our own store for this group, newest first (as `EventStore.query` and
   * `newestPerFork` return it): taken as `ingest(e, { fromStore: true, older: true })` would take
   * each event, with one `updated` for the page. The first page of a group that holds nothing yet
   * is kept as it is and folded when something first reads the timeline, the unread counts or the
   * `previous` window, or when another event arrives (a cold start shows one group of many); a
   * page holding state, membership, join request or moderation kinds is folded at once.
   */
  ingestStored(newestFirst: readonly NostrEvent[]): void {
    if (this.closed || newestFirst.length === 0) return
    if (this.rows.keep(newestFirst)) this.changed()
    else this.ingestMany(newestFirst, { fromStore: true, older: true })
  }

  private storeState(event: NostrEvent): void {
    void this.ctx.store.putState(this.key.relay, event).catch(() => {})
  }

  /** The relay key became known (or changed): re-check the state that waited for it. */
  relayKeyChanged(): void {
    this.rows.fold() // its moderation (9005) was judged with the key held before
    for (const e of this.state.relayKeyChanged()) this.storeState(e)
    this.changed()
    this.fetchRequestsAsAdmin()
  }

  /** Once we are an admin, every join request is fetched (see `group-requests.ts`). */
  private fetchRequestsAsAdmin(): void {
    if (!this.closed && this.state.isAdmin(this.ctx.me)) this.requests.fetchAsAdmin()
  }

  /** Seeds the membership folded in an earlier session (from the store), until evidence arrives. */
  rememberMembership(membership: Membership): void {
    this.membershipFold.remember(membership)
    this.updates.known(membership)
    this.changed()
  }

  /** The membership evidence held now (ids), taken when our own 9021/9022 leaves. */
  membershipKnown(): string[] {
    return this.membershipFold.known()
  }

  /** What the relay said to our own 9021/9022, until relay-signed evidence not `known` when it left. */
  setLocalMembership(membership: Membership, known: string[]): void {
    this.membershipFold.setLocal(membership, known)
    this.changed()
  }

  // ── the standing subscription and the lifecycle ────────────────────────────────────────────
  /**
   * The relay sent EOSE for the standing subscription (`answered`), or none came within the pool's
   * EOSE timeout: either way what follows is live, but only the relay's own EOSE says it answers.
   */
  eose(answered = true): void {
    this.takeHead()
    this.subscription.backlog = false
    if (answered) this.history.relayAnswered()
    if (this.subscription.loading) {
      this.subscription.loading = false
      this.changed()
    }
    this.updates.emit({ type: 'eose' })
  }

  /** The relay ended the standing subscription (`restricted: …`, `auth-required: …`). */
  refuse(reason: string): void {
    this.subscription.refused = reason
    this.subscription.loading = false
    this.changed()
    this.updates.emit({ type: 'refused', reason })
  }

  /** The subscription is (re)starting: clear the previous refusal. */
  resubscribed(): void {
    this.resumed()
    this.requests.resubscribed()
    if (this.subscription.refused !== undefined) {
      this.subscription.refused = undefined
      this.changed()
    }
  }

  /**
   * A stored answer begins: the pool sent the standing REQ again on a new connection (from a little
   * before the newest event seen), or it is (re)opened. Its head was sent while we were away.
   */
  resumed(): void {
    this.takeHead()
    this.head.start()
    this.subscription.backlog = true
  }

  /**
   * The relay sent an event the subscription had delivered already, of second `createdAt`: in a
   * stored answer, the head so far ended.
   */
  repeated(id: string, createdAt: number): void {
    if (this.subscription.backlog && this.rows.timeline.has(id)) this.takeHead(this.head.met(createdAt))
  }

  /** Takes the head held back (all of it when none is given), oldest first, as live arrivals. */
  private takeHead(events = this.head.end()): void {
    if (events.length > 0) this.ingestMany(events, { head: true })
  }

  /** Stops listening and writes what is pending. */
  async close(): Promise<void> {
    this.closed = true
    this.unsubscribeReadState?.()
    await this.flushStore()
    this.updates.clear()
  }

  /** Marks the group as closed without flushing (it is being deleted). */
  discard(): void {
    this.closed = true
    this.storeWrites.discard()
    this.unsubscribeReadState?.()
    this.updates.clear()
  }
}
