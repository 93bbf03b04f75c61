import {
  contentMentions,
  type GroupKey,
  type ImetaFields,
  InvalidArgumentError,
  type InviteOptions,
  KINDS,
  type ReportTarget,
  type ReportType,
} from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'
import { CannotSendError } from '../errors'
import { type OwnTarget, ownDeletion } from './delete-own'
import type { OutgoingSend } from './outbox'
import { pinList } from './pins'
import type { GroupPublisher } from './publisher'
import type { CanSend, Message } from './types'

/** What the writes need from their group. */
export interface WritesContext {
  readonly key: GroupKey
  readonly me: string
  /** `created_at` of an event sent now. */
  readonly clock: () => number
  readonly publisher: GroupPublisher
  canSend(kind: number): CanSend
  /** Our own live reactions to an event, with `emoji`. */
  myReactions(targetId: string, emoji: string): readonly NostrEvent[]
}

type Target = Message | NostrEvent | string

/** The terms of an invite code (see `GroupId.createInvite`). @example { uses: 25, expiresAt: now + 86400 } */
export type InviteTerms = Pick<InviteOptions, 'uses' | 'expiresAt'>

/** What `report` takes: the NIP-56 type and, optionally, why. @example { type: 'spam', reason: 'ads' } */
export interface ReportOptions {
  /** What kind of problem (NIP-56: `spam`, `illegal`, `impersonation`, …). */
  type: ReportType
  /** Free text for the admins, sent as the report's content; empty when undefined. */
  reason?: string
}

/**
 * What `sendMessage` takes besides the text.
 * @example await group.sendMessage('see above', { replyTo: parent, mentions: [bob] })
 */
export interface SendOptions {
  /** The messages this one replies to or quotes (rows, events or ids). */
  replyTo?: Message | NostrEvent | string | readonly (Message | NostrEvent | string)[]
  /** People to `p`-tag besides those the content mentions with `nostr:npub…` (always tagged). */
  mentions?: readonly string[]
  /** Attached files, one NIP-92 `imeta` tag each (see `uploadBlob`). */
  media?: readonly ImetaFields[]
}

/**
 * The root a NIP-22 comment names (its `E`, `K` and `P` tags): all a comment on it needs.
 * @throws {InvalidArgumentError} when the comment names no root.
 */
export function commentRoot(comment: NostrEvent): NostrEvent {
  const tag = (name: string) => comment.tags.find((t) => t[0] === name)
  const [, id, , author] = tag('E') ?? []
  const pubkey = author || tag('P')?.[1]
  if (!id || !pubkey)
    throw new InvalidArgumentError('target', 'the comment names no root (NIP-22 E and P tags)')
  const kind = Number(tag('K')?.[1]) || KINDS.thread
  return { id, pubkey, kind, created_at: 0, tags: [], content: '', sig: '' }
}

/**
 * What a member writes in one group's channel: messages, reactions, threads and comments, the
 * withdrawal of their own events (NIP-09), and the moderators' channel acts (a 9005 deletion, the
 * pin list). Each goes through the group's {@link GroupPublisher}.
 */
export class GroupWrites {
  constructor(private readonly ctx: WritesContext) {}

  private assertCanSend(kind: number): void {
    const can = this.ctx.canSend(kind)
    if (!can.ok) throw new CannotSendError(can.reason, can.detail)
  }

  private publish(build: (previous: string[] | undefined) => EventTemplate): Promise<NostrEvent> {
    return this.ctx.publisher.publish(build)
  }

  async sendMessage(content: string, opts: SendOptions = {}): Promise<NostrEvent> {
    return this.publish(this.message(content, opts))
  }

  /** Like `sendMessage`, tracked: the send's state, kept in the group's outbox until sent. */
  send(content: string, opts: SendOptions = {}): OutgoingSend {
    return this.ctx.publisher.track(this.message(content, opts))
  }

