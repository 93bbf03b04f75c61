export {
  MissingProviderError,
  RoostContext,
  type RoostContextValue,
  RoostProvider,
  type RoostProviderProps,
  useRoost,
} from './context'
export { type GroupHandle, useGroup, useGroupHandle, useGroups, useUnread } from './groups'
export { usePageVisible } from './page-visible'
export { useProfile } from './profile'
export type { ProfileSource } from './profile-source'
export { type SnapshotSource, useSnapshot } from './snapshot'
