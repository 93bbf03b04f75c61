import type { RelayProfile } from './options'

/**
 * What differs between NIP-29 relay families, as data (one row per profile in {@link PROFILES}). The intake, read and state code consult this
 * table instead of branching on profile names, so each difference is one field with one test.
 *
 * @example
 * PROFILES.groups_relay.noticeInsteadOfOk // true
 */
export interface ProfilePolicy {
  /** The profile's name, as `--profile` takes it. */
  readonly name: RelayProfile
  /** NIP-11 carries `self` (relay29 and groups_relay publish only `pubkey`). */
  readonly nip11Self: boolean
  /** NIP-11 `pubkey` is an owner key distinct from the signing key (pyramid, zooid). */
  readonly separateOwnerKey: boolean
  /** Every REQ and EVENT needs AUTH first (zooid). */
  readonly requireAuthForAll: boolean
  /** 39000 also carries `public`/`open` when the group is not private/closed (relay29, groups_relay). */
  readonly legacyFlags: boolean
  /** 9002 patches the fields it names (relay29, groups_relay) instead of replacing all of them. */
  readonly patch9002: boolean
  /** 39000 is a copy of the last 9007/9002's tags with `h` renamed to `d` (zooid). */
  readonly copyModerationTags: boolean
  /** Unknown 9002 tags are kept and re-emitted in 39000 (groups_relay). */
  readonly keepUnknownTags: boolean
  /** Flags of a new group before its 9007's tags are applied. */
  readonly createDefaults: {
    /** A new group starts private (reads need membership). */
    readonly private: boolean
    /** A new group starts closed (joins need an invite code). */
    readonly closed: boolean
  }
  /** The 9007's own metadata tags are applied at creation (groups_relay, zooid). */
  readonly createFromTags: boolean
  /** A 9007 needs AUTH as its author (pyramid). */
  readonly createRequiresAuth: boolean
  /** The id of a deleted group can be used again. */
  readonly reuseDeletedIds: boolean
  /** Events for an unknown id are stored as an unmanaged group (groups_relay). */
  readonly unmanagedGroups: boolean
  /** A 9021 to a closed group without a valid code: refused, stored as pending (OK true), or ignored (OK true). */
  readonly closedJoin: 'refuse' | 'pending' | 'ignore'
  /** A join to a closed group naming a wrong, spent or expired code is refused (not queued or ignored as one without a code). */
  readonly badCodeRefused: boolean
  /** The closed check runs before the member check, so members re-joining get `restricted:` (pyramid). */
  readonly closedBeforeMember: boolean
  /** Re-joining after a removal: refused in this group, silently ignored after a 9001 in any group (relay29), or allowed. */
  readonly rejoin: 'blocked' | 'ignore-any-group' | 'allow'
  /**
   * 9009: codes with the terms their 9009 sets (`uses`, `reusable`, NIP-40 `expiration`; see
   * `groups/invites.ts`), single-use codes that may be `reusable` (groups_relay), single-use codes
   * only (pyramid), refused as a moderation action (relay29), or accepted but never honoured (zooid).
   */
  readonly invites: 'terms' | 'reusable' | 'single-use' | 'rejected' | 'ignored'
  /** The relay-made join 9000 always carries `["code", c or ""]` (pyramid). */
  readonly joinCodeTagAlways: boolean
  /** The role of the relay-made join 9000 (groups_relay says `member` explicitly). */
  readonly joinRole?: string
  /** A leave issues a relay-signed 9001 (groups_relay only updates 39002). */
  readonly leaveEmits9001: boolean
  /** Relay-made leave 9001s carry `["self-removal"]`. */
  readonly selfRemovalTag: boolean
  /** A 9022 from a non-member: refused with a reason, or no reply at all (groups_relay). */
  readonly leaveNonMember: 'refuse' | 'silent'
  /** Who may write to a group they have not joined. */
  readonly writes: 'restricted-or-closed' | 'members-only' | 'closed-only' | 'auto-join'
  /** Authorization failures of moderation and leave come back as NOTICE and no OK (groups_relay). */
  readonly noticeInsteadOfOk: boolean
  /** Only the `admin` role moderates (groups_relay); otherwise admin and moderator with pyramid's limits. */
  readonly adminOnlyModeration: boolean
  /** Moderators may not touch role holders, grant roles or delete admins' events. */
  readonly moderatorLimits: boolean
  /** No-op 9000/9001 and 9009 on open groups and private-but-open 9002s are refused (pyramid). */
  readonly pyramidPolicies: boolean
  /** The last admin can neither leave nor lose the role (groups_relay). */
  readonly lastAdminProtected: boolean
  /** 9005 may target only events of this group, or any stored event (relay29, groups_relay). */
  readonly deleteScope: 'group' | 'any'
  /** `supported_kinds`: enforced with 9000–9022 exempt, enforced on everything (pyramid), or ignored. */
  readonly supportedKinds: 'exempt-moderation' | 'all' | 'ignored'
  /** `hidden`: left out of broad listings, hides everything and refuses joins (zooid), or ignored. */
  readonly hidden: 'listings' | 'everything' | 'ignored'
  /** `restricted` is honoured for writes. */
  readonly restrictedEnforced: boolean
  /** `previous` checking. */
  readonly previous: {
    /** Each `previous` value must prefix the id of a recent event of the group; off: the tags are ignored. */
    readonly check: boolean
    /** Only the first `previous` tag is read, the others ignored. */
    readonly firstTagOnly: boolean
    /** Default minimum number of references (strict: 3). */
    readonly minimum: number
  }
  /** Moderation events older than this many seconds are refused (the fiatjaf family's 60 s). */
  readonly moderationWindow?: number
  /** Default late-publication window for h-tagged events, seconds. */
  readonly lateWindow?: number
  /** Events further than this in the future are refused, seconds. */
  readonly futureWindow?: number
  /** Unscoped REQs (no `#h`, `#d`, `#e`, `#a`, `ids` or metadata kinds) are refused (relay29). */
  readonly rejectUnscoped: boolean
  /** Private groups are gated on `#d` as well as `#h`. */
  readonly gateDTag: boolean
  /** Broad 39000 listings leave out closed and private groups (relay29). */
  readonly listClosedGroups: boolean
  /** 39001 role names capitalised (`Admin`, groups_relay). */
  readonly capitalizedAdminRole: boolean
  /** 39003 layout. */
  readonly rolesEvent: 'spec' | 'groups_relay' | 'none'
  /** 39001 lists roles (zooid lists bare keys). */
  readonly adminRolesListed: boolean
  /** Relay-signed 39001/39002 carry the NIP-70 `-` tag (zooid). */
  readonly protectedStateTag: boolean
  /** NIP-09 deletions of group messages older than this many seconds are refused (pyramid: 2 h). */
  readonly maxDeleteAge?: number
  /** Subgroups by 9002 `parent` tags (spec §1.10), advertised as NIP-11 `nip29.subgroups`. */
  readonly subgroups: boolean
  /** Group ids containing `..` are refused (pyramid). */
  readonly forbidDotDot: boolean
  /** The texts of the relay's refusals (OK and CLOSED messages) under this profile. */
  readonly messages: ProfileMessages
}