  /** Checks that we may write, then makes the kind 9's builder. */
  private message(content: string, opts: SendOptions): (previous: string[] | undefined) => EventTemplate {
    const { key } = this.ctx
    this.assertCanSend(KINDS.chat)
    // NIP-27: one `p` tag per person the content mentions, so they are notified.
    const mentions = [...new Set([...(opts.mentions ?? []), ...contentMentions(content)])]
    const targets =
      opts.replyTo === undefined ? [] : Array.isArray(opts.replyTo) ? opts.replyTo : [opts.replyTo]
    const replyTo = (targets as Target[]).map((t) =>
      typeof t === 'string' ? t : { id: t.id, pubkey: t.pubkey, relay: key.relay, kind: t.kind },
    )
    return (previous) =>
      key.id.message(content, {
        ...(replyTo.length ? { replyTo } : {}),
        ...(mentions.length ? { mentions } : {}),
        ...(opts.media?.length ? { media: opts.media } : {}),
        previous,
        createdAt: this.ctx.clock(),
      })
  }

  async react(target: Message | NostrEvent, emoji: string): Promise<NostrEvent> {
    this.assertCanSend(KINDS.reaction)
    return this.publish((previous) =>
      this.ctx.key.id.reaction({ id: target.id, pubkey: target.pubkey, kind: target.kind }, emoji, {
        previous,
        createdAt: this.ctx.clock(),
      }),
    )
  }

  async postThread(title: string, content: string): Promise<NostrEvent> {
    this.assertCanSend(KINDS.thread)
    return this.publish((previous) =>
      this.ctx.key.id.thread(title, content, { previous, createdAt: this.ctx.clock() }),
    )
  }

  async comment(
    root: Message | NostrEvent,
    parent: Message | NostrEvent,
    content: string,
  ): Promise<NostrEvent> {
    this.assertCanSend(KINDS.comment)
    const r = 'event' in root ? root.event : root
    const p = 'event' in parent ? parent.event : parent
    const { key } = this.ctx
    return this.publish((previous) =>
      key.id.comment(r, p, content, { previous, createdAt: this.ctx.clock(), relay: key.relay }),
    )
  }

  /**
   * Answers `target` the way its kind asks for: a kind 11 thread gets a kind 1111 comment with the
   * thread as root and parent; a kind 1111 comment gets a comment in the same thread (its root from
   * its `E`/`K`/`P` tags) with the comment as parent; anything else (kind 9, kind 1) a kind 9
   * message replying to it, as `sendMessage(text, { replyTo: target })` sends.
   */
  async reply(target: Message | NostrEvent, content: string): Promise<NostrEvent> {
    const event = 'event' in target ? target.event : target
    if (event.kind === KINDS.thread) return this.comment(event, event, content)
    if (event.kind === KINDS.comment) return this.comment(commentRoot(event), event, content)
    return this.sendMessage(content, { replyTo: event })
  }

  async deleteOwn(target: OwnTarget, reason?: string): Promise<NostrEvent> {
    const { key, me } = this.ctx
    ownDeletion(key, me, target, { previous: undefined, createdAt: 0 }) // refuse before signing
    return this.publish((previous) =>
      ownDeletion(key, me, target, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  async unreact(target: Message | NostrEvent | string, emoji: string): Promise<NostrEvent[]> {
    const id = typeof target === 'string' ? target : target.id
    const out: NostrEvent[] = []
    for (const reaction of this.ctx.myReactions(id, emoji)) out.push(await this.deleteOwn(reaction))
    return out
  }

  // ── the moderators' channel acts (the relay is the enforcer) ──────────────────────────────

  async deleteEvent(eventId: string, reason?: string): Promise<NostrEvent> {
    return this.publish((previous) =>
      this.ctx.key.id.deleteEvent(eventId, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  async report(target: Target, opts: ReportOptions): Promise<NostrEvent> {
    this.assertCanSend(KINDS.report)
    const named: ReportTarget =
      typeof target === 'string' ? { pubkey: target } : { event: { id: target.id, pubkey: target.pubkey } }
    return this.publish((previous) =>
      this.ctx.key.id.report(named, { ...opts, previous, createdAt: this.ctx.clock() }),
    )
  }

  async setPins(refs: readonly string[]): Promise<NostrEvent> {
    return this.publish((previous) => pinList(this.ctx.key, refs, { previous, createdAt: this.ctx.clock() }))
  }
}
