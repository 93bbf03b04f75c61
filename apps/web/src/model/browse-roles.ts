/**
 * What the user is in each group of a relay's listing, read from the relay's own lists: 39001
 * (admins, with roles) and 39002 (members). Someone the operator or an admin added never sent a
 * join request and may not have the group in their 10009, yet is in it.
 */
import { GroupAdmins, GroupMembers, KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools'

/**
 * `admin` or `member` per group id where the newest 39001/39002 (signed by `relayKey` when known)
 * names `me`; groups that do not name `me` are left out.
 *
 * @example
 * rolesFromLists(events, me, relayKey).get('design') // 'admin'
 */
export function rolesFromLists(
  events: readonly NostrEvent[],
  me: string,
  relayKey?: string,
): Map<string, 'admin' | 'member'> {
  const newest = new Map<string, NostrEvent>()
  for (const e of events) {
    if (relayKey && e.pubkey !== relayKey) continue
    const d = e.tags.find((t) => t[0] === 'd')?.[1]
    if (d === undefined || (e.kind !== KINDS.admins && e.kind !== KINDS.members)) continue
    const key = `${e.kind}:${d}`
    const held = newest.get(key)
    if (!held || e.created_at > held.created_at || (e.created_at === held.created_at && e.id < held.id))
      newest.set(key, e)
  }
  const out = new Map<string, 'admin' | 'member'>()
  for (const [key, e] of newest) {
    const id = key.slice(key.indexOf(':') + 1)
    try {
      if (e.kind === KINDS.admins) {
        const admins = GroupAdmins.parse(e)
        if (admins.contains(me)) out.set(id, 'admin')
        else if (admins.rolesOf(me).length > 0 && !out.has(id)) out.set(id, 'member')
      } else if (GroupMembers.parse(e).contains(me) && !out.has(id)) out.set(id, 'member')
    } catch {
      // A malformed list says nothing.
    }
  }
  return out
}
