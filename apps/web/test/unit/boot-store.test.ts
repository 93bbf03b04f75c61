import { MemoryEventStore } from '@roost/client'
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from 'nostr-tools'
import { describe, expect, test } from 'vitest'
import { BootStore, forgetBoot } from '../../src/model/boot-store'

const FORK = "ws://127.0.0.1:7777'talk"
const sk = generateSecretKey()
const ME = getPublicKey(sk)

function message(text: string, at: number): NostrEvent {
  return finalizeEvent({ kind: 9, created_at: at, content: text, tags: [['h', 'talk']] }, sk)
}

/** A memory store that counts the reads that reach it. */
class CountingStore extends MemoryEventStore {
  reads = 0
  override newestPerFork(forks: readonly string[], limit: number) {
    this.reads++
    return super.newestPerFork(forks, limit)
  }
  override getValue<T = unknown>(key: string) {
    this.reads++
    return super.getValue<T>(key)
  }
}

function memoryStorage(): Storage {
  const map = new Map<string, string>()
  return {
    get length() {
      return map.size
    },
    clear: () => map.clear(),
    key: (i: number) => [...map.keys()][i] ?? null,
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
  }
}

const texts = (page: Map<string, NostrEvent[]>) => (page.get(FORK) ?? []).map((e) => e.content)

describe('the cache reads a start begins at boot', () => {
  test('are the answers of the same reads, each taken once', async () => {
    const inner = new CountingStore()
    await inner.addMany([message('one', 100), message('two', 101)], FORK)
    await inner.setValue('list', ['talk'])
    const store = new BootStore(inner, ME, [
      { m: 'newestPerFork', a: [[FORK], 50] },
      { m: 'getValue', a: ['list'] },
    ])
    expect(inner.reads).toBe(2)
    expect(texts(await store.newestPerFork([FORK], 50))).toEqual(['two', 'one'])
    expect(await store.getValue('list')).toEqual(['talk'])
    expect(inner.reads).toBe(2)
    // Asked again: read again.
    expect(texts(await store.newestPerFork([FORK], 50))).toEqual(['two', 'one'])
    expect(inner.reads).toBe(3)
    // A read the last start did not make goes to the store.
    expect(texts(await store.newestPerFork([FORK], 1))).toEqual(['two'])
    expect(inner.reads).toBe(4)
  })

  test('are dropped by a write, so a read after it sees what was written', async () => {
    const inner = new CountingStore()
    await inner.addMany([message('one', 100)], FORK)
    const store = new BootStore(inner, ME, [{ m: 'newestPerFork', a: [[FORK], 50] }])
    await store.add(message('two', 101), FORK)
    expect(texts(await store.newestPerFork([FORK], 50))).toEqual(['two', 'one'])
    expect(inner.reads).toBe(2)
  })

  test('are written down for the next start once the groups are loaded, and forgotten at sign-out', async () => {
    const storage = memoryStorage()
    const store = new BootStore(new MemoryEventStore(), ME, [], storage)
    await store.getValue('list')
    await store.newestPerFork([FORK], 50)
    store.keepReads()
    await store.getValue('later')
    store.keepReads()
    expect(JSON.parse(storage.getItem('roost.boot.v1') ?? 'null')).toEqual({
      pubkey: ME,
      reads: [
        { m: 'getValue', a: ['list'] },
        { m: 'newestPerFork', a: [[FORK], 50] },
      ],
    })
    forgetBoot(storage)
    expect(storage.getItem('roost.boot.v1')).toBeNull()
  })
})
