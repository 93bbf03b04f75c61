export {
  type BackfillOptions,
  type BackfillPool,
  type BackfillResult,
  negentropyBackfill,
  refetchWindow,
  windowFilter,
} from './negentropy-backfill'
