import type { NostrEvent } from 'nostr-tools'
import { type RoleEntry, readRoleEntries } from './admins'
import { KINDS } from './kinds'
import { checkStateEvent, type StateParseOptions } from './state-event'

/**
 * A group's kind 39002 member list. It may be partial or missing: absence from it does not mean
 * "not a member" (see {@link foldMembership}).
 *
 * @example
 * GroupMembers.parse(event).contains(me)
 */
export class GroupMembers {
  /** The group id. */
  readonly id: string
  /** The key that signed this 39002 (the relay's). */
  readonly relayKey: string
  /** When the relay signed it, Unix seconds. */
  readonly createdAt: number
  /** Members with any roles the relay wrote beside them. */
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
   * @example GroupMembers.parse(event).pubkeys()
   */
  static parse(event: NostrEvent, opts?: StateParseOptions): GroupMembers {
    const e = checkStateEvent(event, KINDS.members, opts)
    return new GroupMembers(e.id, e.pubkey, e.createdAt, readRoleEntries(e.tags))
  }

  /** @example members.contains(pk) */
  contains(pubkey: string): boolean {
    return this.entries.some((x) => x.pubkey === pubkey)
  }

  /** The member pubkeys, in the relay's order. @example members.pubkeys().length */
  pubkeys(): string[] {
    return this.entries.map((x) => x.pubkey)
  }
}
