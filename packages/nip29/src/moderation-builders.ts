import type { EventTemplate } from 'nostr-tools'
import { InvalidArgumentError } from './errors'
import { assertHex64 } from './hex'
import { KINDS } from './kinds'
import { groupTemplate, type ModerationOptions } from './template'

/**
 * The positive metadata fields of a group, as a 9002 carries them and a 39000 reports them.
 * An absent flag means its default (public, unrestricted, visible, open, no LiveKit).
 * `supportedKinds`: `undefined` means "all kinds" (no tag); `[]` means none (an AV-only group).
 *
 * @example id.editMetadata({ name: 'Pizza', closed: true, supportedKinds: [9, 11, 1111, 7] })
 */
export interface GroupMetadataFields {
  /** The group's name. */
  name?: string
  /** A picture URL. */
  picture?: string
  /** A banner image URL. */
  banner?: string
  /** A description. */
  about?: string
  /** Only members can read it. */
  private?: boolean
  /** Only members can write to it. */
  restricted?: boolean
  /** Its metadata is hidden from non-members. */
  hidden?: boolean
  /** Joining needs an invite code or an admin's approval. */
  closed?: boolean
  /** The group has audio/video rooms. */
  livekit?: boolean
  /** The kinds the group accepts; absent means every kind. */
  supportedKinds?: readonly number[]
  /** The parent group's id (subgroups); absent makes the group a root. */
  parent?: string
  /** The ordered child ids (a 9002 on a parent must list all of them). */
  children?: readonly string[]
}

const FLAGS = ['private', 'restricted', 'hidden', 'closed', 'livekit'] as const

/** The 39000/9002 tags for `fields`, in the spec's example order (without `d` or `h`). */
export function metadataTags(fields: GroupMetadataFields): string[][] {
  const tags: string[][] = []
  for (const name of ['name', 'picture', 'banner', 'about'] as const) {
    const value = fields[name]
    if (value !== undefined) {
      if (typeof value !== 'string') throw new InvalidArgumentError(name, `${name} must be a string`)
      tags.push([name, value])
    }
  }
  for (const flag of FLAGS) if (fields[flag] === true) tags.push([flag])
  if (fields.supportedKinds !== undefined) {
    if (!Array.isArray(fields.supportedKinds)) {
      throw new InvalidArgumentError('supportedKinds', 'supportedKinds must be an array of kinds')
    }
    for (const k of fields.supportedKinds) {
      if (!Number.isInteger(k) || k < 0) {
        throw new InvalidArgumentError('supportedKinds', 'supportedKinds must be non-negative integers')
      }
    }
    tags.push(['supported_kinds', ...fields.supportedKinds.map(String)])
  }
  if (fields.parent !== undefined) {
    if (typeof fields.parent !== 'string' || fields.parent === '') {
      throw new InvalidArgumentError('parent', 'parent must be a non-empty group id')
    }
    tags.push(['parent', fields.parent])
  }
  if (fields.children !== undefined && !Array.isArray(fields.children)) {
    throw new InvalidArgumentError('children', 'children must be an array of group ids')
  }
  for (const child of fields.children ?? []) {
    if (typeof child !== 'string' || child === '') {
      throw new InvalidArgumentError('children', 'children must be non-empty group ids')
    }
    tags.push(['child', child])
  }
  return tags
}

export function buildPutUser(
  id: string,
  pubkey: string,
  roles: readonly string[] | undefined,
  opts?: ModerationOptions,
): EventTemplate {
  assertHex64(pubkey, 'pubkey')
  if (roles !== undefined && !Array.isArray(roles))
    throw new InvalidArgumentError('roles', 'roles must be an array')
  for (const role of roles ?? []) {
    if (typeof role !== 'string' || role.trim() === '') {
      throw new InvalidArgumentError('roles', 'roles must be non-empty strings')
    }
  }
  return groupTemplate(KINDS.putUser, id, opts?.reason ?? '', [['p', pubkey, ...(roles ?? [])]], opts)
}

export function buildRemoveUser(id: string, pubkey: string, opts?: ModerationOptions): EventTemplate {
  assertHex64(pubkey, 'pubkey')
  return groupTemplate(KINDS.removeUser, id, opts?.reason ?? '', [['p', pubkey]], opts)
}

