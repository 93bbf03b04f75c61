import { GroupsRegistry } from './groups/registry'
import type { SearchHit, SearchOptions } from './groups/search'
import type { ReadStateSource } from './groups/types'
import type { PublishResult } from './pool'
import { RelayPool, type RelayPoolOptions } from './pool/relay-pool'
import { ReadStateSync, type ReadStateSyncOptions } from './read-state'
import { RelayListFollower, relayListTemplate } from './relay-list'
import { fetchRelays, parseRelays, type RelaysOption, type UserRelays } from './relays'
import type { Signer } from './signers'
import { type EventStore, MemoryEventStore } from './store'

/** Options of the read-state sync `createRoost` builds (pool, signer, store and relays are its own). */
export type RoostReadStateOptions = Omit<ReadStateSyncOptions, 'pool' | 'signer' | 'store' | 'relays'> & {
  /** Relays for the read state alone, when they differ from the account's `relays` (the default). */
  relays?: ReadStateSyncOptions['relays']
}

/**
 * What {@link createRoost} takes: a signer, and usually the account's relays and a store that
 * persists; everything else has a default.
 *
 * @example
 * const options: RoostOptions = {
 *   signer: LocalSigner.generate(),
 *   store: new SqliteEventStore('bot.db'),
 *   relays: ['wss://groups.example.com'],
 * }
 */
export interface RoostOptions {
  /** Signs everything the account sends (and NIP-42 AUTH). */
  signer: Signer
  /** Local cache (default a fresh `MemoryEventStore`; `SqliteEventStore` or `IndexedDbEventStore` persist). */
  store?: EventStore
  /**
   * The account's relays: its 10009 group list and its read state are fetched from read ∪ write
   * and published to write. One list for both, or NIP-65 `{ read, write }`; anything else throws
   * `InvalidRelaysError` naming the option. Without relays everything stays on this device until
   * `setRelays()`.
   */
  relays?: RelaysOption
  /**
   * Read state (NIP-RS). Default: a `ReadStateSync` on `relays` (local only when there are none).
   * Pass options for it, `{ localOnly: true }` to keep it on this device, your own
   * `ReadStateSource`, or `false` for none (then `unread()` is 0).
   */
  readState?: RoostReadStateOptions | ReadStateSource | false
  /** Relay pool options (WebSocket constructor, verifier, NIP-42 policy, timeouts, backoff, …). */
  pool?: Omit<RelayPoolOptions, 'signer'>
  /** An existing pool to share instead (it is not closed by `close()`). */
  relayPool?: RelayPool
  /** Unix seconds (default the system clock). */
  clock?: () => number
  /**
   * Follow the user's NIP-65 relay list (kind 10002) found on `relays` and on its own write
   * relays: when there is one, the 10009 and read state use its relays (default true).
   */
  nip65?: boolean
  /**
   * Called when the user's NIP-65 list is found or replaced by a newer one (at start or at any
   * time later), as the group list switches to its relays. A `ReadStateSource` of your own
   * follows it here (e.g. `sync.setRelays(relays)`).
   */
  onRelayList?: (relays: UserRelays) => void
}

/** What {@link createRoost} returns. */
export interface Roost {
  /** The account's groups: join, leave, list, look up and search them. */
  readonly groups: GroupsRegistry
  /** The read-state sync (a `ReadStateSync` unless you passed your own source), if any. */
  readonly readState: ReadStateSync | ReadStateSource | undefined
  /** The relay connections everything goes through. */
  readonly pool: RelayPool
  /**
   * The event store in use (the one passed as `store`, or the in-memory default): read the cache
   * and small settings from it. Closed by `close()`.
   * @example const cached = await roost.store.query({ fork: group.key.toString(), kinds: [9], limit: 20 })
   */
  readonly store: EventStore
  /**
   * Switches the account's relays at once (e.g. added in Settings, or the user's NIP-65 list):
   * the group list and read state follow them from now on. Throws `InvalidRelaysError`.
   */
  setRelays(relays: RelaysOption): Promise<void>
  /**
   * Publishes a NIP-65 relay list (kind 10002) for these relays to them and to the configured ones,
   * and switches to them (Settings offers this to a user without one).
   */
  publishRelayList(relays: RelaysOption): Promise<PublishResult[]>
  /**
   * Searches the messages of all the account's groups: the local cache and the NIP-50 relays
   * (`GroupsRegistry.search`). Use `group.search` for one group.
   *
   * @example
   * const hits = await roost.search('pizza')
   */
  search(text: string, opts?: SearchOptions): Promise<SearchHit[]>
  /** Flushes pending writes and read state, closes subscriptions, the pool (if ours) and the store. */
  close(): Promise<void>
}

