import {
  type GroupAdmins,
  type GroupKey,
  type GroupMembers,
  type GroupMetadata,
  type GroupMetadataFields,
  type GroupRoles,
  type ImetaFields,
  type JoinRequest,
  KINDS,
  type LiveKitToken,
  type Membership,
  type ReportType,
} from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from '../pool'
import type { Signer } from '../signers'
import type { EventStore } from '../store'
import { isVerified } from '../verify'
import { fetchCallToken } from './call'
import { canSendWith } from './can-send'
import { GroupRequests } from './group-requests'
import { GroupState, STATE_KINDS } from './group-state'
import { MembershipFold } from './membership'
import { pinnedRefs } from './pins'
import { type SearchHit, type SearchOptions, searchGroups } from './search'
import { StoreWrites } from './store-writes'
import type { Timeline } from './timeline'
import { TimelineFold } from './timeline-fold'
import type { CanSend, GroupEvent, GroupSnapshot, Message, ReadStateSource, Thread } from './types'
import { GroupUnread } from './unread'
import { GroupWrites, type InviteTerms, randomCode } from './writes'

export { isPreviousRejection, publishError } from './publish-errors'

/** What a group needs from its registry. */
export interface GroupContext {
  readonly pool: RelayPool
  readonly store: EventStore
  readonly signer: Signer
  readonly me: string
  readonly clock: () => number
  readonly readState?: ReadStateSource
  /** The relay key for this group's relay, once known. */
  relayKey(relay: string): string | undefined
  /** Pins the relay key to the author of the first 39000 seen, when nothing better is known. */
  pinRelayKey(relay: string, pubkey: string): void
  /** True when the relay key is only that pin (nothing vouches for it). */
  relayKeyPinned?(relay: string): boolean
  /** Publish deadline in ms; the pool's default when absent. */
  readonly publishTimeout?: number
  /** Told when the folded membership changes, so the registry can remember it across restarts. */
  onMembership?(key: string, membership: Membership): void
}

/**
 * One NIP-29 group on one relay (a `GroupKey`): the one object a UI holds. `ingest` is the only
 * place its state changes; everything a UI reads comes from `snapshot()`, an immutable value that
 * stays the same object until something changes, so `useSyncExternalStore(group.subscribe,
 * group.snapshot)` works. The work is done by parts named for what they own: the folded state
 * (`group-state.ts`, `membership.ts`), the timeline with its `previous` window and the stored page
 * not folded yet (`timeline-fold.ts`), join requests (`group-requests.ts`), unread (`unread.ts`),
 * the writes (`writes.ts`) and the store writes (`store-writes.ts`). Writes sign with the account's
 * signer, go to the group's relay only, and resolve when the relay says OK (or throw its refusal as
 * a typed error).
 *
 * @example
 * const group = roost.groups.group("wss://groups.example.com'general")!
 * const stop = group.subscribe((e) => { if (e.type === 'incoming') notify(e.event) })
 * const { messages, membership, canSend } = group.snapshot()
 * if (canSend.ok) await group.sendMessage('hello')
 * stop()
 */
export class Group {
  readonly key: GroupKey
  /** The timeline, the `previous` window and the membership evidence, and the stored page not folded yet. */
  private readonly rows: TimelineFold
  /** created_at of the last call authorization (NIP-98), so the next one is a new event. */
  private callAuthAt = 0
  private readonly state: GroupState
  private readonly membershipFold: MembershipFold
  private readonly unreadPart: GroupUnread
  /** The writes, built on the first one (a cold start opens many groups and writes to none). */
  private writer: GroupWrites | undefined
  private readonly storeWrites: StoreWrites
  private readonly requests: GroupRequests
  private reported: Membership | undefined
  private loading = true
  /** The standing subscription is in its stored backlog (newest first) until its EOSE. */
  private backlog = true
  private refusedReason: string | undefined
  private older = true
  private readonly listeners = new Set<(e: GroupEvent) => void>()
  private snap: GroupSnapshot | undefined
  /**
   * The rows of the current snapshot, built on first read (a cold start opens every group but
   * renders one). Filled in before the timeline changes, so a snapshot never shows later rows.
   */
  private snapRows: { messages?: readonly Message[]; threads?: readonly Thread[] } | undefined
  private updateQueued = false
  private closed = false
  private readonly unsubscribeReadState: (() => void) | undefined

