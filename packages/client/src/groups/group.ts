import {
  foldMembership,
  GroupAdmins,
  type GroupKey,
  GroupMembers,
  GroupMetadata,
  type GroupMetadataFields,
  GroupRoles,
  KINDS,
  type Membership,
  TimelineWindow,
} from '@roost/nip29'
import { messageReadMark, threadReadMark } from '@roost/read-state'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'
import {
  AuthRequiredError,
  CannotSendError,
  PublishRefusedError,
  PublishTimeoutError,
  RelayUnreachableError,
} from '../errors'
import type { PublishResult, RelayPool } from '../pool'
import type { Signer } from '../signers'
import type { EventStore } from '../store'
import { isVerified } from '../verify'
import { Timeline } from './timeline'
import type { CanSend, GroupEvent, GroupSnapshot, Message, ReadStateSource, Thread } from './types'

/** State kinds this client reads (39000–39005); only the relay key may sign them (decision 3). */
const STATE_KINDS = new Set<number>([
  KINDS.metadata,
  KINDS.admins,
  KINDS.members,
  KINDS.roles,
  KINDS.participants,
  KINDS.pins,
])

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
  /** Publish deadline in ms; the pool's default when absent. */
  readonly publishTimeout?: number
  /** Told when the folded membership changes, so the registry can remember it across restarts. */
  onMembership?(key: string, membership: Membership): void
}

/** Newest per NIP-01 replaceable rules: higher created_at, then the lower id. */
function newer(a: NostrEvent, b: NostrEvent | undefined): boolean {
  if (!b) return true
  return a.created_at > b.created_at || (a.created_at === b.created_at && a.id < b.id)
}

function tagValue(event: NostrEvent, name: string): string | undefined {
  return event.tags.find((t) => t[0] === name)?.[1]
}

/**
 * Matches `previous` rejections: the fiatjaf family's "previous id '…' wasn't found in this
 * relay/group" and a minimum-count "at least 3 previous references are required".
 */
