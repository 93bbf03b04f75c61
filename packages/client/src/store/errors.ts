import { RoostError } from '@roost/nip29'

/**
 * A {@link StoreQuery} the stores cannot answer consistently: a tag name that is not a single
 * letter, a limit that is not a non-negative integer, a non-array list, an empty fork name.
 *
 * @example
 * await store.query({ tags: { previous: ['abcd1234'] } }) // rejects with InvalidQueryError
 */
export class InvalidQueryError extends RoostError {
  constructor(message: string) {
    super('invalid-query', message)
  }
}

/**
 * An event handed to a store lacks the NIP-01 fields (64-hex id and pubkey, 128-hex sig, integer
 * kind and created_at, string content, string-array tags).
 *
 * @example
 * await store.add({ id: 'x' } as NostrEvent) // rejects with InvalidStoreEventError
 */
export class InvalidStoreEventError extends RoostError {
  constructor(message: string) {
    super('invalid-event', message)
  }
}

/**
 * The store was closed; open a new one.
 *
 * @example
 * await store.close(); await store.get(id) // rejects with StoreClosedError
 */
export class StoreClosedError extends RoostError {
  constructor() {
    super('store-closed', 'the event store is closed')
  }
}

/**
 * A setting handed to `setValue` that JSON cannot carry (a function, a cycle, a bigint), or a key
 * that is not a string.
 *
 * @example
 * await store.setValue('k', () => 1) // rejects with InvalidValueError
 */
export class InvalidValueError extends RoostError {
  constructor(message: string) {
    super('invalid-value', message)
  }
}

/**
 * A store could not be opened: a missing directory or unreadable SQLite file, a database written by
 * a newer Roost, IndexedDB missing or refusing (private mode, quota). `cause` holds the original.
 *
 * @example
 * try { SqliteEventStore.open('/no/such/dir/x.db') } catch (e) { if (e instanceof StoreOpenError) fallBackToMemory() }
 */
export class StoreOpenError extends RoostError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('store-open-failed', message, options)
  }
}
