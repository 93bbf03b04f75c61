export type {
  ReadStateChange,
  ReadStatePool,
  ReadStateRelays,
  ReadStateSyncOptions,
  ReadStateTimers,
} from './options'
export { ReadStateSync } from './read-state-sync'
