import {
  type GroupAdmins,
  type GroupMembers,
  type JoinRequest,
  KINDS,
  pendingJoinRequests,
} from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'

/** The kinds that open or answer a join request: 9021 asks, 9022, 9000 and 9001 answer it. */
export const JOIN_REQUEST_KINDS: readonly number[] = Object.freeze([
  KINDS.joinRequest,
  KINDS.leaveRequest,
  KINDS.putUser,
  KINDS.removeUser,
])
const RELEVANT = new Set(JOIN_REQUEST_KINDS)
const NONE: readonly JoinRequest[] = Object.freeze([])

/** The store key under which a group's dismissed requests (9021 ids) are remembered. */
export function dismissedKey(group: string): string {
  return `join-requests-dismissed:${group}`
}

/**
 * The join requests of one group that no admin has answered: every 9021/9022/9000/9001 seen for
 * the group, folded by `pendingJoinRequests`, less the requests this device dismissed (by 9021 id,
 * so a newer request from the same person shows again) and the people the relay already lists as
 * members or admins. Memoized: `list()` returns the same array until something changes.
 */
export class JoinRequestFold {
  private readonly events = new Map<string, NostrEvent>()
  private readonly dismissed = new Set<string>()
  private cached: { value: readonly JoinRequest[]; members: unknown; admins: unknown } | undefined

  constructor(private readonly groupId: string) {}

  /** Takes one h-tagged event of the group; returns true when it is one of the request kinds. */
  add(event: NostrEvent): boolean {
    if (!RELEVANT.has(event.kind) || this.events.has(event.id)) return false
    this.events.set(event.id, event)
    this.cached = undefined
    return true
  }

  /** Hides these requests (9021 ids); returns true when any was new. */
  dismiss(ids: Iterable<string>): boolean {
    let changed = false
    for (const id of ids) {
      if (typeof id !== 'string' || this.dismissed.has(id)) continue
      this.dismissed.add(id)
      changed = true
    }
    if (changed) this.cached = undefined
    return changed
  }

  /** The dismissed 9021 ids, to remember across restarts. */
  dismissedIds(): string[] {
    return [...this.dismissed]
  }

  /** The open requests, oldest first. */
  list(members: GroupMembers | undefined, admins: GroupAdmins | undefined): readonly JoinRequest[] {
    const c = this.cached
    if (c && c.members === members && c.admins === admins) return c.value
    const value = this.events.size
      ? Object.freeze(
          pendingJoinRequests(this.events.values(), { groupId: this.groupId }).filter(
            (r) =>
              !this.dismissed.has(r.event.id) &&
              members?.contains(r.pubkey) !== true &&
              admins?.contains(r.pubkey) !== true,
          ),
        )
      : NONE
    this.cached = { value, members, admins }
    return value
  }
}
