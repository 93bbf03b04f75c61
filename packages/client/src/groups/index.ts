export type { JoinRequest } from '@roost/nip29'
export { CallTokenError, type CallTokenReason, type CallTokenRequest, fetchCallToken } from './call'
export { ForkWatch, type ForkWatchOptions } from './fork-watch'
export { Group } from './group'
export type { GroupAdmin } from './group-admin'
export { isPreviousRejection, publishError } from './publish-errors'
export { GroupsRegistry, type GroupsRegistryOptions } from './registry'
export type { SubscribeOptions } from './replay'
export { SEARCH_KINDS, type SearchHit, type SearchOptions } from './search'
export { ROW_KINDS, Timeline } from './timeline'
export type {
  CanSend,
  GroupEvent,
  GroupSnapshot,
  Message,
  Reaction,
  ReadStateSource,
  Thread,
} from './types'
export type { SendOptions } from './writes'