function isSource(x: unknown): x is ReadStateSource {
  return typeof x === 'object' && x !== null && typeof (x as ReadStateSource).frontier === 'function'
}

/**
 * Wires a Roost client: a relay pool (NIP-42 with the given signer), a store, the read-state sync
 * and the groups registry, which loads the account's groups from the store at once and then from
 * the relays.
 *
 * @example
 * import { createRoost, LocalSigner } from '@roost/client'
 * const roost = createRoost({ signer: LocalSigner.generate(), relays: ['wss://relay.example.com'] })
 * await roost.groups.ready
 * const group = await roost.groups.join('naddr1…')
 * await group.sendMessage('hello')
 * group.markRead()
 * await roost.close()
 */
export function createRoost(opts: RoostOptions): Roost {
  const relays = parseRelays(opts.relays)
  const ownRelays = opts.readState && !isSource(opts.readState) ? opts.readState.relays : undefined
  if (ownRelays !== undefined) parseRelays(ownRelays, 'readState.relays')
  const clock = opts.clock ?? opts.pool?.clock
  const pool =
    opts.relayPool ?? new RelayPool({ ...opts.pool, signer: opts.signer, ...(clock ? { clock } : {}) })
  const store = opts.store ?? new MemoryEventStore()
  let ownSync: ReadStateSync | undefined
  let readState: ReadStateSync | ReadStateSource | undefined
  let groups: GroupsRegistry | undefined
  if (isSource(opts.readState)) readState = opts.readState
  else if (opts.readState !== false) {
    const o = opts.readState ?? {}
    ownSync = new ReadStateSync({
      ...(clock ? { clock: () => clock() * 1000 } : {}),
      ...o,
      pool,
      signer: opts.signer,
      store,
      relays: o.relays ?? relays,
      parentOf: o.parentOf ?? ((ctx) => groups?.parentOf(ctx)),
    })
    readState = ownSync
  }
  groups = new GroupsRegistry({
    pool,
    store,
    signer: opts.signer,
    relays,
    readState,
    clock,
    publishTimeout: opts.pool?.publishTimeout,
  })
  const registry = groups
  const switchTo = async (next: RelaysOption) => {
    const parsed = parseRelays(next)
    await Promise.all([
      registry.setRelays(parsed),
      ownSync && ownRelays === undefined ? ownSync.setRelays(parsed) : undefined,
    ])
  }
  let follower: RelayListFollower | undefined
  if (opts.nip65 !== false && fetchRelays(relays).length > 0) {
    void opts.signer
      .getPublicKey()
      .then((me) => {
        if (closing) return
        follower = new RelayListFollower(pool, me, (list) => {
          void switchTo(list).catch(() => {})
          try {
            opts.onRelayList?.(list)
          } catch {
            // the caller's listener failing must not stop following the list
          }
        })
        follower.watch(fetchRelays(relays))
      })
      .catch(() => {})
  }
  let closing: Promise<void> | undefined
  return {
    groups: registry,
    readState,
    pool,
    get store() {
      return store
    },
    setRelays: switchTo,
    search: (text, opts) => registry.search(text, opts),
    async publishRelayList(next) {
      const parsed = parseRelays(next)
      const now = (clock ?? (() => Math.floor(Date.now() / 1000)))()
      const event = await opts.signer.signEvent(relayListTemplate(parsed, now))
      const targets = [...new Set([...parsed.write, ...parsed.read, ...fetchRelays(relays)])]
      const results = targets.length ? await pool.publish(targets, event) : []
      await switchTo(parsed)
      return results
    },
    close() {
      closing ??= (async () => {
        follower?.close()
        await registry.close()
        await ownSync?.close()
        if (!opts.relayPool) pool.close()
        await store.close()
      })()
      return closing
    },
  }
}
