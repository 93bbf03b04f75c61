export {
  type Blob,
  type BlobRejection,
  blobSize,
  type Contexts,
  type DroppedEntry,
  emptyContexts,
  isValidClientId,
  isValidContextKey,
  isValidTimestamp,
  type ParseResult,
  parseBlob,
  serializeBlob,
} from './blob'
export { type BudgetOptions, type BudgetResult, fitToBudget, isDominated } from './budget'
export * from './constants'
export { type ContextKind, contextKind, contextTarget, messageContext, threadContext } from './context'
export { createdAtFor } from './created-at'
export { ReadStateEngine } from './engine'
export type {
  BlobInput,
  Effect,
  EngineOptions,
  EngineState,
  EngineStatus,
  RotationReason,
} from './engine-types'
export {
  coordinate,
  deletionTemplate,
  type EnvelopeRejection,
  isValidSlotId,
  liveFilter,
  loadFilter,
  ownCoordinateFilter,
  type ReadSlotOptions,
  readSlot,
  readStateTags,
  type SlotResult,
} from './envelope'
export {
  InvalidContextError,
  InvalidEventIdError,
  InvalidOptionError,
  InvalidTimestampError,
  ReadStateError,
} from './errors'
export { effective, isUnread, maxDefined, type ParentResolver, replyFrontier } from './frontier'
export { mergeContexts, sameContexts } from './merge'
export { publishTemplate } from './publish-template'
export {
  channelReadMark,
  messageReadMark,
  type ReadMark,
  type ThreadRows,
  threadReadMark,
  type UnreadCount,
  type UnreadInput,
  type UnreadRow,
  unreadCount,
} from './unread'
export { type IndexedRow, UnreadIndex } from './unread-index'
export { utf8Length } from './utf8'
