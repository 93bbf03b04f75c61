import {
  type GroupAdmins,
  type GroupKey,
  type GroupMembers,
  type GroupMetadata,
  type GroupRoles,
  type JoinRequest,
  KINDS,
  type LiveKitToken,
  type Membership,
} from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { authClock, fetchCallToken } from './call'
import type { GroupAdmin } from './group-admin'
import type { GroupInside } from './group-inside'
import type { GroupOutbox, OutgoingSend } from './outbox'
import { type SubscribeOptions, subscribeAfter } from './replay'
import { type SearchHit, type SearchOptions, searchGroups } from './search'
import type { CanSend, GroupEvent, GroupSnapshot, Message, Thread } from './types'
import type { ReportOptions, SendOptions } from './writes'

/**
 * One NIP-29 group on one relay (a `GroupKey`), the object a UI holds; made by `roost.groups`.
 * Reading: `snapshot()` (the same object until something changes, for `useSyncExternalStore`), the
 * state getters, `search`, `loadOlder`, the read marks. Writing: messages, reactions, threads, your
 * own withdrawals, a moderator's `deleteEvent` and `setPins`. Administering: `group.admin`. A write
 * goes to the group's relay and resolves on its OK, or throws its refusal as a typed error.
 *
 * @example
 * const group = roost.groups.group("wss://groups.example.com'general")!
 * const stop = group.subscribe((e) => { if (e.type === 'incoming') notify(e.event) })
 * const { messages, membership, canSend } = group.snapshot()
 * if (canSend.ok) await group.sendMessage('hello')
 * stop()
 */
export class Group {
  /** Which group this is: its relay's URL and its id there (`key.toString()` is `wss://…'id`). */
  readonly key: GroupKey
  /** Everything a UI shows, immutable; its `messages` and `threads` are built when first read. */
  readonly snapshot: () => GroupSnapshot
  /**
   * Listens to `incoming`, `updated` (coalesced), `refused` (the relay ended our subscription) and
   * `eose`; returns the stop. `incoming`: each event new to this client, live or our own send; events
   * sent while we were offline arrive as `incoming`, events already stored do not (even sent again
   * after a restart), and a listener added once `join()` resolved hears none of the history.
   * `{ after }` first replays the stored events after a cursor (see `SubscribeOptions`).
   * @example group.subscribe((e) => { if (e.type === 'incoming') answer(e.event) }, { after: lastId })
   */
  readonly subscribe: (listener: (e: GroupEvent) => void, opts?: SubscribeOptions) => () => void
  readonly #in: GroupInside
  #callClock: (() => number) | undefined
  /** @internal Groups are made by the registry: `roost.groups.join(…)`, `.group(key)`, `.create(…)`. */
  constructor(inside: GroupInside) {
    this.#in = inside
    this.key = inside.key
    this.snapshot = inside.snapshot
    this.subscribe = (listener, opts) =>
      opts?.after === undefined ? inside.subscribe(listener) : subscribeAfter(inside, listener, opts.after)
  }

  /** Administering: members and roles, metadata, invites, join requests, deleting the group. */
  get admin(): GroupAdmin {
    return this.#in.writers.admin
  }

