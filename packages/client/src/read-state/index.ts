export {
  type ReadStateChange,
  type ReadStatePool,
  type ReadStateRelays,
  ReadStateSync,
  type ReadStateSyncOptions,
  type ReadStateTimers,
} from './read-state-sync'
