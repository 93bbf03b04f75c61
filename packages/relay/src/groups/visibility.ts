import type { Filter } from 'nostr-tools'
import type { ProfilePolicy } from '../profiles'
import { type GroupRecord, isMember } from './record'

/** Who is reading: the pubkeys authenticated on the connection. */
export interface Reader {
  readonly authed: ReadonlySet<string>
  readonly relayKey: string
}

/** True when the filter names its groups or events: `#h`, `#d` or `ids` (not a broad listing). */
export function isScoped(filter: Filter): boolean {
  return !!(filter['#h'] || filter['#d'] || filter.ids)
}

function readerIsMember(g: GroupRecord, reader: Reader): boolean {
  if (reader.authed.has(reader.relayKey)) return true
  for (const pk of reader.authed) if (isMember(g, pk)) return true
  return false
}

/**
 * Rule 29: may this reader see this event of group `g`, for a subscription with this filter?
 * The same predicate gates stored results and live broadcasts. One addition to the rule: the
 * 9000/9001 that name the reader stay visible to them, so a user removed from a private group
 * still learns it (pass `tags` for those kinds).
 *
 * @example
 * canSee({ kind: 9 }, privateGroup, stranger, { '#h': [id] }, PROFILES.strict) // false
 */
export function canSee(
  event: { kind: number; tags?: readonly (readonly string[])[] },
  g: GroupRecord | undefined,
  reader: Reader,
  filter: Filter,
  policy: ProfilePolicy,
): boolean {
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

/** Why a REQ is refused before it runs. */
export interface ReadRefusal {
  reason: string
  /** Send a fresh AUTH challenge with it. */
  auth: boolean
}

const META = (k: number) => k >= 39000 && k <= 39003

/**
 * Rules 28 and 30: refuse a REQ that names a private group the reader may not read, and (per profile)
 * unscoped REQs. Returns undefined when the REQ may run.
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
      if (reader.authed.size === 0) return { reason: policy.messages.privateAuth, auth: true }
      return { reason: policy.messages.privateRestricted, auth: false }
    }
  }
  return undefined
}
