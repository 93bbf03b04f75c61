/**
 * One @roost/client `Group` as the UI sees it: its snapshot mapped to `GroupDetail` (memoized,
 * so unchanged rows keep their objects and React skips them) and its actions returning the
 * relay's answer instead of throwing.
 */
import type { Group, GroupSnapshot, Message, OutgoingSend, SendState } from '@roost/client'
import {
  type GroupMetadata,
  type ImetaFields,
  imetaOf,
  KINDS,
  mentionsPubkey,
  type ReportType,
} from '@roost/nip29'
import { threadContext } from '@roost/read-state'
import type { Filter, NostrEvent } from 'nostr-tools'
import { prepareDraft } from '../lib/compose'
import { cleanName, tameMarks } from '../lib/names'
import { leadingQuote } from '../lib/quote'
import { toAnswer, withClockHint } from './answer'
import type { CallAnswer, GroupHandle, InviteAnswer, InviteTerms, ReportSubject } from './api'
import { callAnswer } from './call-answer'
import { joinRequestItems, roleItems, shareLinks, togglePin } from './community'
import { OFFLINE_MESSAGE } from './connection'
import { DraftBook } from './drafts'
import { Outbox, type Outgoing } from './outbox'
import type { ReadMarks } from './read-state'
import { closedBy, loadReports, type ReportAction, type ReportItem } from './reports'
import type {
  Answer,
  Draft,
  GroupDetail,
  GroupSummary,
  Member,
  MessageItem,
  NotifyLevel,
  ThreadDetail,
} from './types'

async function answer(run: () => Promise<unknown>, okMessage = ''): Promise<Answer> {
  try {
    await run()
    return { ok: true, message: okMessage }
  } catch (err) {
    return toAnswer(err)
  }
}

const CAN_SEND_TEXT: Record<string, string> = {
  'not-member': 'Only members can write here. Join the group first.',
  pending: 'Your join request is waiting for approval.',
  removed: 'You are no longer a member of this group.',
  'no-signer': 'Sign in to write.',
}

export class GroupAdapter implements GroupHandle {
  private readonly items = new WeakMap<Message, MessageItem>()
  /** Our unconfirmed messages' rows, one per state they passed through. */
  private readonly sendItems = new WeakMap<SendState, MessageItem>()
  /** What each tracked send came from: its box and draft (a failed one goes back there on close). */
  private readonly sendsFrom = new WeakMap<OutgoingSend, Outgoing>()
  private last:
    | {
        snap: GroupSnapshot
        frontier: number
        threadMarks: number
        sending: number
        unconfirmed: readonly OutgoingSend[]
        detail: GroupDetail
      }
    | undefined
  private loadingOlder = false
  private lastInvite: string | undefined
  private readonly listeners = new Set<() => void>()
  private marksVersion = 0
  private readonly unsubscribe: Array<() => void> = []
  private readonly outbox: Outbox
  /** Reports and deletions heard live (the admins' report list asks again), and the last list read. */
  private reportsSeen = 0
  private openReports: ReportItem[] = []

  constructor(
    readonly group: Group,
    private readonly me: string,
    private readonly marks: () => ReadMarks,
    private readonly join: (code?: string) => Promise<Answer>,
    /** The name in the user's 10009 entry, shown until the relay's 39000 is known. */
    private readonly listName: () => string | undefined = () => undefined,
    /** True while the browser is offline or the relay unreachable: actions fail at once. */
    private readonly offline: () => boolean = () => false,
    /** The 39000 the relay serves to everyone, for when the group's own state has none. */
    private readonly publicMeta: () => GroupMetadata | undefined = () => undefined,
    /** This device's notification level for the group. */
    private readonly notifyLevel: () => NotifyLevel = () => 'all',
    /** Drops the group on this device (after it was deleted on the relay). */
    private readonly removeHere: () => Promise<void> = async () => undefined,
    /** Where the message boxes' drafts live; unsent messages go back there. */
    private readonly drafts: DraftBook = new DraftBook({ account: me }),
    /** Asks the group's relay (the reports panel reads reports and the messages they name). */
    private readonly fetchHere: (filters: Filter[]) => Promise<NostrEvent[]> = async () => [],
    /** How many seconds this device's clock runs ahead of the group relay's, when measured. */
    private readonly clockAhead: () => number | undefined = () => undefined,
  ) {
    this.outbox = new Outbox(drafts, (m) => this.sendOutgoing(m))
    this.unsubscribe.push(
      group.subscribe((e) => {
        if (e.type === 'incoming' && (e.event.kind === KINDS.report || e.event.kind === KINDS.deleteEvent)) {
          this.reportsSeen++
          this.last = undefined
        }
        if (e.type === 'updated' || e.type === 'refused' || e.type === 'eose') this.emit()
      }),
      this.outbox.subscribe(() => this.emit()),
      group.outbox.subscribe(() => this.emit()),
    )
  }

