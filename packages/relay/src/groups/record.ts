/** The 39000 fields and flags, shared by what the relay stores and what `state(id)` shows. */
export interface GroupBasics {
  /** The group id (the `h` and `d` value). */
  readonly id: string
  /** When the group was created, Unix seconds. */
  readonly createdAt: number
  /** The group's name (39000 `name`). */
  readonly name?: string
  /** A picture URL (39000 `picture`). */
  readonly picture?: string
  /** A banner image URL (39000 `banner`). */
  readonly banner?: string
  /** A description (39000 `about`). */
  readonly about?: string
  /** Only members can read it. */
  readonly private: boolean
  /** Only members can write to it. */
  readonly restricted: boolean
  /** The relay does not show the group's metadata to non-members. */
  readonly hidden: boolean
  /** Joining needs an invite code or an admin's approval. */
  readonly closed: boolean
  /** The group has audio/video rooms (NIP-29 `livekit`). */
  readonly livekit: boolean
}

/**
 * A group's state as the relay keeps it: plain JSON-able data, replaced (never mutated) on each change,
 * persisted as one row per group.
 */
export interface GroupRecord extends GroupBasics {
  /** Absent: every kind; empty: none. */
  readonly supportedKinds?: readonly number[]
  /** Subgroups (spec §1.10): the parent group's id, and this group's ordered children. */
  readonly parent?: string
  /** This group's subgroups, in order. */
  readonly children?: readonly string[]
  /** Tags re-emitted in 39000 as they came (zooid copies, groups_relay's unknown tags). */
  readonly extraTags: readonly (readonly string[])[]
  /** pubkey → lowercase role names (empty: a plain member). */
  readonly members: Readonly<Record<string, readonly string[]>>
  /** Outstanding invite codes: single-use unless {@link inviteTerms} names them. */
  readonly invites: readonly string[]
  /** Codes whose 9009 set terms (uses left, expiry); absent in records written before terms existed. */
  readonly inviteTerms?: Readonly<Record<string, InviteTerms>>
  /** Ordered pins, `['e', id]` or `['a', address]`. */
  readonly pins: readonly (readonly string[])[]
  /** Join requests waiting for an admin (profiles that keep pending joins). */
  readonly pending: readonly string[]
  /** Pubkeys removed by a moderator (not by leaving): their joins are refused. */
  readonly removed: readonly string[]
  /** The group was deleted (9008); its id cannot be reused. */
  readonly deleted: boolean
}

/**
 * The terms of an invite code its 9009 set (see `invites.ts`).
 *
 * @example
 * const terms: InviteTerms = { left: 25, expires: 1_900_000_000 } // 25 more joins, until then
 */
export interface InviteTerms {
  /** Joins the code still admits; absent: any number (`["reusable"]`). */
  readonly left?: number
  /** Unix seconds from which the code admits nobody (NIP-40 `expiration` on the 9009). */
  readonly expires?: number
}

/**
 * A read-only snapshot of a group, as `RelayHandle.state(id)` returns it.
 *
 * @example
 * relay.state(id) // { id, closed: true, members: [alice, bob], admins: [{ pubkey: alice, roles: ['admin'] }], invites: ['x'], … }
 */
export interface GroupState extends GroupBasics {
  /** The kinds the group accepts; absent: every kind. */
  readonly supportedKinds?: number[]
  /** The parent group's id (subgroups). */
  readonly parent?: string
  /** The subgroups' ids, in order. */
  readonly children: string[]
  /** Every member, admins included, sorted. */
  readonly members: string[]
  /** Members holding at least one role, with their roles. */
  readonly admins: {
    /** The member's hex public key. */
    pubkey: string
    /** Their role names, as in the 39001 event (e.g. `['admin']`). */
    roles: string[]
  }[]
  /** Outstanding invite codes. */
  readonly invites: string[]
  /** The terms of the codes in `invites` that have some (the others are single-use). */
  readonly inviteTerms: Record<string, InviteTerms>
  /** Pinned events, in order: `['e', id]` or `['a', address]`. */
  readonly pins: string[][]
  /** Join requests waiting for an admin. */
  readonly pending: string[]
  /** The group was deleted (9008). */
  readonly deleted: boolean
}

/** The roles that carry moderation power; other role names are labels only. */
export const PRIVILEGED_ROLES = ['admin', 'moderator'] as const

/**
 * True when `pubkey` moderates the group: an admin, or a moderator where the profile gives
 * moderators power (groups_relay gives it to admins only). Such keys see the group's join
 * requests, invite codes and reports (`visibility.ts`).
 *
 * @example
 * isStaff(group, alice, PROFILES.roost) // true for an admin or a moderator
 */
export function isStaff(g: GroupRecord, pubkey: string, policy: { adminOnlyModeration: boolean }): boolean {
  return hasRole(g, pubkey, 'admin') || (!policy.adminOnlyModeration && hasRole(g, pubkey, 'moderator'))
}

/** A new, empty group. */
export function newGroup(
  id: string,
  createdAt: number,
  flags: { private: boolean; closed: boolean },
): GroupRecord {
  return {
    id,
    createdAt,
    private: flags.private,
    restricted: false,
    hidden: false,
    closed: flags.closed,
    livekit: false,
    extraTags: [],
    members: {},
    invites: [],
    pins: [],
    pending: [],
    removed: [],
    deleted: false,
  }
}

/** True when `pubkey` is in the group. */
export function isMember(g: GroupRecord, pubkey: string): boolean {
  return Object.hasOwn(g.members, pubkey)
}

/** The roles of `pubkey` (empty when a plain member or not a member). */
export function rolesOf(g: GroupRecord, pubkey: string): readonly string[] {
  return Object.hasOwn(g.members, pubkey) ? (g.members[pubkey] ?? []) : []
}

/** True when `pubkey` holds `role` (compared case-insensitively). */
export function hasRole(g: GroupRecord, pubkey: string, role: string): boolean {
  return rolesOf(g, pubkey).some((r) => r.toLowerCase() === role)
}

/** Members holding the admin role. */
export function adminsOf(g: GroupRecord): string[] {
  return Object.keys(g.members).filter((pk) => hasRole(g, pk, 'admin'))
}

/** The snapshot handed to callers: copies, sorted members. */
export function snapshot(g: GroupRecord): GroupState {
  const members = Object.keys(g.members).sort()
  return {
    id: g.id,
    createdAt: g.createdAt,
    ...(g.name !== undefined && { name: g.name }),
    ...(g.picture !== undefined && { picture: g.picture }),
    ...(g.banner !== undefined && { banner: g.banner }),
    ...(g.about !== undefined && { about: g.about }),
    private: g.private,
    restricted: g.restricted,
    hidden: g.hidden,
    closed: g.closed,
    livekit: g.livekit,
    ...(g.supportedKinds && { supportedKinds: [...g.supportedKinds] }),
    ...(g.parent !== undefined && { parent: g.parent }),
    children: [...(g.children ?? [])],
    members,
    admins: members
      .filter((pk) => (g.members[pk]?.length ?? 0) > 0)
      .map((pubkey) => ({ pubkey, roles: [...(g.members[pubkey] ?? [])] })),
    invites: [...g.invites],
    inviteTerms: Object.fromEntries(
      g.invites.flatMap((c) =>
        g.inviteTerms && Object.hasOwn(g.inviteTerms, c) ? [[c, { ...g.inviteTerms[c] }]] : [],
      ),
    ),
    pins: g.pins.map((p) => [...p]),
    pending: [...g.pending],
    deleted: g.deleted,
  }
}
