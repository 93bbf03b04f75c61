import type { ProfilePolicy } from '../profiles'
import { type GroupRecord, isMember } from './record'

/** The relay-signed state kinds this relay generates. */
export const STATE_KINDS = [39000, 39001, 39002, 39003, 39005] as const
export type StateKind = (typeof STATE_KINDS)[number]

/** The roles advertised in 39003 by the strict profile. */
export const ROLE_DESCRIPTIONS: readonly [string, string][] = [
  ['admin', 'Can do everything: edit metadata, manage members and roles, delete events and the group'],
  ['moderator', 'Can add and remove members without roles, delete events, create invites and pin events'],
]

/** The moderation kinds each non-admin role in {@link ROLE_DESCRIPTIONS} may send (admins may send all). */
export const ROLE_GRANTS: Readonly<Record<string, ReadonlySet<number>>> = {
  moderator: new Set([9000, 9001, 9005, 9009, 9010]),
}

export interface StateContent {
  tags: string[][]
  content: string
}

/**
 * The tags and content of one relay-signed state event for a group, or undefined when the profile
 * publishes no such event. `keys.av`: the relay offers audio/video (LiveKit configured), so the
 * `livekit` flag is shown. Pure: the caller signs it with `created_at = max(now, previous + 1)`.
 *
 * @example
 * renderState(group, 39002, PROFILES.strict, relayKey) // { tags: [['d', id], ['p', pk]…], content: '' }
 */
export function renderState(
  g: GroupRecord,
  kind: StateKind,
  policy: ProfilePolicy,
  keys: { relay: string; owner: string; av?: boolean },
): StateContent | undefined {
  const d = ['d', g.id]
  const members = Object.keys(g.members).sort()
  switch (kind) {
    case 39000: {
      if (policy.copyModerationTags && g.extraTags.length > 0) {
        const rest = g.extraTags.filter((t) => t[0] !== 'd').map((t) => [...t])
        return { tags: [d, ...rest], content: '' }
      }
      const tags: string[][] = [d]
      if (g.name) tags.push(['name', g.name])
      if (g.picture) tags.push(['picture', g.picture])
      if (g.banner) tags.push(['banner', g.banner])
      if (g.about) tags.push(['about', g.about])
      if (g.private) tags.push(['private'])
      else if (policy.legacyFlags) tags.push(['public'])
      if (g.restricted) tags.push(['restricted'])
      if (g.hidden) tags.push(['hidden'])
      if (g.closed) tags.push(['closed'])
      else if (policy.legacyFlags) tags.push(['open'])
      // The flag is kept either way, but only advertised while the relay can mint LiveKit tokens.
      if (g.livekit && keys.av) tags.push(['livekit'])
      if (g.supportedKinds) tags.push(['supported_kinds', ...g.supportedKinds.map(String)])
      if (g.parent !== undefined) tags.push(['parent', g.parent])
      for (const child of g.children ?? []) tags.push(['child', child])
      for (const t of g.extraTags) tags.push([...t])
      return { tags, content: '' }
    }
    case 39001: {
      const tags: string[][] = policy.protectedStateTag ? [['-'], d] : [d]
      if (!policy.adminRolesListed) {
        const keys2 = new Set([
          keys.owner,
          keys.relay,
          ...members.filter((pk) => (g.members[pk]?.length ?? 0) > 0),
        ])
        for (const pk of keys2) tags.push(['p', pk])
        return { tags, content: '' }
      }
      for (const pk of members) {
        let roles = [...(g.members[pk] ?? [])]
        if (policy.capitalizedAdminRole) roles = roles.filter((r) => r === 'admin').map(() => 'Admin')
        if (roles.length > 0) tags.push(['p', pk, ...roles])
      }
      return { tags, content: g.name ? `admins of ${g.name}` : '' }
    }
    case 39002: {
      const tags: string[][] = policy.protectedStateTag ? [['-'], d] : [d]
      for (const pk of members) if (isMember(g, pk)) tags.push(['p', pk])
      return { tags, content: '' }
    }
    case 39003: {
      if (policy.rolesEvent === 'none') return undefined
      if (policy.rolesEvent === 'groups_relay') {
        return {
          tags: [
            d,
            ['role', 'admin', 'Can edit metadata and manage users'],
            ['role', 'member', 'Regular group member'],
            ['role', '', 'Custom role'],
          ],
          content: 'List of roles supported by this group',
        }
      }
      return { tags: [d, ...ROLE_DESCRIPTIONS.map(([n, desc]) => ['role', n, desc])], content: '' }
    }
    case 39005:
      return { tags: [d, ...g.pins.map((p) => [...p])], content: '' }
  }
}