  get key(): string {
    return this.group.key.toString()
  }

  /** Read marks or public metadata moved: recompute the snapshot. */
  marksChanged(): void {
    this.marksVersion++
    this.emit()
  }

  private emit(): void {
    for (const l of this.listeners) l()
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  private item(m: Message): MessageItem {
    let it = this.items.get(m)
    if (!it) {
      // NIP-C7: the quoted event's link leads the text; shown once, as the quote.
      const quote = m.kind === KINDS.chat ? leadingQuote(m.content, m.replyTo) : undefined
      it = {
        id: m.id,
        pubkey: m.pubkey,
        kind: m.kind,
        content: quote ? quote.text : m.content,
        createdAt: m.createdAt,
        replyTo: quote ? quote.id : m.replyTo[0],
        title: m.thread?.title,
        replies: m.thread?.comments,
        reactions: m.reactions.map((r) => ({
          emoji: r.emoji,
          count: r.count,
          mine: r.mine,
          pubkeys: r.pubkeys,
        })),
      }
      if (m.pubkey !== this.me && mentionsPubkey(m.event, this.me)) it.mentionsMe = true
      const media = imetaOf(m.event)
      if (media.length > 0) it.media = media
      this.items.set(m, it)
    }
    return it
  }

  /**
   * The group's thread dot: a thread has a reply not yet read, by its `thread:` mark or the reply's
   * own `msg:` mark, from any device (the client's `unreadThreads`).
   */
  private threadUnread(snap: GroupSnapshot): boolean {
    return snap.unreadThreads.length > 0
  }

  summary(): GroupSummary {
    const d = this.snapshot()
    return {
      key: d.key,
      id: d.id,
      relay: d.relay,
      name: d.name,
      picture: d.picture,
      unread: d.unread,
      mentions: d.mentions,
      notify: d.notify,
      threadUnread: d.threadUnread,
      access: d.access,
      requests: d.requests,
      ...(d.parent !== undefined ? { parent: d.parent } : {}),
      mayParent: d.mayParent,
    }
  }

  snapshot = (): GroupDetail => {
    const snap = this.group.snapshot()
    const frontier = this.marks().frontier(this.key)
    const sending = this.outbox.size
    const unconfirmed = this.group.outbox.list()
    if (
      this.last &&
      this.last.snap === snap &&
      this.last.frontier === frontier &&
      this.last.threadMarks === this.marksVersion &&
      this.last.sending === sending &&
      this.last.unconfirmed === unconfirmed
    )
      return this.last.detail
    const meta = snap.metadata ?? this.publicMeta()
    const adminEntries = snap.admins?.entries ?? []
    const admins = new Set(adminEntries.map((a) => a.pubkey))
    const members: Member[] = [
      ...adminEntries.map((a) => ({
        pubkey: a.pubkey,
        roles: [...a.roles],
        admin: this.group.isAdmin(a.pubkey),
      })),
      ...(snap.members?.entries ?? [])
        .filter((m) => !admins.has(m.pubkey))
        .map((m) => ({ pubkey: m.pubkey, roles: [...m.roles], admin: false })),
    ]
    const myAdmin = adminEntries.find((a) => a.pubkey === this.me)
    const status = snap.membership.status
    // Without metadata (a private group hides it from non-members) the client cannot know the
    // group is restricted; a refused, pending or removed member cannot write anyway.
    const blocked = !meta && (status === 'refused' || status === 'pending' || status === 'removed')
    const canSend: GroupDetail['canSend'] = blocked
      ? {
          ok: false,
          reason:
            status === 'refused' && snap.membership.status === 'refused'
              ? `The relay refused your join request: ${snap.membership.reason}`
              : (CAN_SEND_TEXT[status] ?? ''),
        }
      : snap.canSend.ok
        ? { ok: true }
        : {
            ok: false,
            reason:
              snap.canSend.reason === 'refused'
                ? `The relay refused your join request: ${snap.canSend.detail}`
                : snap.canSend.reason === 'unsupported-kind'
                  ? `This group does not take chat messages (${snap.canSend.detail}).`
                  : (CAN_SEND_TEXT[snap.canSend.reason] ?? snap.canSend.detail),
          }
    const detail: GroupDetail = {
      key: snap.key,
      id: snap.id,
      relay: snap.relay,
      name: cleanName(meta?.name ?? '') || cleanName(this.listName() ?? '') || snap.id,
      picture: meta?.picture,
      about: meta?.about === undefined ? undefined : tameMarks(meta.about),
      unread: snap.unread,
      mentions: snap.mentions,
      notify: this.notifyLevel(),
      threadUnread: this.threadUnread(snap),
      access: snap.membership,
      flags: {
        private: meta?.private ?? false,
        restricted: meta?.restricted ?? false,
        hidden: meta?.hidden ?? false,
        closed: meta?.closed ?? false,
        livekit: meta?.livekit ?? false,
      },
      members,
      membersKnown: snap.members !== undefined,
      metadataKnown: meta !== undefined,
      mayParent: myAdmin?.roles.some((r) => r.trim().toLowerCase() === 'admin') ?? false,
      me: myAdmin
        ? { admin: this.group.isAdmin(this.me), roles: [...myAdmin.roles] }
        : { admin: false, roles: [] },
      canSend,
      messages: this.withUnconfirmed(
        snap.messages.map((m) => this.item(m)),
        unconfirmed,
      ),
      sending,
      frontier: frontier > 0 ? frontier : undefined,
      hasOlder: snap.hasOlder,
      loadingOlder: this.loadingOlder,
      olderUnreachable: snap.olderUnreachable,
      lastInvite: this.lastInvite,
      refused: snap.refused,
      loading: snap.loading,
      requests: this.group.isAdmin(this.me) ? snap.joinRequests.length : 0,
      joinRequests: joinRequestItems(snap),
      reportsSeen: this.reportsSeen,
      roles: roleItems(snap),
      pins: [...snap.pins],
      children: [...(meta?.children ?? [])],
      ...(meta?.parent !== undefined ? { parent: meta.parent } : {}),
      share: shareLinks(this.group, typeof location === 'undefined' ? '' : location.origin),
    }
    this.last = { snap, frontier, threadMarks: this.marksVersion, sending, unconfirmed, detail }
    return detail
  }

  /** The row of one of our messages the relay has not confirmed, in the state it is in. */
  private sendItem(send: OutgoingSend): MessageItem | undefined {
    const state = send.state
    if (state.status === 'sent') return undefined
    let it = this.sendItems.get(state)
    if (!it) {
      const event = send.event
      const from = this.sendsFrom.get(send)
      it = {
        id: event?.id ?? `unsigned-${send.startedAt}`,
        pubkey: this.me,
        kind: KINDS.chat,
        content: event?.content ?? from?.draft.text ?? '',
        createdAt: event?.created_at ?? Math.floor(send.startedAt / 1000),
        replyTo: event?.tags.find((t) => t[0] === 'q' || t[0] === 'e')?.[1],
        reactions: [],
        ...(state.status === 'sending' ? { pending: true } : {}),
        send: { status: state.status, ...(state.status === 'failed' ? { reason: state.reason } : {}) },
      }
      if (event) {
        const media = imetaOf(event)
        if (media.length > 0) it.media = media
      }
      this.sendItems.set(state, it)
    }
    return it
  }

  /**
   * The timeline with our unconfirmed messages where they stand: each after the rows of its
   * second or before, oldest first (one the relay's copy already shows is not doubled).
   */
  private withUnconfirmed(rows: MessageItem[], sends: readonly OutgoingSend[]): MessageItem[] {
    if (sends.length === 0) return rows
    const ids = new Set(rows.map((r) => r.id))
    const out = [...rows]
    for (const send of sends) {
      const it = this.sendItem(send)
      if (!it || ids.has(it.id)) continue
      let at = out.length
      while (at > 0 && out[at - 1]!.createdAt > it.createdAt) at--
      out.splice(at, 0, it)
    }
    return out
  }

  private unconfirmed(id: string): OutgoingSend | undefined {
    return this.group.outbox.list().find((s) => this.sendItem(s)?.id === id)
  }

  retrySend(id: string): Promise<Answer> {
    const send = this.unconfirmed(id)
    if (!send) return Promise.resolve({ ok: true, message: '' })
    return send
      .retry()
      .then((s) =>
        s.status === 'failed' ? { ok: false, message: s.reason, shown: true } : { ok: true, message: '' },
      )
  }

  discardSend(id: string): void {
    const send = this.unconfirmed(id)
    if (send?.state.status === 'failed') send.discard()
  }

  message(id: string): MessageItem | undefined {
    const snap = this.group.snapshot()
    const row = snap.messages.find((m) => m.id === id)
    if (row) return this.item(row)
    for (const t of snap.threads) {
      const c = t.comments.find((m) => m.id === id)
      if (c) return this.item(c)
    }
    return undefined
  }

  thread(rootId: string): ThreadDetail | undefined {
    const t = this.group.thread(rootId)
    if (!t) return undefined
    return { root: this.item(t.root), replies: t.comments.map((c) => this.item(c)) }
  }

  private raw(id: string): Message | undefined {
    const snap = this.group.snapshot()
    return (
      snap.messages.find((m) => m.id === id) ??
      snap.threads.flatMap((t) => t.comments).find((m) => m.id === id)
    )
  }

  /** Runs an action that publishes, or fails at once while offline (no queue, decision 6). */
  private act(run: () => Promise<unknown>, okMessage = ''): Promise<Answer> {
    if (this.offline()) return Promise.resolve({ ok: false, message: OFFLINE_MESSAGE })
    return answer(run, okMessage).then((a) => withClockHint(a, this.clockAhead()))
  }

  send(text: string, replyTo?: string, media?: ImetaFields[]): Promise<Answer> {
    const target = replyTo ? (this.raw(replyTo) ?? replyTo) : undefined
    return this.act(() =>
      this.group.sendMessage(text, {
        ...(target ? { replyTo: target } : {}),
        ...(media?.length ? { media } : {}),
      }),
    )
  }

  post(box: string, draft: Draft, thread?: { root: string; parent: string }): Promise<Answer> {
    return this.outbox.post({ box, draft, ...(thread ? { thread } : {}) })
  }

  /** One queued message, as it leaves: mentions and shortcodes encoded, the files' URLs added. */
  private async sendOutgoing(message: Outgoing): Promise<Answer> {
    const { draft, thread } = message
    const text = await prepareDraft(draft.text, draft.mentions)
    const media = draft.media ?? []
    const body = [text, ...media.map((m) => m.url)].filter(Boolean).join('\n')
    if (thread) return this.reply(thread.root, thread.parent, body)
    return this.track(message, body, media)
  }

  /**
   * A channel message, tracked: answered once the relay took it or said no, or when no answer came
   * in time (then it shows as not confirmed and the next message may go). A refused one stays in
   * the timeline with its reason (`shown`); one that was never signed goes back to its box.
   */
  private async track(from: Outgoing, body: string, media: readonly ImetaFields[]): Promise<Answer> {
    if (this.offline()) return { ok: false, message: OFFLINE_MESSAGE }
    const { replyTo } = from.draft
    const target = replyTo ? (this.raw(replyTo) ?? replyTo) : undefined
    let send: OutgoingSend
    try {
      send = this.group.send(body, {
        ...(target ? { replyTo: target } : {}),
        ...(media.length ? { media: [...media] } : {}),
      })
    } catch (err) {
      return toAnswer(err)
    }
    this.sendsFrom.set(send, from)
    const state = await send.answered()
    if (state.status !== 'failed') return { ok: true, message: '' }
    if (!state.event) send.discard() // never signed: its text goes back to the box
    return { ok: false, message: state.reason, shown: state.event !== undefined }
  }

  /** The page is going away: queued messages that have not left, and failed ones, go back to their drafts. */
  pageHidden(): void {
    this.outbox.keepWaiting()
    this.keepFailed()
  }

  /** Failed messages shown in the timeline go back to their boxes, so a reload does not lose them. */
  private keepFailed(): void {
    for (const send of this.group.outbox.list()) {
      const from = this.sendsFrom.get(send)
      if (send.state.status !== 'failed' || !from) continue
      this.drafts.restore(from.box, [from.draft], send.state.reason)
      send.discard()
    }
  }

  react(target: MessageItem, emoji: string): Promise<Answer> {
    const raw = this.raw(target.id)
    if (!raw) return Promise.resolve({ ok: false, message: 'That message is no longer loaded.' })
    return this.act(() => this.group.react(raw, emoji))
  }

  startThread(title: string, content: string): Promise<Answer> {
    return this.act(() => this.group.postThread(title, content))
  }

  reply(rootId: string, parentId: string, text: string): Promise<Answer> {
    const t = this.group.thread(rootId)
    if (!t) return Promise.resolve({ ok: false, message: 'That thread is no longer loaded.' })
    const parent = t.comments.find((c) => c.id === parentId) ?? t.root
    return this.act(() => this.group.comment(t.root, parent, text))
  }

  async loadOlder(): Promise<void> {
    if (this.loadingOlder) return
    this.loadingOlder = true
    this.last = undefined
    this.emit()
    try {
      await this.group.loadOlder(100)
    } catch {
      // The relay may be away; the button stays and scrolling retries.
    } finally {
      this.loadingOlder = false
      this.last = undefined
      this.emit()
    }
  }

  markRead(createdAt: number): void {
    if (createdAt > this.marks().frontier(this.key)) this.group.markRead(createdAt)
  }

  /** Everything in the group up to now is read: the same mark as reading to the end, on every device. */
  markAllRead(): void {
    const newest = this.group.snapshot().messages.at(-1)?.createdAt ?? 0
    this.markRead(Math.max(newest, Math.floor(Date.now() / 1000)))
  }

  markThreadRead(rootId: string, createdAt: number): void {
    const ctx = threadContext(rootId)
    if (createdAt > this.marks().frontier(ctx)) this.marks().markRead(ctx, createdAt)
  }

  markMessageRead(id: string): void {
    // Our own replies are never unread to us: a mark for them would only grow the synced blob.
    if (this.group.event(id)?.pubkey === this.me) return
    this.group.markMessageRead(id)
  }

  retryJoin(code?: string): Promise<Answer> {
    return this.join(code)
  }

  editMetadata(fields: {
    name?: string
    about?: string
    picture?: string
    private?: boolean
    closed?: boolean
    restricted?: boolean
    hidden?: boolean
  }) {
    return this.act(() => this.group.admin.editMetadata(fields), 'Saved.')
  }

  async createInvite(terms: InviteTerms = {}): Promise<InviteAnswer> {
    if (this.offline()) return { ok: false, message: OFFLINE_MESSAGE }
    try {
      const { code, link } = await this.group.admin.createInvite(undefined, terms)
      this.lastInvite = code
      return { ok: true, message: '', code, link: link ?? `${this.key}?invite=${code}`, ...terms }
    } catch (err) {
      return toAnswer(err)
    }
  }

  report(subject: ReportSubject, type: ReportType, reason: string): Promise<Answer> {
    const target = 'person' in subject ? subject.person : this.raw(subject.message)
    if (!target) return Promise.resolve({ ok: false, message: 'That message is no longer loaded.' })
    return this.act(() => this.group.report(target, { type, reason }), 'Report sent.')
  }

  async reports(): Promise<ReportItem[]> {
    this.openReports = await loadReports(this.fetchHere, this.group.key.id.value)
    return this.openReports
  }

  resolveReport(report: ReportItem, action: ReportAction): Promise<Answer> {
    const done = {
      delete: 'Message deleted.',
      remove: 'Removed from the group.',
      dismiss: 'Report dismissed.',
    }
    const closing = closedBy(report, action, this.openReports)
    return this.act(async () => {
      if (action === 'delete' && report.eventId) await this.group.deleteEvent(report.eventId, 'reported')
      if (action === 'remove') await this.group.admin.removeUser(report.pubkey, 'reported')
      // The reports the action answered are closed for every admin: deleted on the relay (one
      // another admin closed meanwhile is gone already).
      for (const id of closing)
        await this.group.deleteEvent(id).catch((err: unknown) => {
          if (!(err instanceof Error && err.message.includes('none of the targets exist'))) throw err
        })
      this.openReports = this.openReports.filter((r) => !closing.includes(r.id))
    }, done[action])
  }

  /**
   * Removes a member (9001). An admin's roles are taken first (a 9000 without roles), so no relay
   * keeps them for a later return; one step for the person who asked.
   */
  removeMember(pubkey: string): Promise<Answer> {
    const roles = this.group.snapshot().admins?.entries.find((a) => a.pubkey === pubkey)?.roles ?? []
    return this.act(async () => {
      if (roles.length > 0) await this.group.admin.putUser(pubkey, [])
      await this.group.admin.removeUser(pubkey)
    })
  }

  deleteMessage(id: string): Promise<Answer> {
    return this.act(() => this.group.deleteEvent(id), 'Message deleted.')
  }

  /** A LiveKit token for the group's call, or the relay's refusal (see `call-answer.ts`). */
  call(): Promise<CallAnswer> {
    return callAnswer(() => this.group.callToken())
  }

  deleteOwn(id: string): Promise<Answer> {
    const raw = this.raw(id)
    if (!raw) return Promise.resolve({ ok: false, message: 'That message is no longer loaded.' })
    return this.act(() => this.group.deleteOwn(raw), 'Message deleted.')
  }

  unreact(target: MessageItem, emoji: string): Promise<Answer> {
    return this.act(() => this.group.unreact(target.id, emoji))
  }

  approve(pubkey: string): Promise<Answer> {
    return this.act(() => this.group.admin.putUser(pubkey), 'Approved.')
  }

  dismiss(pubkey: string): Promise<void> {
    return this.group.admin.dismissJoinRequest(pubkey).catch(() => undefined)
  }

  setRoles(pubkey: string, roles: string[]): Promise<Answer> {
    return this.act(() => this.group.admin.putUser(pubkey, roles), 'Roles saved.')
  }

  pin(id: string, pinned: boolean): Promise<Answer> {
    const next = togglePin(this.group.pins(), id, pinned)
    return this.act(() => this.group.setPins(next), pinned ? 'Pinned.' : 'Unpinned.')
  }

  deleteGroup(): Promise<Answer> {
    return this.act(async () => {
      await this.group.admin.deleteGroup()
      await this.removeHere()
    }, 'Group deleted.')
  }

  moveUnder(parent: string | undefined): Promise<Answer> {
    return this.act(() => this.group.admin.editMetadata({ parent }), 'Moved.')
  }

  close(): void {
    this.outbox.keepWaiting()
    this.keepFailed()
    for (const u of this.unsubscribe) u()
    this.listeners.clear()
  }
}
