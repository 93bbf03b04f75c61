import { LocalSigner, MemoryEventStore, RelayPool } from '@roost/client'
import { afterEach, describe, expect, test } from 'vitest'
import { ReadStateSwitch } from '../../src/model/read-state'
import { type TabChannel, type TabLocks, TabReadState } from '../../src/model/tab-read-state'

/**
 * Web Locks as the browser grants them: one holder per name, `ifAvailable` answers null when
 * held, other requests queue in order and get the lock when the holder's callback settles.
 * (Node has no `navigator.locks`; the browser's own is exercised in the e2e test.)
 */
class Locks implements TabLocks {
  private held = new Set<string>()
  private queues = new Map<string, (() => void)[]>()
  async request(name: string, options: { ifAvailable?: boolean }, cb: (lock: unknown) => unknown) {
    if (this.held.has(name)) {
      if (options.ifAvailable) return cb(null)
      await new Promise<void>((resolve) => {
        const q = this.queues.get(name) ?? []
        q.push(resolve)
        this.queues.set(name, q)
      })
    }
    this.held.add(name)
    try {
      return await cb({ name })
    } finally {
      this.held.delete(name)
      this.queues.get(name)?.shift()?.()
    }
  }
}

const CH = "ws://127.0.0.1:7777'general"
const CH2 = "ws://127.0.0.1:7777'other"
const closers: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

/** The tabs of one browser profile: one store (IndexedDB), the profile's locks, real BroadcastChannels. */
function profile() {
  const store = new MemoryEventStore()
  const locks = new Locks()
  const signer = LocalSigner.generate()
  const name = `roost-read-state-test-${Math.random()}`
  const syncs: ReadStateSwitch[] = []
  const tab = () => {
    const pool = new RelayPool({ signer })
    closers.push(() => pool.close())
    const shared = new TabReadState(
      {
        name,
        locks,
        channel: () => new BroadcastChannel(name) as unknown as TabChannel,
        readyTimeout: 200,
        // No relays: the sync keeps marks and persists its ids in the store, as with IndexedDB.
        lead: () => {
          const sync = new ReadStateSwitch(
            { pool, signer, store, relays: [], flushOnHide: false, debounceMs: 10, maxWaitMs: 50 },
            false,
          )
          syncs.push(sync)
          return sync
        },
      },
      false,
    )
    closers.push(() => shared.close())
    return shared
  }
  return { tab, syncs }
}

async function until(pred: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('TabReadState: one read-state installation per browser profile', () => {
  test('the first tab leads; a second follows, its marks reach the leader and the state comes back', async () => {
    const { tab, syncs } = profile()
    const one = tab()
    await one.ready
    expect(one.isLeader).toBe(true)
    const two = tab()
    await two.ready
    expect(two.isLeader).toBe(false)
    // only one sync runs: one client_id and slot for the profile
    expect(syncs).toHaveLength(1)

    two.markRead(CH, 1_700_000_100)
    expect(two.frontier(CH)).toBe(1_700_000_100) // at once in the tab that read it
    await until(() => one.frontier(CH) === 1_700_000_100, 'the leader has the follower’s mark')
    one.markRead(CH2, 1_700_000_200)
    await until(() => two.frontier(CH2) === 1_700_000_200, 'the follower hears the leader’s mark')
    expect(two.contexts).toMatchObject({ [CH]: 1_700_000_100, [CH2]: 1_700_000_200 })
  })

  test('when the leader’s tab closes, a follower takes over with the same ids and keeps every mark', async () => {
    const { tab, syncs } = profile()
    const one = tab()
    await one.ready
    const two = tab()
    await two.ready
    one.markRead(CH, 1_700_000_100)
    await until(() => two.frontier(CH) === 1_700_000_100, 'the follower hears the leader')
    await syncs[0]!.ready
    await syncs[0]!.flush()
    const before = { clientId: syncs[0]!.clientId, slotId: syncs[0]!.slotId }
    expect(before.clientId).toMatch(/^[0-9a-f]{32}$/)

    await one.close()
    await until(() => two.isLeader, 'the follower took the lock')
    await two.ready
    await syncs[1]!.ready
    expect({ clientId: syncs[1]!.clientId, slotId: syncs[1]!.slotId }).toEqual(before)
    expect(two.frontier(CH)).toBe(1_700_000_100)
    two.markRead(CH2, 1_700_000_300)
    expect(two.frontier(CH2)).toBe(1_700_000_300)
  })

  test('a follower’s mark made just before the leader leaves is not lost', async () => {
    const { tab } = profile()
    const one = tab()
    await one.ready
    const two = tab()
    await two.ready
    // the leader goes away before the mark's message is handled
    const closing = one.close()
    two.markRead(CH, 1_700_000_500)
    await closing
    await until(() => two.isLeader, 'the follower took the lock')
    await two.ready
    expect(two.frontier(CH)).toBe(1_700_000_500)
  })

  test('without Web Locks or BroadcastChannel each tab runs its own sync, as before', async () => {
    const store = new MemoryEventStore()
    const signer = LocalSigner.generate()
    const pool = new RelayPool({ signer })
    closers.push(() => pool.close())
    const shared = new TabReadState(
      {
        name: 'x',
        locks: undefined,
        channel: undefined,
        lead: () => new ReadStateSwitch({ pool, signer, store, relays: [], flushOnHide: false }, false),
      },
      false,
    )
    closers.push(() => shared.close())
    // navigator.locks is absent in Node: it leads at once
    expect(shared.isLeader).toBe(true)
    await shared.ready
    shared.markRead(CH, 5)
    expect(shared.frontier(CH)).toBe(5)
  })
})
