/**
 * The cache's first reads, started before the app is built. A reload spends most of its wait on
 * IndexedDB: open the database, then the stored group list, then every group's newest page, one
 * after another. The last session wrote down which reads its start made (and which account's
 * database); the next start issues them all at once, as the page's first script runs, so they
 * proceed while the rest of the app is evaluated and the session is restored. The client's own
 * reads of the same things then take the answers already there (each answer once, and only while
 * nothing has been written since it was read), so the cached groups paint without waiting for the
 * database a second time.
 */
import type { AddOptions, EventStore, StoreQuery, StoreSearch } from '@roost/client'
import { IndexedDbEventStore } from '@roost/client'
import type { NostrEvent } from 'nostr-tools'

export const BOOT_KEY = 'roost.boot.v1'
const KEY = BOOT_KEY
/** At most this many reads are written down (a start makes about ten). */
const MAX_READS = 32

type Read =
  | { m: 'query'; a: [StoreQuery] }
  | { m: 'newestPerFork'; a: [string[], number] }
  | { m: 'statePerFork'; a: [string[]] }
  | { m: 'getValue'; a: [string] }
  | { m: 'getState'; a: [string, number, string] }

interface BootRecord {
  pubkey: string
  reads: Read[]
}

function readRecord(storage: Storage): BootRecord | undefined {
  try {
    const raw = storage.getItem(KEY)
    if (!raw) return undefined
    const r = JSON.parse(raw) as BootRecord
    if (typeof r?.pubkey !== 'string' || !/^[0-9a-f]{64}$/.test(r.pubkey) || !Array.isArray(r.reads))
      return undefined
    return r
  } catch {
    return undefined
  }
}

/**
 * An `EventStore` over IndexedDB that answers its first reads from the ones started at boot, and
 * writes down the reads of this start for the next one.
 */
export class BootStore implements EventStore {
  /** Reads started at boot, by call, each taken once; all dropped at the first write. */
  private readonly early = new Map<string, Promise<unknown>>()
  private recording: Read[] | undefined = []

  constructor(
    readonly inner: EventStore,
    private readonly pubkey: string,
    reads: readonly Read[] = [],
    private readonly storage?: Storage,
  ) {
    for (const r of reads) {
      const key = JSON.stringify(r)
      if (this.early.has(key)) continue
      const answer = this.call(r)
      answer.catch(() => undefined)
      this.early.set(key, answer)
    }
  }

  private call(r: Read): Promise<unknown> {
    const s = this.inner
    switch (r.m) {
      case 'query':
        return s.query(...r.a)
      case 'newestPerFork':
        return s.newestPerFork(...r.a)
      case 'statePerFork':
        return s.statePerFork(...r.a)
      case 'getValue':
        return s.getValue(...r.a)
      case 'getState':
        return s.getState(...r.a)
    }
  }

  private read<T>(r: Read): Promise<T> {
    if (this.recording && this.recording.length < MAX_READS) this.recording.push(r)
    const key = JSON.stringify(r)
    const early = this.early.get(key)
    if (early) {
      this.early.delete(key)
      return early as Promise<T>
    }
    return this.call(r) as Promise<T>
  }

  private write(): void {
    this.early.clear()
  }

  /** This start's cached groups are loaded: its reads are written down for the next start. */
  keepReads(): void {
    const reads = this.recording
    this.recording = undefined
    this.early.clear()
    if (!reads || !this.storage) return
    try {
      this.storage.setItem(KEY, JSON.stringify({ pubkey: this.pubkey, reads } satisfies BootRecord))
    } catch {
      // A full or refused storage only costs the next start its head start.
    }
  }

  query(q: StoreQuery): Promise<NostrEvent[]> {
    return this.read({ m: 'query', a: [q] })
  }
  newestPerFork(forks: readonly string[], limit: number): Promise<Map<string, NostrEvent[]>> {
    return this.read({ m: 'newestPerFork', a: [[...forks], limit] })
  }
  statePerFork(forks: readonly string[]): Promise<Map<string, NostrEvent[]>> {
    return this.read({ m: 'statePerFork', a: [[...forks]] })
  }
  getValue<T = unknown>(key: string): Promise<T | undefined> {
    return this.read({ m: 'getValue', a: [key] })
  }
  getState(relay: string, kind: number, d: string): Promise<NostrEvent | undefined> {
    return this.read({ m: 'getState', a: [relay, kind, d] })
  }
  get(id: string): Promise<NostrEvent | undefined> {
    return this.inner.get(id)
  }
  search(q: StoreSearch): Promise<NostrEvent[]> {
    return this.inner.search(q)
  }
  add(event: NostrEvent, fork?: string): Promise<boolean> {
    this.write()
    return this.inner.add(event, fork)
  }
  addMany(events: NostrEvent[], fork?: string, opts?: AddOptions): Promise<number> {
    this.write()
    return this.inner.addMany(events, fork, opts)
  }
  putState(relay: string, event: NostrEvent): Promise<boolean> {
    this.write()
    return this.inner.putState(relay, event)
  }
  deleteFork(fork: string): Promise<void> {
    this.write()
    return this.inner.deleteFork(fork)
  }
  removeFromFork(fork: string, ids: readonly string[]): Promise<number> {
    this.write()
    return this.inner.removeFromFork(fork, ids)
  }
  setValue(key: string, value: unknown): Promise<void> {
    this.write()
    return this.inner.setValue(key, value)
  }
  close(): Promise<void> {
    this.write()
    return this.inner.close()
  }
}

/** Signed out: the next start opens no cache before a session is restored. */
export function forgetBoot(storage: Storage | undefined = globalThis.localStorage): void {
  storage?.removeItem(KEY)
}

let booting: { pubkey: string; store: Promise<BootStore> } | undefined

/** The database's name for an account. */
export function databaseName(pubkey: string): string {
  return `roost-${pubkey}`
}

/**
 * Opens the last account's cache and starts the reads its last start made, at once. Called as the
 * page's first script runs; a no-op without a remembered start or without IndexedDB.
 */
export function startBoot(storage: Storage | undefined = globalThis.localStorage): void {
  if (booting || !storage || typeof indexedDB === 'undefined') return
  const record = readRecord(storage)
  if (!record) return
  const store = IndexedDbEventStore.open(databaseName(record.pubkey)).then(
    (db) => new BootStore(db, record.pubkey, record.reads.slice(0, MAX_READS), storage),
  )
  store.catch(() => undefined)
  booting = { pubkey: record.pubkey, store }
}

/**
 * The account's cache: the one opened at boot when it is this account's, else opened now (a
 * different account's boot store is closed). Rejects as `IndexedDbEventStore.open` does.
 */
export async function openBootStore(
  pubkey: string,
  storage: Storage | undefined = globalThis.localStorage,
): Promise<BootStore> {
  const boot = booting
  booting = undefined
  if (boot?.pubkey === pubkey) {
    try {
      return await boot.store
    } catch {
      // Opened again below, so the error is the one of this open.
    }
  } else if (boot) void boot.store.then((s) => s.close()).catch(() => undefined)
  return new BootStore(await IndexedDbEventStore.open(databaseName(pubkey)), pubkey, [], storage)
}
