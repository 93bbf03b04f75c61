import type { NostrEvent } from 'nostr-tools'
import { sameRole } from './admins'
import { KINDS } from './kinds'
import { checkStateEvent, type StateParseOptions } from './state-event'

/** A role a relay defines for a group. @example { name: 'moderator', description: 'can delete' } */
export interface GroupRole {
  /** The role's name, as 39001 and 9000 use it. */
  name: string
  /** What the role may do, in the relay's words. */
  description?: string
}

/**
 * A group's kind 39003 roles: `["role", name, description?]`. Empty names are dropped, and a
 * name repeated in another case is kept once.
 *
 * @example
 * GroupRoles.parse(event).roles.map((r) => r.name) // ['admin', 'moderator']
 */
export class GroupRoles {
  /** The group id. */
  readonly id: string
  /** The key that signed this 39003 (the relay's). */
  readonly relayKey: string
  /** When the relay signed it, Unix seconds. */
  readonly createdAt: number
  /** The roles the group defines. */
  readonly roles: GroupRole[]

  private constructor(id: string, relayKey: string, createdAt: number, roles: GroupRole[]) {
    this.id = id
    this.relayKey = relayKey
    this.createdAt = createdAt
    this.roles = roles
  }

  /**
   * @throws {InvalidEventError} for another kind, a missing `d` tag, or (with `opts.relayKey`)
   * another author.
   * @example GroupRoles.parse(event).get('Moderator')?.description
   */
  static parse(event: NostrEvent, opts?: StateParseOptions): GroupRoles {
    const e = checkStateEvent(event, KINDS.roles, opts)
    const roles: GroupRole[] = []
    for (const tag of e.tags) {
      const name = tag[1]
      if (tag[0] !== 'role' || name === undefined || name.trim() === '') continue
      if (roles.some((r) => sameRole(r.name, name))) continue
      const description = tag[2]
      roles.push(description !== undefined && description !== '' ? { name, description } : { name })
    }
    return new GroupRoles(e.id, e.pubkey, e.createdAt, roles)
  }

  /** The role named `name`, compared case-insensitively. @example roles.get('admin') */
  get(name: string): GroupRole | undefined {
    return this.roles.find((r) => sameRole(r.name, name))
  }
}
