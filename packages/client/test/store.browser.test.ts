import { describe, expect, it } from 'vitest'
import { IndexedDbEventStore, StoreOpenError } from '../src/store'
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

  it('refuses to open without IndexedDB, with StoreOpenError', async () => {
    await expect(IndexedDbEventStore.open('x', null as unknown as IDBFactory)).rejects.toBeInstanceOf(
      StoreOpenError,
    )
  })

  it('steps aside when another tab upgrades the database', async () => {
    const name = `roost-upgrade-${run}`
    const store = await open(name)
    const upgraded = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open(name, 2)
      r.onsuccess = () => resolve(r.result)
      r.onerror = () => reject(r.error)
    })
    upgraded.close()
    await expect(store.get('a'.repeat(64))).rejects.toThrow(/closed/)
  })

  it('runs in a real browser with a real IndexedDB', () => {
    expect(typeof window).toBe('object')
    expect(globalThis.indexedDB).toBeInstanceOf(IDBFactory)
  })
})
