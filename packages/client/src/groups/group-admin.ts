import type { GroupKey, GroupMetadata, GroupMetadataFields, JoinRequest } from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'
import type { GroupPublisher } from './publisher'
import type { InviteTerms } from './writes'

/** What {@link GroupAdmin} needs from its group. */
export interface AdminContext {
  readonly key: GroupKey
  /** `created_at` of an event sent now. */
  readonly clock: () => number
  readonly publisher: GroupPublisher
  /** The metadata as folded now (for `editMetadata` and invite links). */
  metadata(): GroupMetadata | undefined
  /** The open join requests (as `Group.joinRequests()`). */
  joinRequests(): readonly JoinRequest[]
  /** Hides a request on this device (`group-requests.ts`). */
  dismiss(request: JoinRequest): Promise<void>
}

/**
 * Administering one group, reached as `group.admin`: who is in it and with what roles, what it is
 * called and how it may be joined (metadata, invites, join requests), and whether it exists. Each
 * act signs now, goes to the group's relay with fresh `previous` references and resolves on its OK
 * (or throws its refusal as a typed error); the relay decides who may. A moderator's acts in the
 * channel (`group.deleteEvent`, `group.setPins`) and the request list (`group.joinRequests()`) stay
 * on the group.
 *
 * @example
 * const club = await roost.groups.create('wss://groups.example.com', { name: 'Book club', closed: true })
 * await club.admin.putUser(pubkey, ['moderator'])
 * const { link } = await club.admin.createInvite()
 */
export class GroupAdmin {
  readonly #ctx: AdminContext

  /** @internal made by the group's core; reach it as `group.admin`. */
  constructor(ctx: AdminContext) {
    this.#ctx = ctx
  }

  #publish(build: (previous: string[] | undefined) => EventTemplate): Promise<NostrEvent> {
    return this.#ctx.publisher.publish(build)
  }

  /**
   * Adds a member, or sets the roles of one (kind 9000). Approves a join request too.
   * @example await group.admin.putUser(request.pubkey)
   */
  async putUser(pubkey: string, roles?: readonly string[], reason?: string): Promise<NostrEvent> {
    return this.#publish((previous) =>
      this.#ctx.key.id.putUser(pubkey, roles, { previous, reason, createdAt: this.#ctx.clock() }),
    )
  }

  /**
   * Removes a member (kind 9001).
   * @example await group.admin.removeUser(pubkey, 'spam')
   */
  async removeUser(pubkey: string, reason?: string): Promise<NostrEvent> {
    return this.#publish((previous) =>
      this.#ctx.key.id.removeUser(pubkey, { previous, reason, createdAt: this.#ctx.clock() }),
    )
  }

  /**
   * Edits the metadata (kind 9002). Relays differ on whether a 9002 patches or replaces, so the
   * full positive field set is sent: fields left out here are re-sent from the current metadata,
   * `parent` and the `child` list included (`{ parent: undefined }` makes the group a root).
   * @example await group.admin.editMetadata({ about: 'Monthly' })
   */
  async editMetadata(fields: GroupMetadataFields, reason?: string): Promise<NostrEvent> {
    const m = this.#ctx.metadata()
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
    return this.#publish((previous) =>
      this.#ctx.key.id.editMetadata(merged, { previous, reason, createdAt: this.#ctx.clock() }),
    )
  }

  /**
   * Creates an invite code (kind 9009) and resolves with the naddr link that carries it, or with
   * the bare code when the relay published no 39000 yet. `terms`: how many joins it admits
   * (`uses`, default one; `'unlimited'`) and until when (`expiresAt`, unix seconds), for relays
   * that honour them.
   * @example const { link } = await group.admin.createInvite() // naddr1…?invite=<code>
   * @example await group.admin.createInvite(undefined, { uses: 25, expiresAt: now + 7 * 86400 })
   */
  async createInvite(
    code: string = randomCode(),
    terms: InviteTerms = {},
  ): Promise<{
    /** The invite code, to type in or pass to `roost.groups.join(key, { code })`. */
    code: string
    /** An `naddr1…?invite=<code>` link to share; undefined until the relay published the group's 39000. */
    link: string | undefined
  }> {
    await this.#publish((previous) =>
      this.#ctx.key.id.createInvite(code, { ...terms, previous, createdAt: this.#ctx.clock() }),
    )
    const meta = this.#ctx.metadata()
    return { code, link: meta ? meta.naddr(this.#ctx.key.relay, code) : undefined }
  }

  /**
   * Hides `pubkey`'s current join request on this device, remembered across restarts (nothing is
   * sent: the requester stays pending). A newer request from them shows again.
   * @example await group.admin.dismissJoinRequest(request.pubkey)
   */
  async dismissJoinRequest(pubkey: string): Promise<void> {
    const request = this.#ctx.joinRequests().find((r) => r.pubkey === pubkey)
    if (request) await this.#ctx.dismiss(request)
  }

  /**
   * Deletes the whole group (kind 9008, admins with the permission). The relay drops it; follow
   * with `roost.groups.remove(group.key)` to drop it here.
   * @example await group.admin.deleteGroup(); await roost.groups.remove(group.key)
   */
  async deleteGroup(reason?: string): Promise<NostrEvent> {
    return this.#publish((previous) =>
      this.#ctx.key.id.deleteGroup({ previous, reason, createdAt: this.#ctx.clock() }),
    )
  }
}

/** 16 random lowercase hex characters, for invite codes. */
export function randomCode(bytes = 8): string {
  const b = new Uint8Array(bytes)
  globalThis.crypto.getRandomValues(b)
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('')
}