export function isPreviousRejection(message: string): boolean {
  return /previous/i.test(message) && /(wasn'?t|not) found|unknown|missing|required/i.test(message)
}

/** Turns a failed publish result into the typed error a caller branches on. */
export function publishError(result: PublishResult, timeoutMs: number): Error {
  if (result.timedOut) {
    const notice = /NOTICE: (.*)$/.exec(result.message)?.[1]
    return new PublishTimeoutError(result.relay, timeoutMs, notice)
  }
  if (result.failure === 'auth') return new AuthRequiredError(result.relay, result.message)
  if (result.failure === 'unreachable') return new RelayUnreachableError(result.relay, result.message)
  return new PublishRefusedError(result.relay, result.message)
}

/**
 * One NIP-29 group on one relay (a `GroupKey`). `ingest` is the only place its state changes;
 * everything a UI reads comes from `snapshot()`, an immutable value that stays the same object
 * until something changes, so `useSyncExternalStore(group.subscribe, group.snapshot)` works.
 * Writes sign with the account's signer, go to the group's relay only, and resolve when the relay
 * says OK (or throw its refusal as a typed error).
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
  private readonly timeline: Timeline
  /**
   * The `previous` window (decision 4), built on first use: a cold start loads thousands of
   * events that only a send will ever read references from. Until then its input waits in
   * `windowInput` (bounded: it is folded in whenever it grows past a few windows' worth).
   */
  private windowState: TimelineWindow | undefined
  private windowInput: NostrEvent[] = []
  private readonly state = new Map<number, NostrEvent>()
  /** State events that arrived before the relay key was known. */
  private readonly unverifiedState: NostrEvent[] = []
  private parsed: {
    metadata?: GroupMetadata
    admins?: GroupAdmins
    members?: GroupMembers
    roles?: GroupRoles
  } = {}
  private readonly membershipEvents: NostrEvent[] = []
  private local: { membership: Membership; at: number } | undefined
  /** What the last session folded, shown until this session's own evidence decides. */
  private remembered: Membership | undefined
  private reported: Membership | undefined
  private loading = true
  private refusedReason: string | undefined
  private older = true
  private readonly listeners = new Set<(e: GroupEvent) => void>()
  private snap: GroupSnapshot | undefined
  private updateQueued = false
  private pendingWrites: NostrEvent[] = []
  private writeTimer: ReturnType<typeof setTimeout> | undefined
  private writing: Promise<unknown> = Promise.resolve()
  private closed = false
  private readonly unsubscribeReadState: (() => void) | undefined

  constructor(
    key: GroupKey,
    private readonly ctx: GroupContext,
  ) {
    this.key = key
    this.timeline = new Timeline(ctx.me, (pk) => this.isModerator(pk), key.toString())
    this.unsubscribeReadState = ctx.readState?.subscribe(() => this.changed())
  }

  // ── reading ────────────────────────────────────────────────────────────────────────────────

  /** The relay key this group's state must be signed by, once known. */
  get relayKey(): string | undefined {
    return this.ctx.relayKey(this.key.relay)
  }
  get metadata(): GroupMetadata | undefined {
    return this.parsed.metadata
  }
  get admins(): GroupAdmins | undefined {
    return this.parsed.admins
  }
  get members(): GroupMembers | undefined {
    return this.parsed.members
  }
  get roles(): GroupRoles | undefined {
    return this.parsed.roles
  }
  /** The relay-signed 39000 this group's naddr is built from. */
  get metadataEvent(): NostrEvent | undefined {
    return this.state.get(KINDS.metadata)
  }
  get membership(): Membership {
    return this.snapshot().membership
  }

  /** Top-level rows (kinds 9, 1, 11), oldest first, reactions folded. */
  messages(): readonly Message[] {
    return this.timeline.messages()
  }

  /** Kind 11 threads with their kind 1111 comments. */
  threads(): readonly Thread[] {
    return this.timeline.threads()
  }

  /** One thread by its root id. */
  thread(rootId: string): Thread | undefined {
    return this.timeline.threads().find((t) => t.root.id === rootId)
  }

  /** A loaded event (row or comment) by id, e.g. to render a quoted reply. */
  event(id: string): NostrEvent | undefined {
    return this.timeline.event(id)
  }

  /** Is `pubkey` an admin (a 39001 entry whose roles are not only `member`/empty, case-insensitive)? */
  isAdmin(pubkey: string): boolean {
    const entry = this.parsed.admins?.entries.find((e) => e.pubkey === pubkey)
    if (!entry) return false
    if (entry.roles.length === 0) return true
    return entry.roles.some((r) => r.trim() !== '' && r.trim().toLowerCase() !== 'member')
  }

  private isModerator(pubkey: string): boolean {
    return pubkey === this.relayKey || this.isAdmin(pubkey)
  }

  /** The immutable view of everything above; the same object until something changes. */
  readonly snapshot = (): GroupSnapshot => {
    if (this.snap) return this.snap
    const membership = this.computeMembership()
    const unread = this.countUnread()
    this.snap = Object.freeze({
      key: this.key.toString(),
      relay: this.key.relay,
      id: this.key.id.value,
      relayKey: this.relayKey,
      metadata: this.parsed.metadata,
      admins: this.parsed.admins,
      members: this.parsed.members,
      roles: this.parsed.roles,
      membership,
      messages: this.timeline.messages(),
      threads: this.timeline.threads(),
      loading: this.loading,
      refused: this.refusedReason,
      hasOlder: this.older,
      canSend: this.canSendWith(membership, KINDS.chat),
      unread: unread.messages,
      unreadThreads: unread.threads,
    })
    return this.snap
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
      if (this.ctx.onMembership && JSON.stringify(m) !== JSON.stringify(this.reported)) {
        this.reported = m
        this.ctx.onMembership(this.key.toString(), m)
      }
      this.emit({ type: 'updated' })
    })
  }

  // ── membership ─────────────────────────────────────────────────────────────────────────────

  private computeMembership(): Membership {
    const key = this.relayKey
    const trusted = this.membershipEvents.filter((e) => e.pubkey === key || this.isAdmin(e.pubkey))
    const members = this.state.get(KINDS.members)
    const evidence = members ? [...trusted, members] : trusted
    const folded = foldMembership(evidence, this.ctx.me)
    if (!this.local) return folded.status === 'unknown' && this.remembered ? this.remembered : folded
    let evidenceAt = -1
    for (const e of trusted) evidenceAt = Math.max(evidenceAt, e.created_at)
    if (members && this.parsed.members?.contains(this.ctx.me))
      evidenceAt = Math.max(evidenceAt, members.created_at)
    return evidenceAt >= this.local.at && folded.status !== 'unknown' ? folded : this.local.membership
  }

  /** Seeds the membership folded in an earlier session (from the store), until evidence arrives. */
  rememberMembership(membership: Membership): void {
    this.remembered = membership
    this.reported = membership
    this.changed()
  }

  /**
   * Records what the relay said to our own 9021/9022 (pending, member, refused, removed), until a
   * relay-signed 9000/9001 or 39002 at least as new says otherwise. Called by the join/leave path.
   */
  setLocalMembership(membership: Membership, at: number): void {
    this.local = { membership, at }
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
  ingest(event: NostrEvent, opts: { fromStore?: boolean } = {}): boolean {
    if (this.closed) return false
    // Only verified events (branded by the pool's verifier, the store or our signer) are state.
    if (!isVerified(event)) return false
    if (STATE_KINDS.has(event.kind)) return this.ingestState(event, opts.fromStore === true)
    if (tagValue(event, 'h') !== this.key.id.value) return false
    const added = this.timeline.add(event)
    if (added === 'duplicate') return false
    this.feedWindow(event)
    if (event.kind === KINDS.putUser || event.kind === KINDS.removeUser) {
      if (event.tags.some((t) => t[0] === 'p' && t[1] === this.ctx.me)) this.membershipEvents.push(event)
    }
    this.changed()
    if (!opts.fromStore) {
      this.queueWrite(event)
      this.emit({ type: 'incoming', event }) // new arrivals only: a restart notifies nothing
    }
    return true
  }

  private feedWindow(event: NostrEvent): void {
    if (this.windowState) this.windowState.push(event)
    else if (this.windowInput.push(event) > 200) this.window()
  }

  /** The `previous` window, folding in what arrived since it was last read. */
  private window(): TimelineWindow {
    if (!this.windowState) {
      const w = new TimelineWindow(50)
      // Newest first (ties: lowest id), the window's own order: once it is full, the rest is older.
      this.windowInput.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      for (const e of this.windowInput) {
        if (w.size >= w.capacity) break
        w.push(e)
      }
      this.windowInput = []
      this.windowState = w
    }
    return this.windowState
  }

  /** Many events at once (a store page, a fetch): one `updated` for all of them. */
  ingestMany(events: readonly NostrEvent[], opts: { fromStore?: boolean } = {}): number {
    let n = 0
    for (const e of events) if (this.ingest(e, opts)) n++
    return n
  }

  /**
   * A page read back from our own store for this group, newest first (as `EventStore.query` and
   * `newestPerFork` return it): folded in as `ingest(e, { fromStore: true })` would, with one
   * `updated` for the page. Stored events were verified when they arrived (decision 10).
   */
  ingestStored(newestFirst: readonly NostrEvent[]): number {
    let n = 0
    for (let i = newestFirst.length - 1; i >= 0; i--)
      if (this.ingest(newestFirst[i]!, { fromStore: true })) n++
    return n
  }

  private ingestState(event: NostrEvent, fromStore: boolean): boolean {
    if (tagValue(event, 'd') !== this.key.id.value) return false
    let key = this.relayKey
    if (key === undefined && event.kind === KINDS.metadata && !fromStore) {
      // Decision 3's last resort: the author of the first 39000 seen for this relay.
      this.ctx.pinRelayKey(this.key.relay, event.pubkey)
      key = this.relayKey
    }
    if (key === undefined) {
      if (this.unverifiedState.length < 64) this.unverifiedState.push(event)
      return false
    }
    if (event.pubkey !== key) return false // a 39000 signed by anyone else is not the group's state
    if (!newer(event, this.state.get(event.kind))) return false
    try {
      this.applyState(event)
    } catch {
      return false // malformed state: ignored, as the spec says
    }
    this.state.set(event.kind, event)
    if (!fromStore) void this.ctx.store.putState(this.key.relay, event).catch(() => {})
    this.changed()
    return true
  }

  private applyState(event: NostrEvent): void {
    switch (event.kind) {
      case KINDS.metadata:
        this.parsed = { ...this.parsed, metadata: GroupMetadata.parse(event) }
        break
      case KINDS.admins:
        this.parsed = { ...this.parsed, admins: GroupAdmins.parse(event) }
        break
      case KINDS.members:
        this.parsed = { ...this.parsed, members: GroupMembers.parse(event) }
        break
      case KINDS.roles:
        this.parsed = { ...this.parsed, roles: GroupRoles.parse(event) }
        break
      default:
        break // 39004/39005 are kept raw for now
    }
  }

  /** The relay key became known (or changed): re-check the state that waited for it. */
  relayKeyChanged(): void {
    const key = this.relayKey
    for (const [kind, e] of this.state) {
      if (e.pubkey !== key) this.state.delete(kind)
    }
    if (!this.state.has(KINDS.metadata)) this.parsed = { ...this.parsed, metadata: undefined }
    const waiting = this.unverifiedState.splice(0)
    for (const e of waiting) this.ingestState(e, false)
    this.changed()
  }

  /** The relay sent EOSE for the standing subscription. */
  eose(): void {
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
    if (this.refusedReason !== undefined) {
      this.refusedReason = undefined
      this.changed()
    }
  }

  get subscriptionRefused(): boolean {
    return this.refusedReason !== undefined
  }

  // ── store writes, batched ──────────────────────────────────────────────────────────────────

  private queueWrite(event: NostrEvent): void {
    this.pendingWrites.push(event)
    if (this.pendingWrites.length >= 500) this.flush()
    else this.writeTimer ??= setTimeout(() => this.flush(), 16)
  }

  /** Writes pending events to the store (one transaction) and resolves when done. */
  flush(): Promise<unknown> {
    if (this.writeTimer) clearTimeout(this.writeTimer)
    this.writeTimer = undefined
    const batch = this.pendingWrites
    if (batch.length > 0) {
      this.pendingWrites = []
      const fork = this.key.toString()
      this.writing = this.writing.then(() => this.ctx.store.addMany(batch, fork)).catch(() => {})
    }
    return this.writing
  }

  // ── unread ─────────────────────────────────────────────────────────────────────────────────

  private countUnread(): { messages: number; threads: readonly string[] } {
    const rs = this.ctx.readState
    if (!rs) return NOTHING_UNREAD
    const channel = this.key.toString()
    const contexts = rs.contexts
    if (!contexts) return { messages: this.timeline.countAfter(rs.frontier(channel)), threads: NO_THREADS }
    // Incremental (UnreadIndex over the rendered row set): another device's blob recounts in
    // O(log n + unread) per group instead of a pass over every message.
    const { messages, threads } = this.timeline.unreadCount(contexts)
    return { messages, threads: threads.length ? Object.freeze(threads) : NO_THREADS }
  }

  /** The parent of a read-state context in this group (`thread:<root>` → channel, `msg:<id>` → thread or channel). */
  contextParent(ctx: string): string | undefined {
    const channel = this.key.toString()
    if (ctx.startsWith('thread:')) return this.timeline.event(ctx.slice(7)) ? channel : undefined
    if (ctx.startsWith('msg:')) {
      const e = this.timeline.event(ctx.slice(4))
      if (!e) return undefined
      const root = e.kind === KINDS.comment ? e.tags.find((t) => t[0] === 'E')?.[1] : undefined
      return root ? `thread:${root}` : channel
    }
    return undefined
  }

  /** Unread top-level rows not sent by us, newer than the read frontier (0 without read state). */
  unread(): number {
    return this.snapshot().unread
  }

  /** Marks a thread read up to its newest comment (only `thread:<root>` advances). */
  markThreadRead(rootId: string): void {
    const rs = this.ctx.readState
    const thread = this.thread(rootId)
    if (!rs || !thread) return
    const mark = threadReadMark(rootId, thread.comments)
    if (mark) rs.markRead(mark.ctx, mark.ts)
  }

  /**
   * Marks one message or reply read (NIP-RS per-message context): only `msg:<id>` advances, to
   * that event's `created_at`; the channel and thread contexts never move. No-op for unknown ids.
   *
   * @example
   * for (const reply of visibleReplies) group.markMessageRead(reply.id)
   */
  markMessageRead(id: string): void {
    const rs = this.ctx.readState
    const event = this.timeline.event(id)
    if (!rs || !event) return
    const mark = messageReadMark({ id: event.id, createdAt: event.created_at })
    rs.markRead(mark.ctx, mark.ts)
  }

  /** Marks the channel read up to `timestamp` (default: its newest row). */
  markRead(timestamp?: number): void {
    const rs = this.ctx.readState
    if (!rs) return
    const ts = timestamp ?? this.timeline.newestRow()?.created_at
    if (ts === undefined) return
    rs.markRead(this.key.toString(), ts)
  }

  // ── writing ────────────────────────────────────────────────────────────────────────────────

  private canSendWith(membership: Membership, kind: number): CanSend {
    const meta = this.parsed.metadata
    if (meta && !meta.supports(kind)) {
      return { ok: false, reason: 'unsupported-kind', detail: `this group does not take kind ${kind} events` }
    }
    // `restricted` and `private` are members-only by the spec; `closed` is on the relays that
    // matter (pyramid, relay29, ours in strict mode), so a non-member is told to join first.
    // Without metadata (a hidden group keeps it from strangers) our own known state decides,
    // except an `auth-required:` refusal: the send itself authenticates or says so.
    const needsMembership = meta
      ? meta.restricted || meta.private || meta.closed
      : membership.status !== 'unknown' &&
        !(membership.status === 'refused' && membership.reason.startsWith('auth-required:'))
    if (!needsMembership || membership.status === 'member') return { ok: true }
    switch (membership.status) {
      case 'pending':
        return { ok: false, reason: 'pending', detail: 'your join request is waiting for approval' }
      case 'refused':
        return { ok: false, reason: 'refused', detail: membership.reason }
      case 'removed':
        return { ok: false, reason: 'removed', detail: 'you are no longer a member of this group' }
      default:
        return { ok: false, reason: 'not-member', detail: 'only members can write here: join first' }
    }
  }

  /**
   * Whether a message of `kind` (default 9) can be sent now, and why not: `unsupported-kind` when
   * `supported_kinds` lacks it, or a membership reason when the group is restricted, private or
   * closed (or its metadata is hidden from us and we are pending, refused or removed).
   */
  canSend(kind: number = KINDS.chat): CanSend {
    return this.canSendWith(this.snapshot().membership, kind)
  }

  private get timeout(): number {
    return this.ctx.publishTimeout ?? this.ctx.pool.publishTimeout
  }

  private async publishOnce(template: EventTemplate): Promise<{ event: NostrEvent; result: PublishResult }> {
    const event = await this.ctx.signer.signEvent(template)
    const [result] = await this.ctx.pool.publish([this.key.relay], event, { timeout: this.timeout })
    return { event, result: result! }
  }

  /**
   * Signs and sends a user event built with fresh `previous` references, retrying once with a
   * refreshed window when the relay says a reference was not found (decision 4). On OK the event
   * is ingested (it shows at once) and returned; otherwise the relay's refusal is thrown.
   */
  private async publishWithPrevious(
    build: (previous: string[] | undefined) => EventTemplate,
  ): Promise<NostrEvent> {
    // The window is read now, synchronously: what we have seen when the user pressed send.
    let attempt = await this.publishOnce(build(this.window().previousTag(this.ctx.me)))
    if (!attempt.result.ok && !attempt.result.timedOut && isPreviousRejection(attempt.result.message)) {
      const named = [...attempt.result.message.matchAll(/'([0-9a-f]{1,64})'/g)].map((m) => m[1]!)
      await this.refreshWindow()
      const fresh = this.window()
        .previousTag(this.ctx.me)
        ?.filter((v) => !named.includes(v))
      attempt = await this.publishOnce(build(fresh && fresh.length > 1 ? fresh : undefined))
    }
    if (!attempt.result.ok) throw publishError(attempt.result, this.timeout)
    this.ingest(attempt.event)
    return attempt.event
  }

  /**
   * Rebuilds the `previous` window from the relay's newest 50 events of the group. When a full
   * page comes back, events of its oldest second are left out: relays check against the last 50
   * events in arrival order, and a REQ orders ties by id, so those may already be out of the ring.
   */
  async refreshWindow(): Promise<void> {
    const events = await this.ctx.pool.fetch([this.key.relay], [this.key.id.timelineFilter(50)])
    const mine = events.filter((e) => tagValue(e, 'h') === this.key.id.value)
    let boundary = Number.NEGATIVE_INFINITY
    if (mine.length >= 50) boundary = Math.min(...mine.map((e) => e.created_at))
    const fresh = new TimelineWindow(50)
    for (const e of mine) if (e.created_at > boundary) fresh.push(e)
    this.ingestMany(events)
    this.windowState = fresh
    this.windowInput = []
  }

  private assertCanSend(kind: number): void {
    const can = this.canSend(kind)
    if (!can.ok) throw new CannotSendError(can.reason, can.detail)
  }

  /**
   * Sends a kind 9 chat message (with `previous`), optionally replying to messages.
   * @throws CannotSendError, PublishRefusedError (the relay's text), PublishTimeoutError, …
   * @example
   * await group.sendMessage('same here', { replyTo: parent })
   */
  async sendMessage(
    content: string,
    opts: { replyTo?: Message | NostrEvent | string | readonly (Message | NostrEvent | string)[] } = {},
  ): Promise<NostrEvent> {
    this.assertCanSend(KINDS.chat)
    const targets =
      opts.replyTo === undefined ? [] : Array.isArray(opts.replyTo) ? opts.replyTo : [opts.replyTo]
    const replyTo = (targets as (Message | NostrEvent | string)[]).map((t) =>
      typeof t === 'string' ? t : { id: t.id, pubkey: t.pubkey, relay: this.key.relay },
    )
    return this.publishWithPrevious((previous) =>
      this.key.id.message(content, {
        ...(replyTo.length ? { replyTo } : {}),
        previous,
        createdAt: this.ctx.clock(),
      }),
    )
  }

  /**
   * Reacts to a message (kind 7 with `h`, `e`, `p`, `k`), `+` for a like.
   * @example await group.react(message, '🔥')
   */
  async react(target: Message | NostrEvent, emoji: string): Promise<NostrEvent> {
    this.assertCanSend(KINDS.reaction)
    return this.publishWithPrevious((previous) =>
      this.key.id.reaction({ id: target.id, pubkey: target.pubkey, kind: target.kind }, emoji, {
        previous,
        createdAt: this.ctx.clock(),
      }),
    )
  }

  /**
   * Starts a thread (kind 11 with a title).
   * @example const root = await group.postThread('Release plan', 'What ships on Friday?')
   */
  async postThread(title: string, content: string): Promise<NostrEvent> {
    this.assertCanSend(KINDS.thread)
    return this.publishWithPrevious((previous) =>
      this.key.id.thread(title, content, { previous, createdAt: this.ctx.clock() }),
    )
  }

  /**
   * Comments in a thread (kind 1111, NIP-22): `parent` is the root or another comment.
   * @example await group.comment(thread.root, thread.root, 'Friday works')
   */
  async comment(
    root: Message | NostrEvent,
    parent: Message | NostrEvent,
    content: string,
  ): Promise<NostrEvent> {
    this.assertCanSend(KINDS.comment)
    const r = 'event' in root ? root.event : root
    const p = 'event' in parent ? parent.event : parent
    return this.publishWithPrevious((previous) =>
      this.key.id.comment(r, p, content, { previous, createdAt: this.ctx.clock(), relay: this.key.relay }),
    )
  }

  /**
   * Pages back: the next `limit` older events, from the local store first, then the relay
   * (`until` = the oldest row loaded). Resolves with how many new events arrived; `hasOlder` in
   * the snapshot turns false when the relay has nothing older.
   * @example
   * if (group.snapshot().hasOlder) await group.loadOlder()
   */
  async loadOlder(limit = 50): Promise<number> {
    const until = this.timeline.oldestRow()?.created_at ?? this.ctx.clock()
    const fork = this.key.toString()
    const cached = await this.ctx.store.query({ fork, until, limit })
    let added = this.ingestMany(cached, { fromStore: true })
    if (added < limit) {
      const fetched = await this.ctx.pool.fetch(
        [this.key.relay],
        [{ '#h': [this.key.id.value], until, limit }],
      )
      const fresh = this.ingestMany(fetched)
      added += fresh
      if (fresh === 0 && this.older) {
        this.older = false
        this.changed()
      }
    }
    return added
  }

  // ── moderation (admins; the relay is the enforcer) ────────────────────────────────────────

  /** Adds (or updates the roles of) a member: kind 9000. */
  putUser(pubkey: string, roles?: readonly string[], reason?: string): Promise<NostrEvent> {
    return this.publishWithPrevious((previous) =>
      this.key.id.putUser(pubkey, roles, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  /** Removes a member: kind 9001. */
  removeUser(pubkey: string, reason?: string): Promise<NostrEvent> {
    return this.publishWithPrevious((previous) =>
      this.key.id.removeUser(pubkey, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  /**
   * Edits the metadata: kind 9002. Send the full positive field set: relays differ on whether a
   * 9002 patches or replaces (fields left out here are re-sent from the current metadata).
   */
  editMetadata(fields: GroupMetadataFields, reason?: string): Promise<NostrEvent> {
    const m = this.parsed.metadata
    const current: GroupMetadataFields = m
      ? {
          name: m.name,
          picture: m.picture,
          banner: m.banner,
          about: m.about,
          private: m.private,
          restricted: m.restricted,
          hidden: m.hidden,
          closed: m.closed,
          ...(m.supportedKinds ? { supportedKinds: m.supportedKinds } : {}),
        }
      : {}
    const merged = Object.fromEntries(
      Object.entries({ ...current, ...fields }).filter(([, v]) => v !== undefined),
    ) as GroupMetadataFields
    return this.publishWithPrevious((previous) =>
      this.key.id.editMetadata(merged, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  /** Deletes an event from the group: kind 9005. */
  deleteEvent(eventId: string, reason?: string): Promise<NostrEvent> {
    return this.publishWithPrevious((previous) =>
      this.key.id.deleteEvent(eventId, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  /**
   * Creates an invite code (kind 9009) and resolves with the naddr link that carries it, or with
   * the bare code when the relay published no 39000 yet.
   */
  async createInvite(code: string = randomCode()): Promise<{ code: string; link: string | undefined }> {
    await this.publishWithPrevious((previous) =>
      this.key.id.createInvite(code, { previous, createdAt: this.ctx.clock() }),
    )
    const meta = this.parsed.metadata
    return { code, link: meta ? meta.naddr(this.key.relay, code) : undefined }
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
    if (this.writeTimer) clearTimeout(this.writeTimer)
    this.pendingWrites = []
    this.unsubscribeReadState?.()
    this.listeners.clear()
  }

  /** Marks older history as exhausted or not (used when loading from the store). */
  setHasOlder(value: boolean): void {
    if (this.older !== value) {
      this.older = value
      this.changed()
    }
  }
}

const NO_THREADS: readonly string[] = Object.freeze([])
const NOTHING_UNREAD = Object.freeze({ messages: 0, threads: NO_THREADS })

/** 16 random lowercase hex characters, for invite codes. */
export function randomCode(bytes = 8): string {
  const b = new Uint8Array(bytes)
  globalThis.crypto.getRandomValues(b)
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('')
}
