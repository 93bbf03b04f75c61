import type { NostrEvent } from 'nostr-tools/core'

/**
 * A query over an {@link EventStore}: every present field must match (AND), as in a NIP-01 filter,
 * plus `fork` to scope it to one group fork. An empty array matches nothing.
 *
 * @example
 * const newest = await store.query({ fork: key.toString(), kinds: [9], limit: 50 })
 * const older = await store.query({ tags: { h: ['general'] }, until: oldest.created_at, limit: 50 })
 */
export interface StoreQuery {
  /** Only events recorded as seen in this fork (a `GroupKey` string, `<relay>'<id>`). */
  fork?: string
  /** Only these event ids. */
  ids?: string[]
  /** Only these kinds. */
  kinds?: number[]
  /** Only events by these public keys (hex). */
  authors?: string[]
  /** Single-letter tag name without '#' → accepted values (the event needs one of them). */
  tags?: Record<string, string[]>
  /** created_at ≥ since */
  since?: number
  /** created_at ≤ until */
  until?: number
  /** At most this many, newest first. */
  limit?: number
}

/**
 * How {@link EventStore.addMany} numbers what it adds to a fork (decision 21).
 *
 * @example
 * await store.addMany(page, "wss://groups.example.com'general", { older: true }) // page: newest first
 */
export interface AddOptions {
  /**
   * The events are a newest-first page of older history (a relay's answer, `loadOlder`): each one
   * new to the fork is numbered below every arrival the store holds, in page order, so a second's
   * ties read back in the page's order (the relay's) and after what was held before. An event the
   * fork holds already keeps the number it was stored with.
   */
  older?: boolean
}

/**
 * A full-text search over an {@link EventStore}: events whose content holds every word of `text`
 * as the start of one of its words (any case, diacritics folded: NIP-50 terms, see `searchTerms`
 * of `@roost/nip29`), newest first (created_at desc, then id asc). A text without words finds
 * nothing.
 *
 * @example
 * const hits = await store.search({ text: 'pizza tonight', forks: [key.toString()], kinds: [9], limit: 20 })
 */
export interface StoreSearch {
  /** What to look for (at most 256 characters; the first 8 words are used). */
  text: string
  /** Only events seen in one of these forks (GroupKey strings); every event when absent. */
  forks?: string[]
  /** Only these kinds. */
  kinds?: number[]
  /** created_at ≤ until (the next page: the last result's created_at). */
  until?: number
  /** At most this many (default 50, at most 500). */
  limit?: number
}

/**
 * The local event cache (DESIGN decision 8): each event is saved once by id and every group fork
 * it was seen in is recorded, so the same event seen on two relays stays one row with two
 * memberships, and leaving one group never touches the other. Relay-signed group state is kept
 * apart, newest per (relay, kind, d). Small JSON settings live beside the events.
 *
 * The store trusts what it is given (verify before `add`); everything it returns is branded with
 * nostr-tools' `verifiedSymbol` so it is never verified again.
 *
 * Implementations: {@link MemoryEventStore}, `SqliteEventStore` (Node, from `@roost/client/sqlite`)
 * and {@link IndexedDbEventStore} (browser).
 *
 * @example
 * const store = new MemoryEventStore()
 * await store.add(message, "wss://groups.example.com'general")
 * const timeline = await store.query({ fork: "wss://groups.example.com'general", limit: 50 })
 * await store.deleteFork("wss://groups.example.com'general") // on leave
 */
export interface EventStore {
  /**
   * Saves an event once (by id) and records it as seen in `fork`. Replaceable (0, 3, 10000–19999)
   * and addressable (30000–39999) events without a fork keep only the newest per
   * (kind, pubkey[, d]) (NIP-01: on equal created_at the lowest id wins). Returns true if the store
   * changed: the event is new, newer, or newly seen in this fork.
   */
  add(event: NostrEvent, fork?: string): Promise<boolean>
  /**
   * {@link add} for many events in one transaction, in the order given; returns how many changed
   * the store. `older`: a newest-first page of older history ({@link AddOptions}).
   */
  addMany(events: NostrEvent[], fork?: string, opts?: AddOptions): Promise<number>
  /**
   * Matching events, newest first (created_at desc, then id asc), branded verified. With `fork`,
   * ties follow the fork's arrival order, latest first, before the id (decision 21): the order in
   * which events were added to that fork (a page of older history below what was held), kept
   * across restarts.
   */
  query(q: StoreQuery): Promise<NostrEvent[]>
  /**
   * The newest `limit` events of each fork, exactly as `query({ fork, limit })` returns them
   * (newest first, ties by arrival then id), in one read: a cold start's first page of every group.
   * Every fork asked for has an entry (empty when it holds nothing); duplicates are answered once.
   *
   * @example
   * const pages = await store.newestPerFork(groups.map((g) => g.key.toString()), 50)
   * pages.get("wss://groups.example.com'general") // NostrEvent[], newest first
   */
  newestPerFork(forks: readonly string[], limit: number): Promise<Map<string, NostrEvent[]>>
  /** The stored event with this id (64 hex), branded verified, or undefined. */
  get(id: string): Promise<NostrEvent | undefined>
  /**
   * Full-text search over the cached events ({@link StoreSearch}): SQLite's FTS5 index, an
   * IndexedDB word index, or a scan in memory; the same results from each.
   */
  search(q: StoreSearch): Promise<NostrEvent[]>
  /**
   * Relay-signed group state (39000–39005): keeps the newest per (relay, kind, d), ties to the
   * lowest id. Returns true if this event is now the stored one.
   */
  putState(relay: string, event: NostrEvent): Promise<boolean>
  /** The stored state event of this kind (39000–39005) for group `d` on `relay`, or undefined. */
  getState(relay: string, kind: number, d: string): Promise<NostrEvent | undefined>
  /**
   * Every stored state event (39000–39005) of each group fork (`<relay>'<d>`), in one read, in
   * kind order: what `getState` returns for each kind, for a cold start's many groups at once.
   * Every fork asked for has an entry (empty when nothing is stored).
   *
   * @example
   * const state = await store.statePerFork(["wss://groups.example.com'general"])
   */
  statePerFork(forks: readonly string[]): Promise<Map<string, NostrEvent[]>>
  /** Leaving: drops the fork's records, its state events, and events no other fork references. */
  deleteFork(fork: string): Promise<void>
  /**
   * Forgets that these events were seen in `fork` (events no other fork references go too), in one
   * transaction: what a reconciliation found the fork's relay no longer holds (deleted, or no
   * longer visible to us). Ids not recorded in the fork are ignored. Resolves to how many were.
   *
   * @example
   * await store.removeFromFork("wss://groups.example.com'general", [deletedId]) // 1
   */
  removeFromFork(fork: string, ids: readonly string[]): Promise<number>
  /**
   * Small local settings (read-state client id, slot id, marks, relay lists; yours under a prefix
   * of your own): the JSON value stored under `key`, or `undefined` when none is. TypeScript names
   * its type with `getValue<T>`; plain JavaScript gets the value as it was stored.
   *
   * @example
   * // a bot's cursor, kept across restarts: the newest event it answered
   * await roost.store.setValue('mybot:last', event.id)
   * const last = await roost.store.getValue('mybot:last') // the id string, or undefined the first time
   * group.subscribe(onEvent, last ? { after: last } : {})
   */
  getValue<T = unknown>(key: string): Promise<T | undefined>
  /** Stores a JSON-serializable value; `undefined` deletes the key. */
  setValue(key: string, value: unknown): Promise<void>
  /** Closes the database; the store is not used after this. */
  close(): Promise<void>
}