/**
 * The refusal texts that differ between relay families. Each already carries its NIP-01 prefix.
 *
 * @example
 * PROFILES.relay29.messages.previousNotFound('abcd') // "blocked: previous id 'abcd' wasn't found in this relay"
 */
export interface ProfileMessages {
  /** A group event without an `h` tag. */
  missingH: string
  /** An event naming a group this relay does not hold. */
  unknownGroup(id: string): string
  /** A 9007 create-group for an id already in use. */
  groupExists: string
  /** A 9007 create-group for the id of a deleted group. */
  deletedGroupExists: string
  /** A 39000–39003 state event sent by a client (only the relay signs those). */
  metadataDirect: string
  /** An event from a key that is not a member of the group it writes to. */
  notMember(pubkey: string): string
  /** A 9021 join request from a key that is already a member. */
  alreadyMember: string
  /** A 9022 leave request from a key that is not a member. */
  notAMemberLeave: string
  /** A join to a closed group without an invite code. */
  closedNoCode: string
  /** A join to a closed group naming a code that is not outstanding (wrong, or already used). */
  badCode: string
  /** A join naming a code whose 9009 `expiration` has passed. */
  expiredCode: string
  /** An event whose `previous` tag names an id the relay does not know. */
  previousNotFound(value: string): string
  /** A read of a private group before NIP-42 authentication. */
  privateAuth: string
  /** A read of a private group by an authenticated key that is not a member. */
  privateRestricted: string
  /** A moderation event (9000–9020) from a key whose roles do not allow it. */
  insufficientPermissions: string
}

