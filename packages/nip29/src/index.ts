export { GroupAdmins, type RoleEntry } from './admins'
export type {
  CommentOptions,
  JoinOptions,
  LeaveOptions,
  MessageOptions,
  ReactionTarget,
  ReplyTarget,
} from './content-builders'
export {
  InvalidArgumentError,
  InvalidEventError,
  type InvalidEventReason,
  InvalidGroupIdError,
  InvalidReferenceError,
  type InvalidReferenceReason,
  InvalidRelayUrlError,
  RoostError,
} from './errors'
export { groupIdOf, newestEvent } from './event-tags'
export { GroupId } from './group-id'
export { GroupKey } from './group-key'
export { GroupList, type GroupListEntry } from './group-list'
export { GroupReference, type GroupReferenceInit } from './group-reference'
export { isHex64 } from './hex'
export { KINDS, MODERATION_KINDS, STATE_KINDS } from './kinds'
export { GroupMembers } from './members'
export { type FoldOptions, foldMembership, type Membership, membershipAfterReply } from './membership'
export { GroupMetadata } from './metadata'
export type { GroupMetadataFields } from './moderation-builders'
export { GroupParticipants } from './participants'
export { type GroupPin, GroupPins } from './pins'
export { normalizeRelayUrl, tryNormalizeRelayUrl } from './relay-url'
export { type GroupRole, GroupRoles } from './roles'
export type { StateParseOptions } from './state-event'
export type { BuilderOptions, ModerationOptions } from './template'
export { MAX_PREVIOUS, TimelineWindow } from './timeline-window'
