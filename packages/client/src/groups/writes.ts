import {
  contentMentions,
  type GroupKey,
  type GroupMetadata,
  type GroupMetadataFields,
  type ImetaFields,
  type InviteOptions,
  KINDS,
  type ReportTarget,
  type ReportType,
} from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'
import { CannotSendError } from '../errors'
import type { PublishResult, RelayPool } from '../pool'
import type { Signer } from '../signers'
import { type OwnTarget, ownDeletion } from './delete-own'
import { pinList } from './pins'
import type { PreviousWindow } from './previous-window'
import { isPreviousRejection, publishError } from './publish-errors'
import type { CanSend, Message } from './types'

/** What the writes need from their group. */
export interface WritesContext {
  readonly key: GroupKey
  readonly pool: RelayPool
  readonly signer: Signer
  readonly me: string
  readonly clock: () => number
  readonly publishTimeout?: number
  /** The group's `previous` window (decision 4), as of now. */
  readonly window: Pick<PreviousWindow, 'previousTag'>
  /** The metadata as folded now (for `editMetadata` and invite links). */
  metadata(): GroupMetadata | undefined
  canSend(kind: number): CanSend
  /** Folds our own accepted event in, so it shows at once. */
  ingest(event: NostrEvent): void
  /** Rebuilds the `previous` window from the relay. */
  refreshWindow(): Promise<void>
}

type Target = Message | NostrEvent | string

/** The terms of an invite code (see `GroupId.createInvite`). @example { uses: 25, expiresAt: now + 86400 } */
export type InviteTerms = Pick<InviteOptions, 'uses' | 'expiresAt'>

/**
 * Every event a user or admin writes to one group: signed with the account's signer, sent to the
 * group's relay only with fresh `previous` references (decision 4), resolving when the relay says
 * OK (the event is then ingested) or throwing its refusal as a typed error.
 */
export class GroupWrites {
  constructor(private readonly ctx: WritesContext) {}

  /** The publish deadline in ms. */
  get timeout(): number {
    return this.ctx.publishTimeout ?? this.ctx.pool.publishTimeout
  }

  private async publishOnce(template: EventTemplate): Promise<{ event: NostrEvent; result: PublishResult }> {
    const event = await this.ctx.signer.signEvent(template)
    const [result] = await this.ctx.pool.publish([this.ctx.key.relay], event, { timeout: this.timeout })
    return { event, result: result! }
  }

  /**
   * Signs and sends a user event built with fresh `previous` references, retrying once with a
   * refreshed window when the relay says a reference was not found (decision 4).
   */
  private async publishWithPrevious(
    build: (previous: string[] | undefined) => EventTemplate,
  ): Promise<NostrEvent> {
    const { window, me } = this.ctx
    // The window is read now, synchronously: what we have seen when the user pressed send.
    let attempt = await this.publishOnce(build(window.previousTag(me)))
    if (!attempt.result.ok && !attempt.result.timedOut && isPreviousRejection(attempt.result.message)) {
      const named = [...attempt.result.message.matchAll(/'([0-9a-f]{1,64})'/g)].map((m) => m[1]!)
      await this.ctx.refreshWindow()
      const fresh = window.previousTag(me)?.filter((v) => !named.includes(v))
      attempt = await this.publishOnce(build(fresh && fresh.length > 1 ? fresh : undefined))
    }
    if (!attempt.result.ok) throw publishError(attempt.result, this.timeout)
    this.ctx.ingest(attempt.event)
    return attempt.event
  }

  private assertCanSend(kind: number): void {
    const can = this.ctx.canSend(kind)
    if (!can.ok) throw new CannotSendError(can.reason, can.detail)
  }

  async sendMessage(
    content: string,
    opts: {
      replyTo?: Target | readonly Target[]
      mentions?: readonly string[]
      media?: readonly ImetaFields[]
    } = {},
  ): Promise<NostrEvent> {
    const { key } = this.ctx
    this.assertCanSend(KINDS.chat)
    // NIP-27: one `p` tag per person the content mentions, so they are notified.
    const mentions = [...new Set([...(opts.mentions ?? []), ...contentMentions(content)])]
    const targets =
      opts.replyTo === undefined ? [] : Array.isArray(opts.replyTo) ? opts.replyTo : [opts.replyTo]
    const replyTo = (targets as Target[]).map((t) =>
      typeof t === 'string' ? t : { id: t.id, pubkey: t.pubkey, relay: key.relay },
    )
    return this.publishWithPrevious((previous) =>
      key.id.message(content, {
        ...(replyTo.length ? { replyTo } : {}),
        ...(mentions.length ? { mentions } : {}),
        ...(opts.media?.length ? { media: opts.media } : {}),
        previous,
        createdAt: this.ctx.clock(),
      }),
    )
  }