const fiatjaf: ProfileMessages = {
  missingH: 'blocked: missing group (`h`) tag',
  unknownGroup: (id) => `blocked: group '${id}' doesn't exist`,
  groupExists: 'duplicate: group already exists',
  deletedGroupExists: 'duplicate: a deleted group with this id exists',
  metadataDirect: 'restricted: group metadata events are generated internally',
  notMember: () => 'blocked: unknown member',
  alreadyMember: 'duplicate: already a member',
  notAMemberLeave: 'duplicate: not a member of this group',
  closedNoCode: 'restricted: group is closed, you need an invite code',
  // pyramid and croissant answer a wrong code as a missing one.
  badCode: 'restricted: group is closed, you need an invite code',
  expiredCode: 'restricted: group is closed, you need an invite code',
  previousNotFound: (v) => `blocked: previous id '${v}' wasn't found in this group`,
  privateAuth: "auth-required: you're trying to access a private group",
  privateRestricted: "restricted: you're trying to access a group of which you're not a member",
  insufficientPermissions: 'restricted: insufficient permissions',
}

const strict: ProfilePolicy = {
  name: 'strict',
  nip11Self: true,
  separateOwnerKey: false,
  requireAuthForAll: false,
  legacyFlags: false,
  patch9002: false,
  copyModerationTags: false,
  keepUnknownTags: false,
  createDefaults: { private: false, closed: false },
  createFromTags: false,
  createRequiresAuth: false,
  reuseDeletedIds: false,
  unmanagedGroups: false,
  closedJoin: 'refuse',
  badCodeRefused: true,
  closedBeforeMember: false,
  rejoin: 'blocked',
  invites: 'terms',
  joinCodeTagAlways: false,
  leaveEmits9001: true,
  selfRemovalTag: true,
  leaveNonMember: 'refuse',
  writes: 'restricted-or-closed',
  noticeInsteadOfOk: false,
  adminOnlyModeration: false,
  moderatorLimits: true,
  pyramidPolicies: false,
  lastAdminProtected: false,
  deleteScope: 'group',
  supportedKinds: 'exempt-moderation',
  hidden: 'listings',
  restrictedEnforced: true,
  previous: { check: true, firstTagOnly: false, minimum: 3 },
  moderationWindow: 60,
  lateWindow: 600,
  futureWindow: 60,
  rejectUnscoped: false,
  gateDTag: true,
  listClosedGroups: true,
  capitalizedAdminRole: false,
  rolesEvent: 'spec',
  adminRolesListed: true,
  protectedStateTag: false,
  forbidDotDot: false,
  subgroups: true,
  messages: fiatjaf,
}

/**
 * The default: spec-correct and open to every client. `previous` is checked when present but no
 * minimum is required (no third-party library adds it by default), a private group's 39000 is
 * served to anyone who asks for it by `#d` unless the group is hidden, and a join to a closed group
 * without a code waits for an admin (OK true, the requester pending: NIP-29 says such a request is
 * not honoured, groups_relay and zooid keep it for the admins) where `strict` refuses it.
 */
const roost: ProfilePolicy = {
  ...strict,
  name: 'roost',
  closedJoin: 'pending',
  previous: { check: true, firstTagOnly: false, minimum: 0 },
  gateDTag: false,
  // A wrong, spent or expired code is said to be one, so the user asks for a new code instead of for one.
  messages: {
    ...fiatjaf,
    badCode: 'restricted: invalid or already used invite code',
    expiredCode: 'restricted: this invite code has expired',
  },
}

const pyramid: ProfilePolicy = {
  ...strict,
  name: 'pyramid',
  subgroups: false,
  invites: 'single-use',
  separateOwnerKey: true,
  createRequiresAuth: true,
  closedBeforeMember: true,
  joinCodeTagAlways: true,
  pyramidPolicies: true,
  supportedKinds: 'all',
  previous: { check: true, firstTagOnly: true, minimum: 0 },
  lateWindow: undefined,
  futureWindow: undefined,
  gateDTag: false,
  maxDeleteAge: 7200,
  forbidDotDot: true,
}

