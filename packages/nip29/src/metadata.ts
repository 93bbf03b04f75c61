import type { NostrEvent } from 'nostr-tools'
import { KINDS } from './kinds'
import type { GroupMetadataFields } from './moderation-builders'
import { encodeGroupNaddr } from './naddr'
import { normalizeRelayUrl } from './relay-url'
import { checkStateEvent, type StateParseOptions } from './state-event'

type MetadataInit = Omit<GroupMetadata, 'supports' | 'naddr' | 'toFields'>

/**
 * A group's kind 39000 metadata, signed by the relay. Parses every tag of the current spec;
 * value-less flags count by presence; the legacy `public`/`open` tags and unknown tags are ignored
 * (absence of `private` is public, absence of `closed` is open).
 *
 * @example
 * const metadata = GroupMetadata.parse(event)
 * if (!metadata.supports(KINDS.chat)) disableComposer()
 * const invite = metadata.naddr(key.relay, 'welcome')
 */
export class GroupMetadata implements GroupMetadataFields {
  /** The group id (`d` tag). */
  readonly id: string
  /** The event's author: the relay key that signs this group's state. */
  readonly relayKey: string
  /** When the relay signed this 39000, Unix seconds. */
  readonly createdAt: number
  /** The group's name. */
  readonly name?: string
  /** A picture URL. */
  readonly picture?: string
  /** A banner image URL. */
  readonly banner?: string
  /** A description. */
  readonly about?: string
  /** Only members can read. */
  readonly private: boolean
  /** Only members can write. */
  readonly restricted: boolean
  /** The relay hides the metadata from non-members. */
  readonly hidden: boolean
  /** Join requests need an invite code. */
  readonly closed: boolean
  /** Audio/video rooms are available. */
  readonly livekit: boolean
  /** The parent group's id (subgroups). */
  readonly parent?: string
  /** The ordered child group ids. */
  readonly children: string[]
  /** `undefined`: all kinds (no tag). `[]`: none (the tag with no values). */
  readonly supportedKinds?: number[]

  private constructor(init: MetadataInit) {
    this.id = init.id
    this.relayKey = init.relayKey
    this.createdAt = init.createdAt
    if (init.name !== undefined) this.name = init.name
    if (init.picture !== undefined) this.picture = init.picture
    if (init.banner !== undefined) this.banner = init.banner
    if (init.about !== undefined) this.about = init.about
    this.private = init.private
    this.restricted = init.restricted
    this.hidden = init.hidden
    this.closed = init.closed
    this.livekit = init.livekit
    if (init.parent !== undefined) this.parent = init.parent
    this.children = init.children
    if (init.supportedKinds !== undefined) this.supportedKinds = init.supportedKinds
  }

  /**
   * @throws {InvalidEventError} for another kind, a missing `d` tag, or (with `opts.relayKey`)
   * another author.
   * @example GroupMetadata.parse(event).name
   */
  static parse(event: NostrEvent, opts?: StateParseOptions): GroupMetadata {
    const e = checkStateEvent(event, KINDS.metadata, opts)
    const first = (name: string): string | undefined => e.tags.find((t) => t[0] === name)?.[1]
    const has = (name: string): boolean => e.tags.some((t) => t[0] === name)
    let supportedKinds: number[] | undefined
    for (const tag of e.tags) {
      if (tag[0] !== 'supported_kinds') continue
      supportedKinds ??= []
      for (const v of tag.slice(1)) {
        const k = /^\d{1,10}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN
        if (Number.isSafeInteger(k) && !supportedKinds.includes(k)) supportedKinds.push(k)
      }
    }
    const children: string[] = []
    for (const tag of e.tags) {
      const child = tag[1]
      if (tag[0] === 'child' && child !== undefined && child !== '' && !children.includes(child))
        children.push(child)
    }
    const parent = first('parent')
    return new GroupMetadata({
      id: e.id,
      relayKey: e.pubkey,
      createdAt: e.createdAt,
      name: first('name'),
      picture: first('picture'),
      banner: first('banner'),
      about: first('about'),
      private: has('private'),
      restricted: has('restricted'),
      hidden: has('hidden'),
      closed: has('closed'),
      livekit: has('livekit'),
      parent: parent === '' ? undefined : parent,
      children,
      supportedKinds,
    })
  }

  /**
   * Whether the group takes events of `kind`: true when `supported_kinds` is absent.
   * @example metadata.supports(9)
   */
  supports(kind: number): boolean {
    return this.supportedKinds === undefined || this.supportedKinds.includes(kind)
  }

  /**
   * The group's canonical reference: an naddr of kind 39000 by the relay key, with the relay
   * hint and an optional `?invite=` code.
   * @example metadata.naddr('wss://groups.example.com', 'welcome') // 'naddr1…?invite=welcome'
   */
  naddr(relay: string, invite?: string): string {
    return encodeGroupNaddr(this.id, normalizeRelayUrl(relay), this.relayKey, invite)
  }

  /**
   * The positive fields, ready for a full-replace 9002.
   * @example id.editMetadata({ ...metadata.toFields(), about: 'new text' })
   */
  toFields(): GroupMetadataFields {
    const fields: GroupMetadataFields = {}
    if (this.name !== undefined) fields.name = this.name
    if (this.picture !== undefined) fields.picture = this.picture
    if (this.banner !== undefined) fields.banner = this.banner
    if (this.about !== undefined) fields.about = this.about
    for (const flag of ['private', 'restricted', 'hidden', 'closed', 'livekit'] as const) {
      if (this[flag]) fields[flag] = true
    }
    if (this.supportedKinds !== undefined) fields.supportedKinds = [...this.supportedKinds]
    if (this.parent !== undefined) fields.parent = this.parent
    if (this.children.length > 0) fields.children = [...this.children]
    return fields
  }
}