  constructor(
    key: GroupKey,
    private readonly ctx: GroupContext,
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
      ingest: (events) => this.ingestMany(events, { older: true }),
    })
    this.rows = new TimelineFold({
      me: ctx.me,
      id: key.id.value,
      channel,
      membership: this.membershipFold,
      isModerator: (pk) => this.state.isModerator(pk),
      folded: (event) => this.requests.add(event),
    })
    this.unreadPart = new GroupUnread(channel, () => this.folded(), ctx.readState)
    this.storeWrites = new StoreWrites(ctx.store, channel)
    this.unsubscribeReadState = ctx.readState?.subscribe(() => this.changed())
  }

  private get writes(): GroupWrites {
    const ctx = this.ctx
    this.writer ??= new GroupWrites({
      key: this.key,
      pool: ctx.pool,
      signer: ctx.signer,
      me: ctx.me,
      // Our own event sorts after everything we had seen when we sent it (decision 12): its
      // created_at is never below the newest row's, and it arrives after them.
      clock: () => Math.max(ctx.clock(), this.folded().newestRow()?.created_at ?? 0),
      publishTimeout: ctx.publishTimeout,
      window: this.rows,
      metadata: () => this.state.metadata,
      canSend: (kind) => this.canSend(kind),
      ingest: (event) => this.ingest(event, { own: true }),
      refreshWindow: () => this.refreshWindow(),
    })
    return this.writer
  }

  // ── reading ────────────────────────────────────────────────────────────────────────────────

  /** The relay key this group's state must be signed by, once known. */
  get relayKey(): string | undefined {
    return this.ctx.relayKey(this.key.relay)
  }
  get metadata(): GroupMetadata | undefined {
    return this.state.metadata
  }
  get admins(): GroupAdmins | undefined {
    return this.state.admins
  }
  get members(): GroupMembers | undefined {
    return this.state.members
  }
  get roles(): GroupRoles | undefined {
    return this.state.roles
  }
  /** The relay-signed 39000 this group's naddr is built from. */
  get metadataEvent(): NostrEvent | undefined {
    return this.state.event(KINDS.metadata)
  }
  get membership(): Membership {
    return this.snapshot().membership
  }

  /** Top-level rows (kinds 9, 1, 11), oldest first, reactions folded. */
  messages(): readonly Message[] {
    return this.folded().messages()
  }

  /** Kind 11 threads with their kind 1111 comments. */
  threads(): readonly Thread[] {
    return this.folded().threads()
  }

  /** One thread by its root id. */
  thread(rootId: string): Thread | undefined {
    return this.folded()
      .threads()
      .find((t) => t.root.id === rootId)
  }

  /** A loaded event (row or comment) by id, e.g. to render a quoted reply. */
  event(id: string): NostrEvent | undefined {
    return this.folded().event(id)
  }

  /**
   * Searches this group's messages (chat, notes, threads, comments) for every word of `text` as a
   * word prefix: the local cache, and the relay too when its NIP-11 lists NIP-50; merged,
   * de-duplicated, newest first. Throws `InvalidQueryError` for a bad text or options.
   *
   * @example
   * const hits = await group.search('pizza tonight', { limit: 20 })
   * hits[0]?.event.content
   */
  search(text: string, opts?: SearchOptions): Promise<SearchHit[]> {
    return searchGroups(this.ctx, [this], text, opts)
  }

  /** Resolves when every event this group has received is in the store (written in 16 ms batches). */
  flushStore(): Promise<unknown> {
    return this.storeWrites.flush()
  }

  /** Is `pubkey` an admin (a 39001 entry whose roles are not only `member`/empty, case-insensitive)? */
  isAdmin(pubkey: string): boolean {
    return this.state.isAdmin(pubkey)
  }

  /**
   * The immutable view of everything above; the same object until something changes. Its
   * `messages` and `threads` are built when first read, as of the moment the snapshot was taken.
   */
  readonly snapshot = (): GroupSnapshot => {
    if (this.snap) return this.snap
    // A page still unfolded changes neither the membership nor the join requests (`ingestStored`
    // folds at once a page holding their kinds); the counts below fold it when read state is on.
    const membership = this.membershipFold.compute()
    const unread = this.unreadPart.count()
    const rows: { messages?: readonly Message[]; threads?: readonly Thread[] } = {}
    this.snapRows = rows
    const group = this
    const snap = {
      key: this.key.toString(),
      relay: this.key.relay,
      id: this.key.id.value,
      relayKey: this.relayKey,
      unverified: this.relayKey !== undefined && this.ctx.relayKeyPinned?.(this.key.relay) === true,
      metadata: this.state.metadata,
      admins: this.state.admins,
      members: this.state.members,
      roles: this.state.roles,
      pins: pinnedRefs(this.state.event(KINDS.pins)),
      joinRequests: this.requests.list(this.state.members, this.state.admins),
      membership,
      loading: this.loading,
      refused: this.refusedReason,
      hasOlder: this.older,
      canSend: canSendWith(this.state.metadata, membership, KINDS.chat),
      unread: unread.messages,
      unreadThreads: unread.threads,
      mentions: this.unreadPart.mentions(),
      // getters written in the literal (enumerable, like the fields): a cold start builds one
      // snapshot per group, and defineProperties made each a slow dictionary object
      get messages() {
        rows.messages ??= group.folded().messages()
        return rows.messages
      },
      get threads() {
        rows.threads ??= group.folded().threads()
        return rows.threads
      },
    }
    this.snap = Object.freeze(snap) satisfies GroupSnapshot
    return this.snap
  }

  /** Builds the current snapshot's rows not read yet, before the timeline changes under them. */
  private pinSnapshotRows(): void {
    const rows = this.snapRows
    if (!rows) return
    this.snapRows = undefined
    rows.messages ??= this.folded().messages()
    rows.threads ??= this.folded().threads()
  }

  /**
   * Listens to `incoming` (each new event from a relay or our own send, not the store), `updated` (coalesced), `refused` (the relay ended our
   * subscription, with its text) and `eose`. Returns the unsubscribe function.
   */
  readonly subscribe = (listener: (e: GroupEvent) => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  private emit(e: GroupEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e)
      } catch (err) {
        queueMicrotask(() => {
          throw err
        })
      }
    }
  }

  private changed(): void {
    this.snap = undefined
    if (this.updateQueued) return
    this.updateQueued = true
    queueMicrotask(() => {
      this.updateQueued = false
      if (this.closed) return
      const m = this.snapshot().membership
      if (
        this.ctx.onMembership &&
        m !== this.reported &&
        JSON.stringify(m) !== JSON.stringify(this.reported)
      ) {
        this.reported = m
        this.ctx.onMembership(this.key.toString(), m)
      }
      this.emit({ type: 'updated' })
    })
  }

  // ── membership ─────────────────────────────────────────────────────────────────────────────

  /** Seeds the membership folded in an earlier session (from the store), until evidence arrives. */
  rememberMembership(membership: Membership): void {
    this.membershipFold.remember(membership)
    this.reported = membership
    this.changed()
  }

  /**
   * Records what the relay said to our own 9021/9022 (pending, member, refused, removed), until a
   * relay-signed 9000/9001 or 39002 at least as new says otherwise. Called by the join/leave path.
   */
  setLocalMembership(membership: Membership, at: number): void {
    this.membershipFold.setLocal(membership, at)
    this.changed()
  }

  // ── ingest: the only place state changes ───────────────────────────────────────────────────

  /**
   * Takes one verified event from this group's relay (or from the local store, `fromStore`), and
   * folds it in: relay-signed state (39000–39005, only from the relay key), or an `h`-tagged
   * timeline event of any kind (cached, fed to the `previous` window; kinds 9/1/11/1111/7 render).
   * Returns true if it changed anything. Unverified events, events for other groups and state
   * signed by anyone but the relay key are ignored.
   */
  ingest(event: NostrEvent, opts: { fromStore?: boolean; older?: boolean; own?: boolean } = {}): boolean {
    if (this.closed) return false
    // Only verified events (branded by the pool's verifier, the store or our signer) are state.
    if (!isVerified(event)) return false
    this.rows.fold() // what arrives now arrives after the stored page, and may be decided by it
    const fromStore = opts.fromStore === true
    if (STATE_KINDS.has(event.kind)) {
      if (!this.state.ingest(event, fromStore)) return false
      if (!fromStore) this.storeState(event)
      this.changed()
      this.fetchRequestsAsAdmin()
      return true
    }
    if (!this.rows.owns(event)) return false
    const older = opts.older ?? (!opts.own && !fromStore && this.backlog)
    const request = this.requests.add(event)
    if (this.rows.timeline.has(event.id)) {
      if (request) this.changed()
      return request
    }
    this.pinSnapshotRows()
    if (!this.rows.add(event, older)) return request
    this.changed()
    if (!fromStore) {
      this.storeWrites.queue(event, older)
      this.emit({ type: 'incoming', event }) // new arrivals only: a restart notifies nothing
    }
    return true
  }

  /** The timeline with any stored page folded in. */
  private folded(): Timeline {
    return this.rows.folded()
  }

  private storeState(event: NostrEvent): void {
    void this.ctx.store.putState(this.key.relay, event).catch(() => {})
  }

  /** Many events at once (a store page, a fetch): one `updated` for all of them. */
  ingestMany(events: readonly NostrEvent[], opts: { fromStore?: boolean; older?: boolean } = {}): number {
    let n = 0
    for (const e of events) if (this.ingest(e, opts)) n++
    return n
  }

  /**
   * A page read back from our own store for this group, newest first (as `EventStore.query` and
   * `newestPerFork` return it): taken as `ingest(e, { fromStore: true, older: true })` would take
   * each event, with one `updated` for the page. Stored events were verified when they arrived
   * (decision 10). The first page of a group that holds nothing yet is kept as it is and folded
   * when something first reads the timeline, the unread counts or the `previous` window, or when
   * another event arrives (a cold start shows one group of many); a page holding state, membership,
   * join request or moderation kinds is folded at once, since the snapshot depends on them.
   */
  ingestStored(newestFirst: readonly NostrEvent[]): void {
    if (this.closed || newestFirst.length === 0) return
    if (this.rows.keep(newestFirst)) this.changed()
    else this.ingestMany(newestFirst, { fromStore: true, older: true })
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

  /** The relay sent EOSE for the standing subscription. */
  eose(): void {
    this.backlog = false
    if (this.loading) {
      this.loading = false
      this.changed()
    }
    this.emit({ type: 'eose' })
  }

  /** The relay ended the standing subscription (`restricted: …`, `auth-required: …`). */
  refuse(reason: string): void {
    this.refusedReason = reason
    this.loading = false
    this.changed()
    this.emit({ type: 'refused', reason })
  }

  /** The subscription is (re)starting: clear the previous refusal. */
  resubscribed(): void {
    this.backlog = true
    this.requests.resubscribed()
    if (this.refusedReason !== undefined) {
      this.refusedReason = undefined
      this.changed()
    }
  }

  get subscriptionRefused(): boolean {
    return this.refusedReason !== undefined
  }

  /** Writes pending events to the store (one transaction) and resolves when done. */
  flush(): Promise<unknown> {
    return this.storeWrites.flush()
  }

  // ── unread ─────────────────────────────────────────────────────────────────────────────────

  /** The parent of a read-state context in this group: its channel, for `thread:` and `msg:` (decision 15). */
  contextParent(ctx: string): string | undefined {
    return this.unreadPart.contextParent(ctx)
  }

  /** Unread top-level rows not sent by us, newer than the read frontier (0 without read state). */
  unread(): number {
    return this.snapshot().unread
  }

  /**
   * Unread messages and thread replies by others that mention us (also `snapshot().mentions`).
   * @example if (group.unreadMentions() > 0) showMentionBadge()
   */
  unreadMentions(): number {
    return this.snapshot().mentions
  }

  /** Marks a thread read up to its newest comment (only `thread:<root>` advances). */
  markThreadRead(rootId: string): void {
    this.unreadPart.markThreadRead(rootId)
  }

  /**
   * Marks one message or reply read (NIP-RS per-message context): only `msg:<id>` advances, to
   * that event's `created_at`; the channel and thread contexts never move. No-op for unknown ids.
   *
   * @example
   * for (const reply of visibleReplies) group.markMessageRead(reply.id)
   */
  markMessageRead(id: string): void {
    this.unreadPart.markMessageRead(id)
  }

  /** Marks the channel read up to `timestamp` (default: its newest row). */
  markRead(timestamp?: number): void {
    this.unreadPart.markRead(timestamp)
  }

  // ── writing (see writes.ts) ────────────────────────────────────────────────────────────────

  /**
   * Whether a message of `kind` (default 9) can be sent now, and why not: `unsupported-kind` when
   * `supported_kinds` lacks it, or a membership reason when the group is restricted, private or
   * closed (or its metadata is hidden from us and we are pending, refused or removed).
   */
  canSend(kind: number = KINDS.chat): CanSend {
    return canSendWith(this.state.metadata, this.snapshot().membership, kind)
  }

  /**
   * Rebuilds the `previous` window from the relay's newest 50 events of the group (and folds
   * them in).
   */
  async refreshWindow(): Promise<void> {
    this.rows.fold() // the stored page goes in before the window is replaced, as it did at start
    const events = await this.ctx.pool.fetch([this.key.relay], [this.key.id.timelineFilter(50)])
    const mine = events.filter((e) => e.tags.find((t) => t[0] === 'h')?.[1] === this.key.id.value)
    this.ingestMany(events)
    this.rows.window.replace(mine)
  }

  /**
   * Sends a kind 9 chat message (with `previous`), optionally replying to messages; `media`
   * adds one NIP-92 `imeta` tag per attached file (see `uploadBlob`).
   * @throws CannotSendError, PublishRefusedError (the relay's text), PublishTimeoutError, …
   * @example
   * await group.sendMessage('same here', { replyTo: parent })
   */
  sendMessage(
    content: string,
    opts: {
      replyTo?: Message | NostrEvent | string | readonly (Message | NostrEvent | string)[]
      /** People to `p`-tag besides those the content mentions with `nostr:npub…` (always tagged). */
      mentions?: readonly string[]
      /** Attached files, one NIP-92 `imeta` tag each (see `uploadBlob`). */
      media?: readonly ImetaFields[]
    } = {},
  ): Promise<NostrEvent> {
    return this.writes.sendMessage(content, opts)
  }

  /**
   * Reacts to a message (kind 7 with `h`, `e`, `p`, `k`), `+` for a like.
   * @example await group.react(message, '🔥')
   */
  react(target: Message | NostrEvent, emoji: string): Promise<NostrEvent> {
    return this.writes.react(target, emoji)
  }

  /**
   * Starts a thread (kind 11 with a title).
   * @example const root = await group.postThread('Release plan', 'What ships on Friday?')
   */
  postThread(title: string, content: string): Promise<NostrEvent> {
    return this.writes.postThread(title, content)
  }

  /**
   * Comments in a thread (kind 1111, NIP-22): `parent` is the root or another comment.
   * @example await group.comment(thread.root, thread.root, 'Friday works')
   */
  comment(root: Message | NostrEvent, parent: Message | NostrEvent, content: string): Promise<NostrEvent> {
    return this.writes.comment(root, parent, content)
  }

  /** Adds (or updates the roles of) a member: kind 9000. */
  putUser(pubkey: string, roles?: readonly string[], reason?: string): Promise<NostrEvent> {
    return this.writes.putUser(pubkey, roles, reason)
  }

  /** Removes a member: kind 9001. */
  removeUser(pubkey: string, reason?: string): Promise<NostrEvent> {
    return this.writes.removeUser(pubkey, reason)
  }

  /**
   * Edits the metadata: kind 9002. Send the full positive field set: relays differ on whether a
   * 9002 patches or replaces (fields left out here are re-sent from the current metadata).
   */
  editMetadata(fields: GroupMetadataFields, reason?: string): Promise<NostrEvent> {
    return this.writes.editMetadata(fields, reason)
  }

  /** Deletes an event from the group: kind 9005. */
  deleteEvent(eventId: string, reason?: string): Promise<NostrEvent> {
    return this.writes.deleteEvent(eventId, reason)
  }

  /**
   * The join requests (9021) no admin answered with a 9000/9001 and the requester did not
   * withdraw, oldest first, less those dismissed here and people already listed as members (also
   * in the snapshot). Admins get every request: the client fetches them once it sees we are one.
   * Approve one with `putUser(request.pubkey)`.
   * @example for (const r of group.joinRequests()) if (r.code === myCode) await group.putUser(r.pubkey)
   */
  joinRequests(): readonly JoinRequest[] {
    return this.snapshot().joinRequests
  }

  /**
   * Hides `pubkey`'s current join request on this device, remembered across restarts (nothing is
   * sent: the requester stays pending). A newer request from them shows again.
   * @example await group.dismissJoinRequest(request.pubkey)
   */
  async dismissJoinRequest(pubkey: string): Promise<void> {
    const request = this.joinRequests().find((r) => r.pubkey === pubkey)
    if (request) await this.requests.dismiss(request)
  }

  /**
   * Deletes the whole group (kind 9008, admins with the permission). The relay drops it; follow
   * with `roost.groups.remove(group.key)` to drop it here.
   * @example await group.deleteGroup(); await roost.groups.remove(group.key)
   */
  deleteGroup(reason?: string): Promise<NostrEvent> {
    return this.writes.deleteGroup(reason)
  }

  /** The pinned event ids and addresses, in order, from the relay-signed 39005 (also in the snapshot). */
  pins(): readonly string[] {
    return this.snapshot().pins
  }

  /**
   * Replaces the pin list (kind 9010, admins): pass the FULL ordered list of ids/addresses.
   * @example await group.setPins([...group.pins(), message.id])
   */
  setPins(ids: readonly string[]): Promise<NostrEvent> {
    return this.writes.setPins(ids)
  }

  /**
   * Withdraws one of your own messages or reactions with a NIP-09 kind 5 carrying the group's
   * `h` (decision 17); it disappears for every member. Resolves with the signed deletion.
   * @throws {CannotSendError} `refused` for someone else's event (moderators use `deleteEvent`).
   * @example await group.deleteOwn(myMessage)
   */
  deleteOwn(event: Message | NostrEvent, reason?: string): Promise<NostrEvent> {
    return this.writes.deleteOwn(event, reason)
  }

  /**
   * Withdraws our own reaction(s) with `emoji` to `target` (one NIP-09 kind 5 each), as a second
   * click on a reaction chip does. Resolves with the deletions sent (none when we had not reacted).
   * @example await group.unreact(message, '👍')
   */
  async unreact(target: Message | NostrEvent | string, emoji: string): Promise<NostrEvent[]> {
    const id = typeof target === 'string' ? target : target.id
    const out: NostrEvent[] = []
    for (const reaction of this.folded().myReactions(id, emoji))
      out.push(await this.writes.deleteOwn(reaction))
    return out
  }

  /**
   * Creates an invite code (kind 9009) and resolves with the naddr link that carries it, or with
   * the bare code when the relay published no 39000 yet. `terms`: how many joins it admits
   * (`uses`, default one; `'unlimited'`) and until when (`expiresAt`, unix seconds), for relays
   * that honour them.
   * @example await group.createInvite(undefined, { uses: 25, expiresAt: now + 7 * 86400 })
   */
  createInvite(
    code: string = randomCode(),
    terms: InviteTerms = {},
  ): Promise<{ code: string; link: string | undefined }> {
    return this.writes.createInvite(code, terms)
  }

  /**
   * Reports a message, or a person (their pubkey), to the group's admins: a NIP-56 kind 1984 with
   * the group's `h` (a relay like Roost's shows it to the admins and to you only).
   * @example await group.report(message, { type: 'spam', reason: 'the same link ten times' })
   */
  report(
    target: Message | NostrEvent | string,
    opts: { type: ReportType; reason?: string },
  ): Promise<NostrEvent> {
    return this.writes.report(target, opts)
  }

  // ── history and lifecycle ─────────────────────────────────────────────────────────────────

  /**
   * A LiveKit token for the group's call (NIP-29 AV): a NIP-98-signed GET to the relay's
   * `/.well-known/nip29/livekit/<id>`. Pass `url` and `token` to `livekit-client`'s `room.connect`.
   * @throws {CallTokenError} `unavailable` (no AV on this relay), `auth`, `refused` (not a member,
   * no call here), `unreachable` or `bad-answer`.
   * @example const { url, token } = await group.callToken()
   */
  callToken(opts: { fetch?: typeof globalThis.fetch } = {}): Promise<LiveKitToken> {
    // A NIP-98 authorization is used once: two calls within one second would sign the same
    // event, so each call's created_at moves past the last one's.
    const clock = () => {
      this.callAuthAt = Math.max(this.ctx.clock(), this.callAuthAt + 1)
      return this.callAuthAt
    }
    return fetchCallToken({ key: this.key, signer: this.ctx.signer, clock, ...opts })
  }

  /**
   * Pages back: the next `limit` older events, from the local store first, then the relay
   * (`until` = the oldest row loaded). Resolves with how many new events arrived; `hasOlder` in
   * the snapshot turns false when the relay has nothing older.
   * @example
   * if (group.snapshot().hasOlder) await group.loadOlder()
   */
  async loadOlder(limit = 50): Promise<number> {
    const until = this.folded().oldestRow()?.created_at ?? this.ctx.clock()
    const fork = this.key.toString()
    const cached = await this.ctx.store.query({ fork, until, limit })
    let added = this.ingestMany(cached, { fromStore: true, older: true })
    if (added < limit) {
      const fetched = await this.ctx.pool.fetch(
        [this.key.relay],
        [{ '#h': [this.key.id.value], until, limit }],
      )
      const fresh = this.ingestMany(fetched, { older: true })
      added += fresh
      if (fresh === 0 && this.older) {
        this.older = false
        this.changed()
      }
    }
    return added
  }

  /** Marks older history as exhausted or not (used when loading from the store). */
  setHasOlder(value: boolean): void {
    if (this.older !== value) {
      this.older = value
      this.changed()
    }
  }

  /** Stops listening and writes what is pending. */
  async close(): Promise<void> {
    this.closed = true
    this.unsubscribeReadState?.()
    await this.flush()
    this.listeners.clear()
  }

  /** Marks the group as closed without flushing (it is being deleted). */
  discard(): void {
    this.closed = true
    this.storeWrites.discard()
    this.unsubscribeReadState?.()
    this.listeners.clear()
  }
}