export function buildEditMetadata(
  id: string,
  fields: GroupMetadataFields,
  opts?: ModerationOptions,
): EventTemplate {
  if (typeof fields !== 'object' || fields === null) {
    throw new InvalidArgumentError('fields', 'fields must be an object')
  }
  return groupTemplate(KINDS.editMetadata, id, opts?.reason ?? '', metadataTags(fields), opts)
}

export function buildDeleteEvent(id: string, eventId: string, opts?: ModerationOptions): EventTemplate {
  assertHex64(eventId, 'eventId')
  return groupTemplate(KINDS.deleteEvent, id, opts?.reason ?? '', [['e', eventId]], opts)
}

export function buildCreateGroup(id: string, opts?: ModerationOptions): EventTemplate {
  return groupTemplate(KINDS.createGroup, id, opts?.reason ?? '', [], opts)
}

export function buildDeleteGroup(id: string, opts?: ModerationOptions): EventTemplate {
  return groupTemplate(KINDS.deleteGroup, id, opts?.reason ?? '', [], opts)
}

/**
 * Options of {@link GroupId.createInvite}: the terms of its codes. Without `uses`, a code admits one
 * join; `'unlimited'` sends groups_relay's `["reusable"]`; `expiresAt` is NIP-40's `expiration`.
 * Relays that know no terms take the codes as single-use.
 *
 * @example id.createInvite('welcome', { uses: 25, expiresAt: now + 7 * 86400 })
 */
export interface InviteOptions extends ModerationOptions {
  /** How many joins each code admits (1 to 1,000,000), or `'unlimited'`. */
  uses?: number | 'unlimited'
  /** Unix seconds from which the codes admit nobody. */
  expiresAt?: number
}

export function buildCreateInvite(
  id: string,
  code: string | readonly string[],
  opts?: InviteOptions,
): EventTemplate {
  const codes = typeof code === 'string' ? [code] : code
  if (!Array.isArray(codes) || codes.length === 0) {
    throw new InvalidArgumentError('code', 'an invite needs at least one code')
  }
  for (const c of codes) {
    if (typeof c !== 'string' || c.trim() === '')
      throw new InvalidArgumentError('code', 'invite codes must be non-empty')
  }
  const tags = codes.map((c) => ['code', c])
  const uses = opts?.uses
  if (uses === 'unlimited') tags.push(['reusable'])
  else if (uses !== undefined) {
    if (!Number.isInteger(uses) || uses < 1 || uses > 1_000_000)
      throw new InvalidArgumentError('uses', 'uses must be a whole number from 1 to 1,000,000, or unlimited')
    if (uses > 1) tags.push(['uses', String(uses)])
  }
  const expiresAt = opts?.expiresAt
  if (expiresAt !== undefined) {
    if (!Number.isSafeInteger(expiresAt) || expiresAt <= 0)
      throw new InvalidArgumentError('expiresAt', 'expiresAt must be unix seconds')
    tags.push(['expiration', String(expiresAt)])
  }
  return groupTemplate(KINDS.createInvite, id, opts?.reason ?? '', tags, opts)
}

/** A pin: a 64-hex event id (`e` tag) or an address `<kind>:<pubkey>:<d>` (`a` tag). */
export function pinTag(ref: string): string[] {
  if (typeof ref === 'string' && /^\d+:[0-9a-f]{64}:/.test(ref)) return ['a', ref]
  return ['e', assertHex64(ref, 'pin')]
}

export function buildPin(
  id: string,
  refs: string | readonly string[],
  opts?: ModerationOptions,
): EventTemplate {
  const list = typeof refs === 'string' ? [refs] : refs
  if (!Array.isArray(list)) throw new InvalidArgumentError('pins', 'pins must be a string or an array')
  const seen = new Set<string>()
  const tags: string[][] = []
  for (const ref of list) {
    if (seen.has(ref)) continue
    seen.add(ref)
    tags.push(pinTag(ref))
  }
  return groupTemplate(KINDS.pin, id, opts?.reason ?? '', tags, opts)
}
