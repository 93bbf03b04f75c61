export { GroupAdmins, type RoleEntry } from './admins'
export {
  type AuthCheck,
  AuthorizationError,
  type AuthorizationReason,
  decodeAuthHeader,
  encodeAuthHeader,
  type VerifyEvent,
} from './auth-header'
export {
  authorizesBlob,
  type BlobDescriptor,
  type BlossomAuthCheck,
  type BlossomAuthOptions,
  type BlossomVerb,
  blossomAuthTemplate,
  checkBlossomAuth,
  parseBlobDescriptor,
} from './blossom'
export type {
  CommentOptions,
  JoinOptions,
  LeaveOptions,
  MessageOptions,
  ReactionTarget,
  ReplyTarget,
} from './content-builders'
export { type DeletionOptions, type OwnEventRef, Withdrawals, withdrawnIds } from './deletions'
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
export { detectForks, type ForkEvidence, type ForkReport, type GroupSighting } from './forks'
export { GroupId } from './group-id'
export { GroupKey } from './group-key'
export { GroupList, type GroupListEntry } from './group-list'
export { GroupReference, type GroupReferenceInit } from './group-reference'
export { isHex64 } from './hex'
export { checkHttpAuth, type HttpAuthCheck, type HttpAuthOptions, httpAuthTemplate } from './http-auth'
export { buildImeta, type ImetaFields, imetaOf, parseImeta } from './imeta'
export { type JoinRequest, type JoinRequestOptions, pendingJoinRequests } from './join-requests'
export { KINDS, MODERATION_KINDS, STATE_KINDS } from './kinds'
export {
  LIVEKIT_PATH,
  type LiveKitToken,
  livekitTokenUrl,
  parseLiveKitToken,
  relayHttpUrl,
} from './livekit'
export { GroupMembers } from './members'
export { type FoldOptions, foldMembership, type Membership, membershipAfterReply } from './membership'
export {
  type ContentSegment,
  composeMentions,
  contentMentions,
  type MentionPart,
  mentionsPubkey,
  mentionUri,
  parseContent,
} from './mentions'
export { GroupMetadata } from './metadata'
export type { GroupMetadataFields, InviteOptions } from './moderation-builders'
export { GroupParticipants } from './participants'
export { type GroupPin, GroupPins } from './pins'
export { isCreatedAtRefusal, isPreviousRefusal, refusalWantsNewEvent } from './refusals'
export { normalizeRelayUrl, RelayUrlCache, tryNormalizeRelayUrl } from './relay-url'
export {
  parseReport,
  REPORT_TYPES,
  type Report,
  type ReportOptions,
  type ReportTarget,
  type ReportType,
} from './reports'
export { type GroupRole, GroupRoles } from './roles'
export { contentMatches, foldSearchText, MAX_SEARCH_TERMS, searchTerms, searchWords } from './search'
export type { StateParseOptions } from './state-event'
export { type GroupTreeNode, groupForest, type SubgroupInput } from './subgroups'
export type { BuilderOptions, ModerationOptions } from './template'
export {
  orderTies,
  previousRefs,
  type TimelineOrdered,
  type TimelineTied,
  timelineOrder,
} from './timeline-order'
export { MAX_PREVIOUS, TimelineWindow } from './timeline-window'
