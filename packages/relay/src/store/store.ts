import type { Filter, NostrEvent } from 'nostr-tools'
import type { GroupIndex, ReadView } from '../groups/group-index'
import type { GroupRecord } from '../groups/record'

export type { ReadView } from '../groups/group-index'

/** A stored row as queries return it: the raw JSON plus the columns visibility needs. */
export interface StoredRow {
  /** The event exactly as stored (`JSON.stringify` of the accepted event). */
  json: string
  id: string
  pubkey: string
  kind: number
  created_at: number
  /** The group the event belongs to: its `h` tag, or the `d` of relay-signed 39000–39005; null otherwise. */
  grp: string | null
  /** The relay's arrival order: larger arrived later (SQLite rowid, PostgreSQL seq). */
  seq: number
}

/** A position in the answer order (`created_at` descending, then arrival descending): rows after it come next. */
export interface Cursor {
  created_at: number
  seq: number
}

/** One step of a paged read ({@link EventStore.page}). */
export interface Page {
  /** The matching rows the reader may see, in answer order. */
  rows: StoredRow[]
  /** The last candidate examined: continue after it. Undefined when nothing is left to examine. */
  next: Cursor | undefined
  /** Candidates examined (what the step cost). */
  scanned: number
}

/** Outcome of an insert: stored, already there, or an older version of a replaceable/addressable event. */
export type InsertResult = 'saved' | 'duplicate' | 'stale'

/** How many of a group's newest events the intake reads as its `previous` window (`ring`). */
export const RING_WINDOW = 50

/** One entry of a group's `previous` window. */
export interface RingEntry {
  id: string
  pubkey: string
}

/**
 * The operator's lists (NIP-86), kept by every backend in one table: banned and allowed keys,
 * banned events and events cleared of their reports, allowed and disallowed kinds, blocked
 * addresses, and `relay-info` (the relay's name, description and icon as the operator set them,
 * `value` naming the field and `note` holding the text).
 */
export type ListName =
  | 'banned-pubkey'
  | 'allowed-pubkey'
  | 'banned-event'
  | 'allowed-event'
  | 'allowed-kind'
  | 'disallowed-kind'
  | 'blocked-ip'
  | 'relay-info'

/** One entry of an operator's list: `note` is the reason given (or the text, for `relay-info`). */
export interface ListEntry {
  list: ListName
  value: string
  note: string
}

/**
 * What every backend can read, inside a transaction or outside one. Every method may be answered
 * from memory (SQLite) or over the network (PostgreSQL), so each returns a Promise.
 */
export interface StoreReader {
  /** The stored event with this id. */
  get(id: string): Promise<StoredRow | undefined>
  /**
   * Events matching one NIP-01 filter, newest `created_at` first, latest arrival first within a second;
   * at most `limit` rows after skipping `offset`. Tag filters match the single-letter tags an event
   * carries (values up to 512 characters are indexed). Empty lists in a filter match nothing.
   */
  query(filter: Filter, limit: number, offset?: number): Promise<StoredRow[]>
  /** The current record of a group (deleted groups included, flagged `deleted`), or undefined. */
  group(id: string): Promise<GroupRecord | undefined>
  /** True when this id was deleted by a moderator, an author or a group deletion (it cannot come back). */
  wasDeleted(id: string): Promise<boolean>
}

/**
 * One unit of work of the intake pipeline: everything one EVENT (or one admin call) decides and
 * writes. It sees its own writes; nothing of it is visible to other units or readers until it
 * commits, and nothing of it remains if it throws.
 */
export interface StoreTransaction extends StoreReader {
  /**
   * Stores an event. A replaceable (0, 3, 10000–19999) or addressable (30000–39999) event replaces
   * the stored version with the same kind, pubkey (and `d`) when it is newer (`created_at`, then
   * the lower id wins a tie); otherwise it is `'stale'` and nothing changes. Ephemeral kinds are
   * never passed here.
   */
  insert(event: NostrEvent): Promise<InsertResult>
  /**
   * Hands an ephemeral event (never stored) to the other relay processes once this unit commits, in
   * order with the events it inserts (stored events are handed on by `insert` itself).
   */
  announce(event: NostrEvent): Promise<void>
  /**
   * True when `pubkey` has a stored kind 5 naming `id` in an `e` tag (NIP-09: the author withdrew
   * it, so it cannot be published again). The same answer as a `{kinds: [5], authors, '#e'}`
   * query, asked for every EVENT, so backends answer it with one index probe.
   */
  deletedByAuthor(pubkey: string, id: string): Promise<boolean>
  /** Deletes events by id; resolves to how many were removed. */
  deleteIds(ids: readonly string[]): Promise<number>
  /** Deletes every event of a group (`h` = id, and relay state with `d` = id) except `keepId`; resolves to the deleted ids. */
  deleteGroupEvents(groupId: string, keepId: string): Promise<string[]>
  /** Remembers ids so they cannot be published again (the newest 1,024 are kept). */
  rememberDeleted(ids: readonly string[], at: number): Promise<void>
  /** The stored version of an addressable event `kind:pubkey:d`, if any. */
  latest(kind: number, pubkey: string, d: string): Promise<StoredRow | undefined>
  /**
   * The `previous` window: the newest `n` events of a group (any kind, any author) in the order the
   * relay accepted them, newest first. Includes events this unit inserted. It is the acceptance
   * order itself, not `TimelineWindow` of `@roost/nip29` (which orders by `created_at` first, as a
   * client that sees only what the relay sends must): an event accepted late with an older
   * `created_at` is among the newest here.
   */
  ring(groupId: string, n: number): Promise<RingEntry[]>
  /** Writes a group's record; readers see it once the unit commits. */
  saveGroup(g: GroupRecord): Promise<void>
  /** Removes a group's record. */
  dropGroup(id: string): Promise<void>
  /** Adds (or replaces the note of) an entry of an operator's list; other processes hear of it at the commit. */
  putListed(list: ListName, value: string, note: string): Promise<void>
  /** Removes an entry of an operator's list; resolves to whether it was there. */
  dropListed(list: ListName, value: string): Promise<boolean>
}

