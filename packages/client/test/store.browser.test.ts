import { describe, expect, it } from 'vitest'
import { IndexedDbEventStore } from '../src/store'
import { storeContract } from './store-contract'

let n = 0
const names = new WeakMap<object, string>()
const run = `${Date.now()}`

async function open(name = `roost-test-${run}-${n++}`): Promise<IndexedDbEventStore> {
  const store = await IndexedDbEventStore.open(name)
  names.set(store, name)
  return store
}

describe('IndexedDbEventStore in Chromium', () => {
  storeContract('IndexedDbEventStore', {
    open: () => open(),
    reopen: async (store) => {
      const name = names.get(store) as string
      await store.close()
      return open(name)
    },
    runs: 25,
  })

  it('runs in a real browser with a real IndexedDB', () => {
    expect(typeof window).toBe('object')
    expect(globalThis.indexedDB).toBeInstanceOf(IDBFactory)
  })
})
