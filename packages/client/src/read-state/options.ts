import type { ParentResolver } from '@roost/read-state'
import type { NostrEvent } from 'nostr-tools/core'
import type { Filter } from 'nostr-tools/filter'
import type { PublishResult } from '../pool'
import type { Signer } from '../signers'
import type { EventStore } from '../store'
import type { Verifier } from '../verify'

/**
 * The part of `RelayPool` the sync uses (so a test may wrap it to inject a fault).
 *
 * @example
 * const sync = new ReadStateSync({ pool: roost.pool, signer, store, relays })
 */
export interface ReadStatePool {
  /** The stored events matching `filters` on these relays, until each sends EOSE or `timeout` ms. */
  fetch(relays: string[], filters: Filter[], opts?: { timeout?: number }): Promise<NostrEvent[]>
  /** A live subscription on one relay (see {@link RelayPool.subscribe}); `close()` ends it. */
  subscribe(
    relay: string,
    filters: Filter[],
    handlers: { onevent(e: NostrEvent): void; oneose?(): void; onclosed?(reason: string): void },
    opts?: { id?: string },
  ): {
    /** Ends the subscription (sends CLOSE). */
    close(): void
  }
  /** Sends the event to each relay; one result per relay, never a rejection. */
  publish(relays: string[], event: NostrEvent, opts?: { timeout?: number }): Promise<PublishResult[]>
}

/**
 * Timer functions (injectable so tests run on a fake clock).
 *
 * @example
 * new ReadStateSync({ ...opts, clock: () => fake.now, timers: { setTimeout: fake.set, clearTimeout: fake.clear } })
 */
export interface ReadStateTimers {
  /** Calls `fn` once after `ms` milliseconds; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown
  /** Cancels a timer `setTimeout` returned. */
  clearTimeout(handle: unknown): void
}

/**
 * The user's relays: NIP-65 read and write, or one list used for both.
 *
 * @example
 * const relays: ReadStateRelays = { read: ['wss://in.example.com'], write: ['wss://out.example.com'] }
 */
export type ReadStateRelays =
  | readonly string[]
  | {
      /** Relays to read from (NIP-65 `read`). */
      readonly read: readonly string[]
      /** Relays to publish to (NIP-65 `write`). */
      readonly write: readonly string[]
    }

/**
 * Options of {@link ReadStateSync}.
 *
 * @example
 * new ReadStateSync({ pool, signer, store, relays: ['wss://relay.example.com'], debounceMs: 5_000 })
 */
export interface ReadStateSyncOptions {
  /** Fetches, subscribes and publishes the read-state events (a {@link RelayPool} fits). */
  pool: ReadStatePool
  /** NIP-44 to self goes through `signer.nip44`, so NIP-07 and NIP-46 signers work. */
  signer: Signer
  /** Persists `client_id`, slot, marks and last-published state per pubkey (`getValue`/`setValue`). */
  store: EventStore
  /** Fetch from the union of read and write relays, publish to the write relays (decision f). */
  relays: ReadStateRelays
  /** Fetch horizon in seconds (default 7 days). */
  horizonSeconds?: number
  /** Trailing debounce in ms (default 5,000) and the longest wait under activity (default 30,000). */
  debounceMs?: number
  /** The longest wait under continuous activity before publishing, in ms (default 30,000). */
  maxWaitMs?: number
  /** Plaintext budget in bytes (default 32,768, at most 40,960). */
  budget?: number
  /** Parent channel of `thread:`/`msg:` contexts (from the event graph). */
  parentOf?: ParentResolver
  /** Checks id and signature before anything is decrypted (default the noble verifier; branded events are not re-checked). */
  verifier?: Verifier
  /** Milliseconds since the epoch (default `Date.now`). */
  clock?: () => number
  /** Default the global `setTimeout`/`clearTimeout`. */
  timers?: ReadStateTimers
  /** Fresh ids for `client_id` and slots (default 16 random bytes as hex from `crypto.getRandomValues`). */
  randomId?: () => string
  /** Deadline of each fetch in ms (default 5,000). */
  fetchTimeout?: number
  /** Decision l: keep read state on this device only (no fetch, no subscription, no publish). */
  localOnly?: boolean
  /**
   * Reads every device's read state (fetch and live subscription) but publishes nothing, neither
   * blobs nor deletions: for a window that cannot keep its `client_id` and slot, such as private
   * browsing without IndexedDB, where each start would otherwise claim a new slot. Marks apply
   * here, for this session only.
   */
  readOnly?: boolean
  /** Flush on `pagehide` and when the page becomes hidden (default true where `document` exists). */
  flushOnHide?: boolean
  /** Longest `close()` waits for its final flush, in ms (default 10,000). */
  closeTimeout?: number
}

/**
 * What listeners of {@link ReadStateSync.subscribe} receive.
 *
 * @example
 * sync.subscribe(({ contexts, remote }) => { if (remote) toast(`${contexts.length} read elsewhere`) })
 */
export interface ReadStateChange {
  /** The contexts whose value advanced (locally or from another device). */
  readonly contexts: readonly string[]
  /** True when the change came from a blob of another device. */
  readonly remote: boolean
}