const relay29: ProfilePolicy = {
  ...strict,
  name: 'relay29',
  subgroups: false,
  nip11Self: false,
  legacyFlags: true,
  patch9002: true,
  reuseDeletedIds: true,
  closedJoin: 'ignore',
  badCodeRefused: false,
  rejoin: 'ignore-any-group',
  invites: 'rejected',
  selfRemovalTag: false,
  writes: 'members-only',
  moderatorLimits: false,
  deleteScope: 'any',
  supportedKinds: 'ignored',
  hidden: 'ignored',
  restrictedEnforced: false,
  previous: { check: true, firstTagOnly: true, minimum: 0 },
  lateWindow: 60,
  futureWindow: 30,
  rejectUnscoped: true,
  gateDTag: false,
  listClosedGroups: false,
  messages: {
    ...fiatjaf,
    previousNotFound: (v) => `blocked: previous id '${v}' wasn't found in this relay`,
    privateAuth: 'auth-required: trying to read from a private group',
    privateRestricted: 'restricted: not a member',
    notAMemberLeave: 'blocked: unknown member',
  },
}

const groupsRelay: ProfilePolicy = {
  ...strict,
  name: 'groups_relay',
  subgroups: false,
  nip11Self: false,
  legacyFlags: true,
  patch9002: true,
  keepUnknownTags: true,
  createDefaults: { private: true, closed: true },
  createFromTags: true,
  unmanagedGroups: true,
  closedJoin: 'pending',
  badCodeRefused: false,
  rejoin: 'allow',
  invites: 'reusable',
  joinRole: 'member',
  leaveEmits9001: false,
  selfRemovalTag: false,
  leaveNonMember: 'silent',
  writes: 'auto-join',
  noticeInsteadOfOk: true,
  adminOnlyModeration: true,
  moderatorLimits: false,
  lastAdminProtected: true,
  deleteScope: 'any',
  supportedKinds: 'ignored',
  hidden: 'ignored',
  restrictedEnforced: false,
  previous: { check: false, firstTagOnly: false, minimum: 0 },
  moderationWindow: undefined,
  lateWindow: undefined,
  futureWindow: undefined,
  capitalizedAdminRole: true,
  rolesEvent: 'groups_relay',
  messages: {
    ...fiatjaf,
    missingH: "invalid: group events must contain an 'h' tag",
    groupExists: 'error: Group already exists',
    deletedGroupExists: 'error: Group existed before and was deleted',
    notMember: (pk) => `restricted: User ${pk} is not a member of this group`,
    alreadyMember: 'duplicate: User is already a member',
    privateAuth: 'auth-required: Authentication required to access private groups',
    privateRestricted: 'restricted: Access denied to private group',
  },
}

const zooid: ProfilePolicy = {
  ...strict,
  name: 'zooid',
  subgroups: false,
  separateOwnerKey: true,
  requireAuthForAll: true,
  copyModerationTags: true,
  createFromTags: true,
  reuseDeletedIds: true,
  closedJoin: 'pending',
  badCodeRefused: false,
  rejoin: 'allow',
  invites: 'ignored',
  selfRemovalTag: false,
  writes: 'closed-only',
  moderatorLimits: false,
  supportedKinds: 'ignored',
  hidden: 'everything',
  restrictedEnforced: false,
  previous: { check: false, firstTagOnly: false, minimum: 0 },
  moderationWindow: undefined,
  lateWindow: undefined,
  futureWindow: undefined,
  rolesEvent: 'none',
  adminRolesListed: false,
  protectedStateTag: true,
  messages: {
    ...fiatjaf,
    unknownGroup: () => 'invalid: group not found',
    groupExists: 'invalid: that group already exists',
    metadataDirect: 'invalid: group metadata cannot be set directly',
    notMember: () => 'restricted: you are not a member of that group',
    notAMemberLeave: 'duplicate: not currently a member',
    insufficientPermissions: 'restricted: you are not authorized to manage groups',
    privateAuth: 'auth-required: authentication is required for access',
  },
}

/**
 * The policy table, one entry per profile.
 *
 * @example
 * PROFILES.relay29.patch9002 // true
 */
export const PROFILES: Readonly<Record<RelayProfile, ProfilePolicy>> = {
  roost,
  strict,
  pyramid,
  relay29,
  groups_relay: groupsRelay,
  zooid,
}

/**
 * True for a known profile name.
 *
 * @example
 * isRelayProfile('pyramid') // true
 */
export function isRelayProfile(name: string): name is RelayProfile {
  return Object.hasOwn(PROFILES, name)
}
