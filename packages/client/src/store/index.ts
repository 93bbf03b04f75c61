// The browser-safe stores. SqliteEventStore lives in ../sqlite.ts (the `@roost/client/sqlite`
// entry) so that nothing here pulls in better-sqlite3.

export {
  InvalidQueryError,
  InvalidStoreEventError,
  InvalidValueError,
  StoreClosedError,
  StoreOpenError,
} from './errors'
export type { AddOptions, EventStore, StoreQuery, StoreSearch } from './event-store'
export { IndexedDbEventStore } from './indexeddb-store'
export { MemoryEventStore } from './memory-store'