  // ── reading ────────────────────────────────────────────────────────────────────────────────
  /** The relay key this group's state must be signed by, once known. */
  get relayKey(): string | undefined {
    return this.#in.ctx.relayKey(this.key.relay)
  }
  /** The relay-signed 39000 metadata (name, picture, open/closed, …), once known. */
  get metadata(): GroupMetadata | undefined {
    return this.#in.state.metadata
  }
  /** The 39001 admins and their roles, once known. */
  get admins(): GroupAdmins | undefined {
    return this.#in.state.admins
  }
  /** The 39002 member list, when the relay publishes it. */
  get members(): GroupMembers | undefined {
    return this.#in.state.members
  }
  /** The 39003 roles the group defines, once known. */
  get roles(): GroupRoles | undefined {
    return this.#in.state.roles
  }
  /** The relay-signed 39000 this group's naddr is built from. */
  get metadataEvent(): NostrEvent | undefined {
    return this.#in.state.event(KINDS.metadata)
  }
  /** Our own standing in the group: member, pending, not a member, removed. */
  get membership(): Membership {
    return this.snapshot().membership
  }
  /** Top-level rows (kinds 9, 1, 11), oldest first, reactions folded. */
  messages(): readonly Message[] {
    return this.#in.folded().messages()
  }
  /** Threads with their kind 1111 comments: kind 11 threads, and kind 9 messages replied to in thread. */
  threads(): readonly Thread[] {
    return this.#in.folded().threads()
  }
  /** One thread by its root id: a kind 11, or any kind 9 (empty until its first reply in thread). */
  thread(rootId: string): Thread | undefined {
    return this.#in.folded().thread(rootId)
  }
  /** A loaded event (row or comment) by id, e.g. to render a quoted reply. */
  event(id: string): NostrEvent | undefined {
    return this.#in.folded().event(id)
  }
  /** Is `pubkey` an admin (a 39001 entry whose roles are not only `member`/empty, case-insensitive)? */
  isAdmin(pubkey: string): boolean {
    return this.#in.state.isAdmin(pubkey)
  }
  /**
   * Whether a message of `kind` (default 9) can be sent now, and why not: `unsupported-kind`, or a
   * membership reason when the group is restricted, private or closed (see `CanSend`).
   */
  canSend(kind: number = KINDS.chat): CanSend {
    return this.#in.canSend(kind)
  }
  /**
   * Open join requests (9021), oldest first, less those dismissed here and members (also in the
   * snapshot). @example for (const r of group.joinRequests()) await group.admin.putUser(r.pubkey)
   */
  joinRequests(): readonly JoinRequest[] {
    return this.snapshot().joinRequests
  }
  /** The pinned event ids and addresses, in order, from the relay-signed 39005 (also in the snapshot). */
  pins(): readonly string[] {
    return this.snapshot().pins
  }
  /**
   * Messages with every word of `text` as a word prefix, newest first: the cache, and the relay when
   * it lists NIP-50. Throws `InvalidQueryError`. @example await group.search('pizza', { limit: 20 })
   */
  search(text: string, opts?: SearchOptions): Promise<SearchHit[]> {
    return searchGroups(this.#in.ctx, [this.#in], text, opts)
  }
  /**
   * Pages back `limit` older events, the store first, then the relay; resolves with how many were new
   * (`hasOlder` false once the relay has nothing older). @example await group.loadOlder()
   */
  loadOlder(limit = 50): Promise<number> {
    return this.#in.history.loadOlder(limit)
  }

  // ── read marks (NIP-RS, synced to the account's other devices) ─────────────────────────────
  /** Unread top-level rows not sent by us, newer than the read frontier (0 without read state). */
  unread(): number {
    return this.snapshot().unread
  }
  /** Unread messages and replies by others that mention us. @example if (group.unreadMentions()) badge() */
  unreadMentions(): number {
    return this.snapshot().mentions
  }
  /** Marks the channel read up to `timestamp` (default: its newest row). */
  markRead(timestamp?: number): void {
    this.#in.reads.markRead(timestamp)
  }
  /** Marks a thread read up to its newest comment (only `thread:<root>` advances). */
  markThreadRead(rootId: string): void {
    this.#in.reads.markThreadRead(rootId)
  }
  /** Marks one message or reply read (only `msg:<id>` advances). @example group.markMessageRead(reply.id) */
  markMessageRead(id: string): void {
    this.#in.reads.markMessageRead(id)
  }

  // ── writing (writes.ts) ────────────────────────────────────────────────────────────────────
  /**
   * Sends a kind 9 chat message, optionally replying to messages, mentioning people (`p` tags) and
   * attaching files (one NIP-92 `imeta` tag each, see `uploadBlob`).
   * @throws CannotSendError, PublishRefusedError (the relay's text), PublishTimeoutError, …
   * @example await group.sendMessage('same here', { replyTo: parent })
   */
  sendMessage(content: string, opts?: SendOptions): Promise<NostrEvent> {
    return this.#in.writers.writes.sendMessage(content, opts)
  }
  /**
   * `sendMessage` without waiting: the send's state is `sending`, `sent`, `failed` (the relay's
   * reason) or `unknown` (no answer in time: it resolves by itself, the relay's copy looked up by
   * id). It stays in {@link outbox} until sent or discarded; `retry()` sends the same signed event.
   * @throws CannotSendError (at once) @example if ((await group.send('hi').answered()).status === 'failed') retry()
   */
  send(content: string, opts?: SendOptions): OutgoingSend {
    return this.#in.writers.writes.send(content, opts)
  }
  /** Our {@link send}s not known to be stored, oldest first. @example group.outbox.subscribe(() => render(group.outbox.list())) */
  get outbox(): GroupOutbox {
    return this.#in.writers.publisher.outbox
  }
  /** Reacts to a message (kind 7), `+` for a like. @example await group.react(message, '🔥') */
  react(target: Message | NostrEvent, emoji: string): Promise<NostrEvent> {
    return this.#in.writers.writes.react(target, emoji)
  }
  /** Starts a thread (kind 11). @example const root = await group.postThread('Plan', 'Friday?') */
  postThread(title: string, content: string): Promise<NostrEvent> {
    return this.#in.writers.writes.postThread(title, content)
  }
  /**
   * Answers `target` as its kind asks: a kind 11 thread or a kind 1111 comment gets a comment in
   * that thread (root found from the comment's tags), a kind 9 or 1 a kind 9 reply.
   * @example group.subscribe((e) => { if (e.type === 'incoming' && e.event.content === 'ping') void group.reply(e.event, 'pong') })
   */
  reply(target: Message | NostrEvent, text: string): Promise<NostrEvent> {
    return this.#in.writers.writes.reply(target, text)
  }
  /** Comments (kind 1111) in a kind 11 thread or on a kind 9 (reply in thread): `parent` is the root or a comment. @example await group.comment(root, root, 'ok') */
  comment(root: Message | NostrEvent, parent: Message | NostrEvent, content: string): Promise<NostrEvent> {
    return this.#in.writers.writes.comment(root, parent, content)
  }
  /**
   * Withdraws your own message or reaction (NIP-09 kind 5 with the group's `h`) for every member.
   * @throws {CannotSendError} `refused` for someone else's (moderators: `deleteEvent`). @example await group.deleteOwn(mine)
   */
  deleteOwn(event: Message | NostrEvent, reason?: string): Promise<NostrEvent> {
    return this.#in.writers.writes.deleteOwn(event, reason)
  }
  /** Withdraws our own `emoji` reactions to `target`; resolves with the deletions. @example await group.unreact(message, '👍') */
  unreact(target: Message | NostrEvent | string, emoji: string): Promise<NostrEvent[]> {
    return this.#in.writers.writes.unreact(target, emoji)
  }
  /** A moderator deletes an event from the group (kind 9005). @example await group.deleteEvent(message.id) */
  deleteEvent(eventId: string, reason?: string): Promise<NostrEvent> {
    return this.#in.writers.writes.deleteEvent(eventId, reason)
  }
  /** Replaces the pin list (kind 9010, admins) with this FULL ordered list. @example await group.setPins([...group.pins(), id]) */
  setPins(ids: readonly string[]): Promise<NostrEvent> {
    return this.#in.writers.writes.setPins(ids)
  }
  /**
   * Reports a message or a person (pubkey) to the group's admins: NIP-56 kind 1984 with the group's
   * `h`, shown to the admins and you. @example await group.report(message, { type: 'spam', reason: 'ads' })
   */
  report(target: Message | NostrEvent | string, opts: ReportOptions): Promise<NostrEvent> {
    return this.#in.writers.writes.report(target, opts)
  }

  /**
   * A LiveKit token for the group's call (NIP-29 AV; NIP-98-signed GET of `/.well-known/nip29/livekit/<id>`)
   * for `livekit-client`. @throws {CallTokenError} `unavailable`, `auth`, `refused`, `unreachable` or `bad-answer`.
   * @example const { url, token } = await group.callToken()
   */
  callToken(opts: { fetch?: typeof globalThis.fetch } = {}): Promise<LiveKitToken> {
    const { ctx } = this.#in
    this.#callClock ??= authClock(ctx.clock)
    return fetchCallToken({ key: this.key, signer: ctx.signer, clock: this.#callClock, ...opts })
  }
}