  async react(target: Message | NostrEvent, emoji: string): Promise<NostrEvent> {
    this.assertCanSend(KINDS.reaction)
    return this.publishWithPrevious((previous) =>
      this.ctx.key.id.reaction({ id: target.id, pubkey: target.pubkey, kind: target.kind }, emoji, {
        previous,
        createdAt: this.ctx.clock(),
      }),
    )
  }

  async postThread(title: string, content: string): Promise<NostrEvent> {
    this.assertCanSend(KINDS.thread)
    return this.publishWithPrevious((previous) =>
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
    return this.publishWithPrevious((previous) =>
      key.id.comment(r, p, content, { previous, createdAt: this.ctx.clock(), relay: key.relay }),
    )
  }

  // ── moderation (admins; the relay is the enforcer) ────────────────────────────────────────

  async putUser(pubkey: string, roles?: readonly string[], reason?: string): Promise<NostrEvent> {
    return this.publishWithPrevious((previous) =>
      this.ctx.key.id.putUser(pubkey, roles, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  async removeUser(pubkey: string, reason?: string): Promise<NostrEvent> {
    return this.publishWithPrevious((previous) =>
      this.ctx.key.id.removeUser(pubkey, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  async editMetadata(fields: GroupMetadataFields, reason?: string): Promise<NostrEvent> {
    const m = this.ctx.metadata()
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
          livekit: m.livekit,
          ...(m.supportedKinds ? { supportedKinds: m.supportedKinds } : {}),
          // A 9002 without `parent` makes the group a root, and one on a parent must list every
          // child: both are kept unless `fields` changes them.
          ...(m.parent !== undefined ? { parent: m.parent } : {}),
          ...(m.children.length ? { children: m.children } : {}),
        }
      : {}
    const merged = Object.fromEntries(
      Object.entries({ ...current, ...fields }).filter(([, v]) => v !== undefined),
    ) as GroupMetadataFields
    return this.publishWithPrevious((previous) =>
      this.ctx.key.id.editMetadata(merged, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  async deleteEvent(eventId: string, reason?: string): Promise<NostrEvent> {
    return this.publishWithPrevious((previous) =>
      this.ctx.key.id.deleteEvent(eventId, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  async deleteOwn(target: OwnTarget, reason?: string): Promise<NostrEvent> {
    const { key, me } = this.ctx
    ownDeletion(key, me, target, { previous: undefined, createdAt: 0 }) // refuse before signing
    return this.publishWithPrevious((previous) =>
      ownDeletion(key, me, target, { previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  async deleteGroup(reason?: string): Promise<NostrEvent> {
    return this.publishWithPrevious((previous) =>
      this.ctx.key.id.deleteGroup({ previous, reason, createdAt: this.ctx.clock() }),
    )
  }

  async report(target: Target, opts: { type: ReportType; reason?: string }): Promise<NostrEvent> {
    this.assertCanSend(KINDS.report)
    const named: ReportTarget =
      typeof target === 'string' ? { pubkey: target } : { event: { id: target.id, pubkey: target.pubkey } }
    return this.publishWithPrevious((previous) =>
      this.ctx.key.id.report(named, { ...opts, previous, createdAt: this.ctx.clock() }),
    )
  }

  async setPins(refs: readonly string[]): Promise<NostrEvent> {
    return this.publishWithPrevious((previous) =>
      pinList(this.ctx.key, refs, { previous, createdAt: this.ctx.clock() }),
    )
  }

  async createInvite(
    code: string,
    terms: InviteTerms = {},
  ): Promise<{ code: string; link: string | undefined }> {
    await this.publishWithPrevious((previous) =>
      this.ctx.key.id.createInvite(code, { ...terms, previous, createdAt: this.ctx.clock() }),
    )
    const meta = this.ctx.metadata()
    return { code, link: meta ? meta.naddr(this.ctx.key.relay, code) : undefined }
  }
}

/** 16 random lowercase hex characters, for invite codes. */
export function randomCode(bytes = 8): string {
  const b = new Uint8Array(bytes)
  globalThis.crypto.getRandomValues(b)
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('')
}
