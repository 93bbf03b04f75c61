import type { Filter } from 'nostr-tools'
import type { ProfilePolicy } from '../profiles'
import { type GroupRecord, isMember, isStaff } from './record'

/** Who is reading: the pubkeys authenticated on the connection. */
export interface Reader {
  readonly authed: ReadonlySet<string>
  readonly relayKey: string
}

/** True when the filter names its groups or events: `#h`, `#d` or `ids` (not a broad listing). */
export function isScoped(filter: Filter): boolean {
  return !!(filter['#h'] || filter['#d'] || filter.ids)
}

/**
 * Kinds a group shows only to its staff (admins, and moderators where the profile gives them
 * power), the relay key and the event's own author: join requests (9021, which may carry an
 * invite code), invite codes (9009) and reports (1984, NIP-56).
 *
 * @example STAFF_ONLY_KINDS.has(1984) // true
 */
export const STAFF_ONLY_KINDS: ReadonlySet<number> = new Set([1984, 9009, 9021])

/** The event's group: its stored `grp` when given, else its `h` tag (null: not a group event). */
function groupOfEvent(event: { grp?: string | null; tags?: readonly (readonly string[])[] }): string | null {
  if (event.grp !== undefined) return event.grp
  return event.tags?.find((t) => t[0] === 'h')?.[1] ?? null
}

function readerIsStaff(g: GroupRecord, reader: Reader, policy: ProfilePolicy): boolean {
  for (const pk of reader.authed) if (isStaff(g, pk, policy)) return true
  return false
}

function readerIsMember(g: GroupRecord, reader: Reader): boolean {
  if (reader.authed.has(reader.relayKey)) return true
  for (const pk of reader.authed) if (isMember(g, pk)) return true
  return false
}

/**
 * Rule 29: may this reader see this event of group `g`, for a subscription with this filter?
 * The same predicate gates stored results and live broadcasts. Two additions to the rule: the
 * 9000/9001 that name the reader stay visible to them, so a user removed from a private group
 * still learns it (pass `tags` for those kinds); and the {@link STAFF_ONLY_KINDS} of a group are
 * seen by its staff, the relay key and their author only, and by the author only where the rule
 * lets them read the group (pass `pubkey`, and `grp` or `tags`, for those kinds: a group event of
 * an unknown group shows to its author alone).
 *
 * @example
 * canSee({ kind: 9 }, privateGroup, stranger, { '#h': [id] }, PROFILES.strict) // false
 * canSee({ kind: 1984, pubkey: bob, grp: id }, openGroup, carol, {}, PROFILES.roost) // false: carol is no admin
 */
export function canSee(
  event: {
    kind: number
    pubkey?: string
    grp?: string | null
    tags?: readonly (readonly string[])[]
  },
  g: GroupRecord | undefined,
  reader: Reader,
  filter: Filter,
  policy: ProfilePolicy,
): boolean {
  if (STAFF_ONLY_KINDS.has(event.kind) && groupOfEvent(event) !== null) {
    const author = event.pubkey !== undefined && reader.authed.has(event.pubkey)
    if (
      !author &&
      !(g && !g.deleted && readerIsStaff(g, reader, policy)) &&
      !reader.authed.has(reader.relayKey)
    )
      return false
  }
  if (!g || g.deleted) return true
  if (readerIsMember(g, reader)) return true
  const broad = !isScoped(filter)
  const hides = policy.hidden !== 'ignored' && g.hidden
  if (g.private) {
    // A user always learns about being added or removed, even once they are no longer a member.
    if ((event.kind === 9000 || event.kind === 9001) && namesReader(event.tags, reader))
      return !hides || !broad
    if (event.kind !== 39000) return false
    if (hides) return false
  }
  if (hides && (policy.hidden === 'everything' || broad)) return false
  if (!policy.listClosedGroups && broad && event.kind === 39000 && (g.closed || g.private)) return false
  return true
}

function namesReader(tags: readonly (readonly string[])[] | undefined, reader: Reader): boolean {
  return !!tags?.some((t) => t[0] === 'p' && reader.authed.has(t[1] ?? ''))
}

/**
 * True when the filter can match only the 9000/9001 that name the reader: its kinds are those two
 * alone and every `#p` it asks for is a key authenticated on the connection. Rule 29 shows such
 * events to the key they name, so a REQ of this shape reveals nothing else of a private group.
 */
function asksOwnStanding(f: Filter, reader: Reader): boolean {
  const kinds = f.kinds
  const p = f['#p']
  return (
    kinds !== undefined &&
    kinds.length > 0 &&
    kinds.every((k) => k === 9000 || k === 9001) &&
    p !== undefined &&
    p.length > 0 &&
    p.every((pk) => reader.authed.has(pk))
  )
}

/** Why a REQ is refused before it runs. */
export interface ReadRefusal {
  reason: string
  /** Send a fresh AUTH challenge with it. */
  auth: boolean
}

const META = (k: number) => k >= 39000 && k <= 39003

/** The CLOSED of an unauthenticated REQ that asks for {@link STAFF_ONLY_KINDS} by kind. @example conn.send(['CLOSED', subId, STAFF_ONLY_AUTH]) */
export const STAFF_ONLY_AUTH =
  "auth-required: a group's join requests, invite codes and reports are shown to its admins only"

/**
 * Rules 28 and 30: refuse a REQ that names a private group the reader may not read, and (per profile)
 * unscoped REQs. Returns undefined when the REQ may run. A filter asking only for the 9000/9001
 * that name the authenticated reader may name a private group they are not in: a pending
 * requester holds it to learn the answer live.
 *
 * @example
 * checkRead([{ '#h': ['secret'] }], reader, groups.get.bind(groups), PROFILES.strict)
 * // { reason: "auth-required: you're trying to access a private group", auth: true }
 */
export function checkRead(
  filters: readonly Filter[],
  reader: Reader,
  group: (id: string) => GroupRecord | undefined,
  policy: ProfilePolicy,
): ReadRefusal | undefined {
  if (policy.requireAuthForAll && reader.authed.size === 0)
    return { reason: 'auth-required: authentication is required for access', auth: true }
  // Only staff and authors see these kinds: a reader who asks for them by kind must say who it is.
  if (reader.authed.size === 0 && filters.some((f) => f.kinds?.some((k) => STAFF_ONLY_KINDS.has(k))))
    return { reason: STAFF_ONLY_AUTH, auth: true }
  for (const f of filters) {
    if (policy.rejectUnscoped) {
      const kinds = f.kinds ?? []
      if (kinds.some(META) && kinds.some((k) => !META(k)))
        return { reason: "blocked: it's not allowed to mix metadata kinds with others", auth: false }
      const scoped =
        f['#h'] || f['#d'] || f['#e'] || f['#a'] || f.ids || (kinds.length > 0 && kinds.every(META))
      if (!scoped) return { reason: "blocked: invalid query, must have 'h', 'e' or 'a' tag", auth: false }
    }
    const ids = [...(f['#h'] ?? [])]
    if (policy.gateDTag && f['#d'] && (!f.kinds || f.kinds.some((k) => k >= 39000 && k <= 39005)))
      ids.push(...f['#d'])
    for (const id of ids) {
      const g = group(id)
      if (!g || g.deleted || !g.private || readerIsMember(g, reader)) continue
      // A requester waits for the answer: only the 9000/9001 naming them may match, and those they see.
      if (asksOwnStanding(f, reader)) continue
      if (reader.authed.size === 0) return { reason: policy.messages.privateAuth, auth: true }
      return { reason: policy.messages.privateRestricted, auth: false }
    }
  }
  return undefined
}
