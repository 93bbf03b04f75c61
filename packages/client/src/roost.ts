import { GroupsRegistry } from './groups/registry'
import type { ReadStateSource } from './groups/types'
import { RelayPool, type RelayPoolOptions } from './pool/relay-pool'
import type { Signer } from './signers'
import { type EventStore, MemoryEventStore } from './store'

export interface RoostOptions {
  /** Signs everything the account sends (and NIP-42 AUTH). */
  signer: Signer
  /** Local cache (default a fresh `MemoryEventStore`; `SqliteEventStore` or `IndexedDbEventStore` persist). */
  store?: EventStore
  /** The account's relays for its 10009 group list (read and write). */
  relays?: readonly string[]
  /** Where `Group.unread()` / `markRead()` read and write (NIP-RS read state). */
  readState?: ReadStateSource
  /** Relay pool options (WebSocket constructor, verifier, NIP-42 policy, timeouts, backoff, …). */
  pool?: Omit<RelayPoolOptions, 'signer'>
  /** An existing pool to share instead (it is not closed by `close()`). */
  relayPool?: RelayPool
  /** Unix seconds (default the system clock). */
  clock?: () => number
}

/** What {@link createRoost} returns. */
export interface Roost {
  readonly groups: GroupsRegistry
  readonly readState: ReadStateSource | undefined
  readonly pool: RelayPool
  /** Flushes pending writes and closes subscriptions, the pool (if ours) and the store. */
  close(): Promise<void>
}

/**
 * Wires a Roost client: a relay pool (NIP-42 with the given signer), a store, and the groups
 * registry, which loads the account's groups from the store at once and then from the relays.
 *
 * @example
 * import { createRoost, LocalSigner } from '@roost/client'
 * const roost = createRoost({ signer: LocalSigner.generate(), relays: ['wss://relay.example.com'] })
 * await roost.groups.ready
 * const group = await roost.groups.join('naddr1…')
 * await group.sendMessage('hello')
 * await roost.close()
 */
export function createRoost(opts: RoostOptions): Roost {
  const clock = opts.clock ?? opts.pool?.clock
  const pool =
    opts.relayPool ?? new RelayPool({ ...opts.pool, signer: opts.signer, ...(clock ? { clock } : {}) })
  const store = opts.store ?? new MemoryEventStore()
  const groups = new GroupsRegistry({
    pool,
    store,
    signer: opts.signer,
    relays: opts.relays,
    readState: opts.readState,
    clock,
    publishTimeout: opts.pool?.publishTimeout,
  })
  let closing: Promise<void> | undefined
  return {
    groups,
    readState: opts.readState,
    pool,
    close() {
      closing ??= (async () => {
        await groups.close()
        if (!opts.relayPool) pool.close()
        await store.close()
      })()
      return closing
    },
  }
}