/**
 * The relay's storage: the contract every backend implements (SQLite in `sqlite.ts`, PostgreSQL in
 * `postgres.ts`).
 *
 * Ordering and isolation, which the intake pipeline relies on:
 * - {@link EventStore.unit} runs the whole authorize-and-write of one event as one transaction. Units
 *   naming the same group run one after another in the order `unit` was called (so a group accepts
 *   events in arrival order and every check sees the state the previous event left); units of
 *   different groups may run concurrently when the backend can (PostgreSQL: a per-group advisory or
 *   row lock taken first, other groups' records locked as `group()` reads them, a deadlock retried).
 * - A backend with several relay processes on one database also calls the listeners given to
 *   {@link EventStore.onRemote} with events other processes committed (LISTEN/NOTIFY), so live
 *   subscriptions see them; a single-process backend never calls them.
 * - Reads outside a unit ({@link StoreReader}) see committed data only.
 *
 * @example
 * const saved = await store.unit('general', async (tx) => {
 *   if (!(await tx.group('general'))) return 'unknown'
 *   return tx.insert(event)
 * })
 */
export interface EventStore extends StoreReader {
  /**
   * Runs `fn` as one transaction holding `groupId`'s lock (undefined: an event of no group, which
   * still runs atomically). Resolves to what `fn` resolves to once committed; rejects (rolled back)
   * when `fn` throws.
   *
   * `committed`, when given, is called with that value synchronously at the commit, before any read
   * of this store issued after the unit was queued can see the unit's rows: the place to hand
   * accepted events to live subscriptions, so a REQ never sees a row whose live copy is still to
   * come.
   *
   * `about`, when given, is the event the unit decides: a backend across a network (PostgreSQL)
   * reads what every EVENT asks first — `get(id)`, `wasDeleted(id)`, `deletedByAuthor(pubkey, id)` —
   * in the round trip that opens the unit, and answers those from it until the unit writes.
   */
  unit<T>(
    groupId: string | undefined,
    fn: (tx: StoreTransaction) => Promise<T>,
    committed?: (value: T) => void,
    about?: Pick<NostrEvent, 'id' | 'pubkey'>,
  ): Promise<T>
  /**
   * The last committed record of a group this process knows, synchronously (the handle's
   * `state()`). A multi-process backend keeps it current from its fan-out.
   */
  peekGroup(id: string): GroupRecord | undefined
  /** Relay-wide settings (signing keys, demo seed markers). */
  getMeta(key: string): Promise<string | undefined>
  setMeta(key: string, value: string): Promise<void>
  /** Keeps `value` under `key` unless a value is kept already; resolves to the kept one (first writer wins). */
  claimMeta(key: string, value: string): Promise<string>
  /**
   * Runs `fn` while holding the relay-wide lock `name`, so that of several relay processes on one
   * database only one runs it at a time (PostgreSQL: a session advisory lock, released when `fn`
   * settles or the process dies). For one-time work such as the demo seed: the next holder sees
   * what the previous one committed. A single-process backend runs `fn` at once.
   */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>
  /** The committed groups some reader may not fully see, kept current by the store. */
  readonly groupIndex: GroupIndex
  /**
   * One bounded step of a read for a REQ: examines at most `window` candidate rows after `after`
   * (in answer order) and returns those that match `filter` and that `view` does not hide, at most
   * `limit` of them. Visibility is applied in the query, so rows a reader may not see cost no
   * round trip and no page of their own.
   */
  page(
    filter: Filter,
    limit: number,
    opts: { view?: ReadView; after?: Cursor; window: number },
  ): Promise<Page>
  /**
   * NIP-45 COUNT: the arrival numbers (`seq`) of the stored events matching `filter` that `view`
   * does not hide, every one (`limit` ignored), examining at most `maxScan` candidate rows of the
   * filter's walk; undefined when it would take more. Visibility is applied in the query, as
   * {@link EventStore.page} applies it.
   */
  countable(filter: Filter, opts: { view?: ReadView; maxScan: number }): Promise<number[] | undefined>
  /** Registers a listener for events committed by other relay processes on the same database. */
  onRemote(listener: (event: NostrEvent) => void): void
  /** Every entry of the operator's lists, committed. */
  lists(): Promise<ListEntry[]>
  /**
   * Registers a listener called when another relay process changed the operator's lists, or when
   * changes may have been missed (the fan-out reconnected): the place to read {@link lists} again.
   * A single-process backend never calls it.
   */
  onListsChanged(listener: () => void): void
  /** Closes the database; waits for running units. */
  close(): Promise<void>
}
