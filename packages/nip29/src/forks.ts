import type { NostrEvent } from 'nostr-tools'
import { GroupAdmins } from './admins'
import { newestEvent } from './event-tags'
import type { GroupKey } from './group-key'
import { GroupList } from './group-list'
import { isHex64 } from './hex'
import { KINDS } from './kinds'

/** One admin's list naming the group: where it says the group lives. */
export interface ForkEvidence {
  /** The admin whose kind 10009 this is. */
  admin: string
  /** The list event's id and `created_at`. */
  listId: string
  /** The `created_at` of the group list that said so. */
  listCreatedAt: number
  /** The normalized relays this admin lists the group on, in list order. */
  relays: string[]
}

/** A relay other than the group's own where admins list the group id. */
export interface GroupSighting {
  /** The relay where the group was seen. */
  relay: string
  /** The admins listing it there, sorted. */
  admins: string[]
}

/**
 * What the admins' lists say about where a group lives:
 * - `unknown`: no admin's list names the group id;
 * - `here`: they name it only on this relay;
 * - `also-lives-on`: some name it here and some (or the same) elsewhere ("This group also lives on X");
 * - `moved`: they name it only elsewhere ("This group moved to X").
 * `elsewhere` lists the other relays with their admins; `evidence` every admin list that names it.
 *
 * @example if (report.status === 'moved') banner(`This group moved to ${report.elsewhere[0].relay}`)
 */
export interface ForkReport {
  /** Whether the group lives here only, also elsewhere, or has moved (`unknown` without evidence). */
  status: 'unknown' | 'here' | 'also-lives-on' | 'moved'
  /** The other relays the group was seen on. */
  elsewhere: GroupSighting[]
  /** What the verdict rests on. */
  evidence: ForkEvidence[]
}

/**
 * Fork and migration detection (NIP-29 "Detecting migrations and forks"): reads the newest
 * kind 10009 of each admin of the group (a {@link GroupAdmins} or their pubkeys; other authors and kinds are ignored, as are malformed
 * lists) and reports where they list the same group id. Only public `group` tags are read; pass
 * decrypted private entries as extra lists if you have them. The two forks stay separate
 * groups: this only tells the user.
 *
 * @example
 * const report = detectForks(key, GroupAdmins.parse(event39001), adminLists10009)
 * for (const s of report.elsewhere) offerToFollow(new GroupKey(s.relay, group.key.id.value), s.admins)
 */
export function detectForks(
  key: GroupKey,
  admins: GroupAdmins | Iterable<string>,
  lists: Iterable<NostrEvent>,
): ForkReport {
  const adminSet = new Set<string>()
  const pubkeys =
    admins instanceof GroupAdmins
      ? admins.entries.map((e) => e.pubkey).filter((pk) => admins.contains(pk))
      : admins
  for (const a of pubkeys) if (isHex64(a)) adminSet.add(a)
  const byAdmin = new Map<string, NostrEvent[]>()
  for (const event of lists) {
    if (typeof event !== 'object' || event === null || event.kind !== KINDS.groupList) continue
    if (!adminSet.has(event.pubkey) || !isHex64(event.id) || !Number.isSafeInteger(event.created_at)) continue
    byAdmin.set(event.pubkey, [...(byAdmin.get(event.pubkey) ?? []), event])
  }
  const id = key.id.value
  const evidence: ForkEvidence[] = []
  const elsewhere = new Map<string, Set<string>>()
  let here = false
  for (const admin of [...byAdmin.keys()].sort()) {
    const event = newestEvent(byAdmin.get(admin) as NostrEvent[]) as NostrEvent
    let list: GroupList
    try {
      list = GroupList.parse(event)
    } catch {
      continue
    }
    const relays = list.entries.filter((e) => e.id === id).map((e) => e.relay)
    if (relays.length === 0) continue
    evidence.push({ admin, listId: event.id, listCreatedAt: event.created_at, relays })
    for (const relay of relays) {
      if (relay === key.relay) here = true
      else elsewhere.set(relay, (elsewhere.get(relay) ?? new Set()).add(admin))
    }
  }
  const sightings = [...elsewhere]
    .map(([relay, set]) => ({ relay, admins: [...set].sort() }))
    .sort((a, b) => b.admins.length - a.admins.length || (a.relay < b.relay ? -1 : 1))
  const status =
    evidence.length === 0 ? 'unknown' : sightings.length === 0 ? 'here' : here ? 'also-lives-on' : 'moved'
  return { status, elsewhere: sightings, evidence }
}
