import type { NostrEvent } from 'nostr-tools'
import { isHex64 } from './hex'
import { KINDS } from './kinds'
import { checkStateEvent, type StateParseOptions } from './state-event'

/**
 * One `["p", pubkey, role…]` entry of a 39001 or 39002 list.
 * @example admins.entries[0] // { pubkey: 'ab…', roles: ['secretary', 'gardener'] }
 */
export interface RoleEntry {
  /** The admin's public key (hex). */
  pubkey: string
  /** The roles as the relay wrote them (empty strings dropped). */
  roles: string[]
}

/** Reads the `p` tags of a state event: valid pubkeys only, one entry per pubkey (roles merged). */
export function readRoleEntries(tags: string[][]): RoleEntry[] {
  const byKey = new Map<string, RoleEntry>()
  for (const tag of tags) {
    const pubkey = tag[1]
    if (tag[0] !== 'p' || !isHex64(pubkey)) continue
    const roles = tag.slice(2).filter((r) => r.trim() !== '')
    const entry = byKey.get(pubkey)
    if (entry === undefined) byKey.set(pubkey, { pubkey, roles })
    else for (const r of roles) if (!entry.roles.some((x) => sameRole(x, r))) entry.roles.push(r)
  }
  return [...byKey.values()]
}

/** Roles compare case-insensitively and without surrounding space (`Admin` is `admin`). */
export function sameRole(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase()
}

/**
 * A group's kind 39001 admin list: `["p", pubkey, role…]` with free-form, relay-defined roles.
 * An entry counts as an admin when it has no roles at all or any role other than `member`
 * (relays differ: zooid lists admins without roles, groups_relay adds a `member` role).
 *
 * @example
 * const admins = GroupAdmins.parse(event)
 * if (admins.contains(me)) showModerationTools()
 * admins.hasRole(pk, 'Moderator') // case-insensitive
 */
export class GroupAdmins {
  /** The group id. */
  readonly id: string
  /** The key that signed this 39001 (the relay's). */
  readonly relayKey: string
  /** When the relay signed it, Unix seconds. */
  readonly createdAt: number
  /** Each admin with their roles, in the event's order. */
  readonly entries: RoleEntry[]

  private constructor(id: string, relayKey: string, createdAt: number, entries: RoleEntry[]) {
    this.id = id
    this.relayKey = relayKey
    this.createdAt = createdAt
    this.entries = entries
  }

  /**
   * @throws {InvalidEventError} for another kind, a missing `d` tag, or (with `opts.relayKey`)
   * another author.
   * @example GroupAdmins.parse(event).entries
   */
  static parse(event: NostrEvent, opts?: StateParseOptions): GroupAdmins {
    const e = checkStateEvent(event, KINDS.admins, opts)
    return new GroupAdmins(e.id, e.pubkey, e.createdAt, readRoleEntries(e.tags))
  }

  /**
   * Whether `pubkey` is an admin: listed with no roles or with any role but `member`.
   * @example admins.contains(me)
   */
  contains(pubkey: string): boolean {
    const entry = this.entries.find((x) => x.pubkey === pubkey)
    return (
      entry !== undefined && (entry.roles.length === 0 || entry.roles.some((r) => !sameRole(r, 'member')))
    )
  }

  /** Whether `pubkey` holds `role`, compared case-insensitively. @example admins.hasRole(pk, 'admin') */
  hasRole(pubkey: string, role: string): boolean {
    return this.rolesOf(pubkey).some((r) => sameRole(r, role))
  }

  /** The roles `pubkey` holds (empty when not listed). @example admins.rolesOf(pk) // ['secretary'] */
  rolesOf(pubkey: string): string[] {
    return this.entries.find((x) => x.pubkey === pubkey)?.roles ?? []
  }
}
