export { Group, type GroupContext, isPreviousRejection, publishError } from './group'
export { GroupsRegistry, type GroupsRegistryOptions } from './registry'
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
