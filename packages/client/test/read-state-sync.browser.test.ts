import type { Filter } from 'nostr-tools/filter'
import { afterEach, describe, expect, it } from 'vitest'
import { LocalSigner, nobleVerifier, RelayPool } from '../src'
import { type ReadStatePool, ReadStateSync } from '../src/read-state'
import { IndexedDbEventStore } from '../src/store'

/**
 * Decision g in a real page: a pending mark is flushed to the relays (read-before-write first) on
 * `pagehide` and when the page becomes hidden, and read state survives in IndexedDB. The relay is
 * unreachable (a fault): what matters is that the flush starts at once, not after the debounce.
 */
const closers: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

function setup(store: IndexedDbEventStore, signer: LocalSigner) {
  const real = new RelayPool({
    verifier: nobleVerifier,
    connectTimeout: 500,
    publishTimeout: 500,
    eoseTimeout: 500,
  })
  closers.push(() => real.close())
  const ownFetches: Filter[] = []
  const waiters: { n: number; resolve: () => void }[] = []
  let published = 0
  const publishWaiters: { n: number; resolve: () => void }[] = []
  const pool: ReadStatePool = {
    fetch: (relays, filters, opts) => {
      if (filters[0]?.['#d']) {
        ownFetches.push(filters[0])
        for (const w of waiters.filter((w) => w.n <= ownFetches.length)) w.resolve()
      }
      return real.fetch(relays, filters, opts)
    },
    subscribe: (...a) => real.subscribe(...a),
    publish: async (...a) => {
      const results = await real.publish(...a)
      published++
      // resolve after the sync has handled the result
      setTimeout(() => {
        for (const w of publishWaiters.filter((w) => w.n <= published)) w.resolve()
      }, 0)
      return results
    },
  }
  const sync = new ReadStateSync({
    pool,
    signer,
    store,
    relays: ['ws://127.0.0.1:9'],
    fetchTimeout: 300,
    debounceMs: 60_000,
    maxWaitMs: 120_000,
  })
  closers.push(() => sync.close())
  return {
    sync,
    ownFetches,
    fetched: (n: number) =>
      new Promise<void>((resolve) => (ownFetches.length >= n ? resolve() : waiters.push({ n, resolve }))),
    publishedCount: (n: number) =>
      new Promise<void>((resolve) => (published >= n ? resolve() : publishWaiters.push({ n, resolve }))),
  }
}

describe('ReadStateSync in Chromium', () => {
  it('flushes on pagehide and on visibility hidden, and keeps marks in IndexedDB', async () => {
    const name = `roost-read-state-${Date.now()}`
    const store = await IndexedDbEventStore.open(name)
    closers.push(() => store.close())
    const signer = LocalSigner.generate()
    const { sync, ownFetches, fetched, publishedCount } = setup(store, signer)
    await sync.ready
    sync.markRead("ws://127.0.0.1:9'general", 1_700_000_000)
    expect(ownFetches).toHaveLength(0)
    window.dispatchEvent(new Event('pagehide'))
    await fetched(1)
    expect(ownFetches[0]?.['#d']).toEqual([`read-state:${sync.slotId}`])
    await publishedCount(1) // the relay is unreachable: the publish fails and stays pending
    expect(sync.status()?.pending).toBe(true)

    sync.markRead("ws://127.0.0.1:9'general", 1_700_000_001) // still pending after the failed publish
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true })
    document.dispatchEvent(new Event('visibilitychange'))
    await fetched(2)
    await publishedCount(2)
    Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true })
    await sync.close()

    const again = setup(store, signer)
    await again.sync.ready
    expect(again.sync.effective("ws://127.0.0.1:9'general")).toBe(1_700_000_001)
    expect(again.sync.clientId).toBe(sync.clientId)
  })
})
