import { describe, expect, it } from 'vitest'
import { IndexedDbEventStore, StoreOpenError } from '../src/store'
import { storeContract } from './store-contract'
import { storeSearchContract } from './store-search-contract'

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
  storeSearchContract('IndexedDbEventStore', {
    open: () => open(),
    reopen: async (store) => {
      const name = names.get(store) as string
      await store.close()
      return open(name)
    },
    runs: 15,
  })

  it('indexes for search a cache written before the search index (version 1)', async () => {
    const name = `roost-v1-${run}`
    const event = {
      id: 'a'.repeat(64),
      pubkey: 'b'.repeat(64),
      sig: 'c'.repeat(128),
      kind: 9,
      created_at: 5,
      tags: [['h', 'general']],
      content: 'an old Remark',
    }
    const v1 = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open(name, 1)
      r.onupgradeneeded = () => {
        const db = r.result
        const events = db.createObjectStore('events', { keyPath: 'id' })
        events.createIndex('time', 'created_at')
        events.createIndex('root', 'root', { unique: true })
        db.createObjectStore('refs')
        const state = db.createObjectStore('state', { keyPath: ['relay', 'kind', 'd'] })
        state.createIndex('fork', 'fork')
        db.createObjectStore('values')
        events.put({ id: event.id, event, created_at: 5, forks: ["wss://r.example'general"] })
      }
      r.onsuccess = () => resolve(r.result)
      r.onerror = () => reject(r.error)
    })
    v1.close()
    const store = await open(name)
    expect((await store.search({ text: 'remark' })).map((e) => e.id)).toEqual([event.id])
    await store.close()
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
      const r = indexedDB.open(name, 99)
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
