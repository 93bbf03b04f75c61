import type { NostrEvent } from 'nostr-tools'
import type { ProfilePolicy } from '../profiles'
import { parseAction } from './actions'
import { addInvites, inviteTerms, withoutCodes } from './invites'
import { applyMetadata } from './metadata'
import { type GroupRecord, newGroup } from './record'

/** Maximum pins kept from a 9010. */
export const MAX_PINS = 50

/** What applying an accepted event did. */
export interface Applied {
  /** The group afterwards (undefined when the id is free again). */
  record: GroupRecord | undefined
  /** Event ids to delete from storage (9005 targets). */
  deleteIds: string[]
  /** The group was deleted (9008): drop its events except the 9008. */
  deleteGroup: boolean
}

/**
 * The state transition of one accepted moderation event: pure, returns a new record.
 * Events that are not moderation actions leave the record as it is.
 *
 * @example
 * applyEvent(undefined, create9007, PROFILES.strict).record?.id // the new group's id
 */
export function applyEvent(g: GroupRecord | undefined, event: NostrEvent, policy: ProfilePolicy): Applied {
  const same: Applied = { record: g, deleteIds: [], deleteGroup: false }
  const parsed = parseAction(event)
  if (!parsed.ok) return same
  const action = parsed.action
  if (action.kind === 9007) {
    const id = event.tags.find((t) => t[0] === 'h')?.[1] ?? ''
    let created = newGroup(id, event.created_at, policy.createDefaults)
    if (policy.createFromTags) created = applyMetadata(created, event.tags, { ...policy, patch9002: true })
    if (policy.copyModerationTags) created = applyMetadata(created, event.tags, policy)
    return { ...same, record: created }
  }
  if (!g) return same
  switch (action.kind) {
    case 9000: {
      const members = { ...g.members }
      for (const t of action.targets) members[t.pubkey] = t.roles
      const added = new Set(action.targets.map((t) => t.pubkey))
      // A 9000 naming a code spends it (pyramid's single-use codes; ours name only their last use).
      const spent = action.code === undefined ? g : withoutCodes(g, [action.code])
      return {
        ...same,
        record: {
          ...spent,
          members,
          pending: g.pending.filter((p) => !added.has(p)),
          removed: g.removed.filter((p) => !added.has(p)),
        },
      }
    }
    case 9001: {
      const members = { ...g.members }
      for (const pk of action.targets) delete members[pk]
      const selfRemoval = event.tags.some((t) => t[0] === 'self-removal')
      const removed = selfRemoval ? g.removed : [...new Set([...g.removed, ...action.targets])]
      return {
        ...same,
        record: { ...g, members, removed, pending: g.pending.filter((p) => !action.targets.includes(p)) },
      }
    }
    case 9002:
      return { ...same, record: applyMetadata(g, event.tags, policy) }
    case 9005:
      return { ...same, deleteIds: action.ids }
    case 9008:
      return {
        record: policy.reuseDeletedIds
          ? undefined
          : { ...g, deleted: true, members: {}, invites: [], inviteTerms: undefined, pending: [] },
        deleteIds: [],
        deleteGroup: true,
      }
    case 9009: {
      // The intake refused malformed terms; a relay-made 9009 is taken as it reads.
      const terms = inviteTerms(event.tags, policy)
      const t = terms.ok ? terms.terms : undefined
      return { ...same, record: addInvites(g, action.codes, t, event.created_at) }
    }
    case 9010:
      return { ...same, record: { ...g, pins: action.pins.slice(0, MAX_PINS) } }
  }
}

/** Records a join request that waits for an admin. */
export function addPending(g: GroupRecord, pubkey: string): GroupRecord {
  return g.pending.includes(pubkey) ? g : { ...g, pending: [...g.pending, pubkey] }
}

/** Removes a member without a 9001 (groups_relay's leave). */
export function dropMember(g: GroupRecord, pubkey: string): GroupRecord {
  const members = { ...g.members }
  delete members[pubkey]
  return { ...g, members }
}
