import { foldSearchText, searchWords } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { InvalidQueryError, StoreClosedError, StoreOpenError } from './errors'
import type { AddOptions, EventStore, StoreQuery, StoreSearch } from './event-store'
import {
  branded,
  checkEvent,
  checkFork,
  checkForks,
  checkQuery,
  checkRemoval,
  cleanCopy,
  indexedTags,
  limitOf,
  matches,
  NO_FORK,
  newestFirst,
  replaceD,
  serializeValue,
  stateFork,
  supersedes,
} from './rules'
import { planSearch, searchAccepts } from './search-rules'

/** 2: the `words` store, the search index. */
const VERSION = 2

/** One stored event and the forks it was seen in. */
interface EventRecord {
  id: string
  event: NostrEvent
  created_at: number
  /** `kind:pubkey:d` while the event is held without a fork and is replaceable/addressable. */
  root?: string
  forks: string[]
  /** Each fork's arrival sequence for this event (decision 21); absent in records written before it. */
  seqs?: Record<string, number>
}

/** The `values` key of the arrival counter: an array, so no setting (string keys) can collide. */
const SEQ_KEY = ['arrival-seq']
/** The `values` key of the counter of pages of older history (counting down from 0). */
const OLDER_SEQ_KEY = ['arrival-seq-older']

interface StateRecord {
  relay: string
  kind: number
  d: string
  fork: string
  event: NostrEvent
}

/**
 * `refs` keys are `[name, value, created_at, id]`: `['f', fork, …]` for fork memberships and
 * `['#h', 'general', …]` for tags. Walking one `[name, value]` range backwards yields that fork's or
 * that tag's events newest first, which is what a timeline page needs.
 */
type RefKey = [string, string, number, string]

/**
 * `getAll`/`getAllKeys` with a direction and a count (IndexedDB's options form, where the
 * browser has it): the newest events of a range in one request rather than a cursor's steps.
 */
interface DirectedSource {
  getAll(options: {
    query: IDBKeyRange
    count?: number
    direction: IDBCursorDirection
  }): IDBRequest<unknown[]>
  getAllKeys(options: {
    query: IDBKeyRange
    count?: number
    direction: IDBCursorDirection
  }): IDBRequest<IDBValidKey[]>
}

/** Whether this IndexedDB takes the options form (it came with `getAllRecords`). */
const DIRECTED_READS = typeof IDBObjectStore !== 'undefined' && 'getAllRecords' in IDBObjectStore.prototype

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result)
    r.onerror = () => reject(r.error)
  })
}

function finished(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve()
    tx.onerror = () => reject(tx.error)
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'))
  })
}

/** The next cursor position (or null at the end), as a promise. */
function step<C extends IDBCursor>(r: IDBRequest<C | null>, move?: () => void): Promise<C | null> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result)
    r.onerror = () => reject(r.error)
    move?.()
  })
}

function tagRefs(event: NostrEvent): RefKey[] {
  return indexedTags(event).map(([name, value]) => [`#${name}`, value, event.created_at, event.id])
}

/**
 * `words` keys are `[word, created_at, id]`, one per distinct folded word of an event's content
 * (`searchWords` of `@roost/nip29`): the events holding a word that starts with a term are one
 * key range.
 */
type WordKey = [string, number, string]

function wordKeys(event: NostrEvent): WordKey[] {
  return searchWords(event.content).map((w) => [w, event.created_at, event.id])
}

function rootKey(event: NostrEvent, d: string): string {
  return `${event.kind}:${event.pubkey}:${d}`
}

/**
 * The {@link EventStore} on IndexedDB, for browsers: the same semantics as the SQLite store (it
 * passes the same contract suite in Chromium), with fork and tag references kept in a sorted
 * `refs` store so a group page reads only the events it returns.
 *
 * @example
 * const store = await IndexedDbEventStore.open('roost')
 * await store.addMany(events, "wss://groups.example.com'general")
 * const page = await store.query({ fork: "wss://groups.example.com'general", limit: 50 })
 */
export class IndexedDbEventStore implements EventStore {
  private closed = false

  private constructor(private readonly db: IDBDatabase) {
    // Another tab wants a newer schema: step aside rather than block it.
    db.onversionchange = () => {
      this.closed = true
      db.close()
    }
  }

  /**
   * Opens (creating if needed) the database `name`. `factory` defaults to `globalThis.indexedDB`.
   *
   * @example
   * const store = await IndexedDbEventStore.open('roost-cache')
   */
  static async open(name: string, factory: IDBFactory = globalThis.indexedDB): Promise<IndexedDbEventStore> {
    if (!factory) throw new StoreOpenError('IndexedDB is not available here')
    let r: IDBOpenDBRequest
    try {
      r = factory.open(name, VERSION)
    } catch (e) {
      throw new StoreOpenError(`cannot open IndexedDB ${JSON.stringify(name)}: ${(e as Error).message}`, {
        cause: e,
      })
    }
    r.onupgradeneeded = (change) => {
      const db = r.result
      if (change.oldVersion < 1) {
        const events = db.createObjectStore('events', { keyPath: 'id' })
        events.createIndex('time', 'created_at')
        events.createIndex('root', 'root', { unique: true })
        db.createObjectStore('refs')
        const state = db.createObjectStore('state', { keyPath: ['relay', 'kind', 'd'] })
        state.createIndex('fork', 'fork')
        db.createObjectStore('values')
      }
      const words = db.createObjectStore('words')
      if (change.oldVersion >= 1) {
        // A cache written before the index: index what it holds, in the upgrade's transaction.
        const cursor = (r.transaction as IDBTransaction).objectStore('events').openCursor()
        cursor.onsuccess = () => {
          const c = cursor.result
          if (!c) return
          for (const key of wordKeys((c.value as EventRecord).event)) words.put(1, key)
          c.continue()
        }
      }
    }
    try {
      return new IndexedDbEventStore(await request(r))
    } catch (e) {
      throw new StoreOpenError(`cannot open IndexedDB ${JSON.stringify(name)}: ${(e as Error)?.message}`, {
        cause: e,
      })
    }
  }

  private open(): void {
    if (this.closed) throw new StoreClosedError()
  }

  private tx(stores: string[], mode: IDBTransactionMode): IDBTransaction {
    this.open()
    return this.db.transaction(stores, mode)
  }

  async add(event: NostrEvent, fork?: string): Promise<boolean> {
    return (await this.addMany([event], fork)) > 0
  }

  async addMany(events: NostrEvent[], fork?: string, opts: AddOptions = {}): Promise<number> {
    this.open()
    checkFork(fork)
    for (const e of events) checkEvent(e)
    if (events.length === 0) return 0
    const tx = this.tx(['events', 'refs', 'values', 'words'], 'readwrite')
    const done = finished(tx)
    let changed = 0
    try {
      const values = tx.objectStore('values')
      // A live batch counts up from the last arrival, a page of older history down from the lowest.
      const key = opts.older === true ? OLDER_SEQ_KEY : SEQ_KEY
      const step = opts.older === true ? -1 : 1
      const seq = { next: ((await request(values.get(key))) as number | undefined) ?? 0, step }
      for (const e of events) if (await this.addOne(tx, e, fork || NO_FORK, seq)) changed++
      values.put(seq.next, key)
    } catch (err) {
      tx.abort()
      await done.catch(() => {})
      throw err
    }
    await done
    return changed
  }

  private async addOne(
    tx: IDBTransaction,
    event: NostrEvent,
    fork: string,
    seq: { next: number; step: number },
  ): Promise<boolean> {
    const events = tx.objectStore('events')
    const d = replaceD(event)
    let root: string | undefined
    if (fork === NO_FORK && d !== undefined) {
      root = rootKey(event, d)
      const current = (await request(events.index('root').get(root))) as EventRecord | undefined
      if (current) {
        if (current.id === event.id || !supersedes(event, current.event)) return false
        await this.unlink(tx, current, NO_FORK)
      }
    }
    let record = (await request(events.get(event.id))) as EventRecord | undefined
    if (!record) {
      record = {
        id: event.id,
        event: cleanCopy(event), // structured clone drops the brand symbols
        created_at: event.created_at,
        forks: [],
      }
      const refs = tx.objectStore('refs')
      for (const key of tagRefs(event)) refs.put(1, key)
      const words = tx.objectStore('words')
      for (const key of wordKeys(event)) words.put(1, key)
    }
    if (record.forks.includes(fork)) return false
    record.forks.push(fork)
    seq.next += seq.step
    record.seqs = { ...record.seqs, [fork]: seq.next }
    if (root !== undefined) record.root = root
    else tx.objectStore('refs').put(1, ['f', fork, event.created_at, event.id] satisfies RefKey)
    events.put(record)
    return true
  }

  private async unlink(tx: IDBTransaction, record: EventRecord, fork: string): Promise<void> {
    const refs = tx.objectStore('refs')
    record.forks = record.forks.filter((f) => f !== fork)
    if (record.seqs) delete record.seqs[fork]
    if (fork === NO_FORK) delete record.root
    else refs.delete(['f', fork, record.created_at, record.id] satisfies RefKey)
    if (record.forks.length === 0) {
      for (const key of tagRefs(record.event)) refs.delete(key)
      const words = tx.objectStore('words')
      for (const key of wordKeys(record.event)) words.delete(key)
      await request(tx.objectStore('events').delete(record.id))
    } else {
      await request(tx.objectStore('events').put(record))
    }
  }

  async query(q: StoreQuery): Promise<NostrEvent[]> {
    this.open()
    checkQuery(q)
    const limit = limitOf(q)
    if (limit === 0) return []
    if (q.since !== undefined && q.until !== undefined && q.since > q.until) return [] // an empty key range
    const tx = this.tx(['events', 'refs'], 'readonly')
    const events = tx.objectStore('events')
    const accept = (r: EventRecord | undefined): r is EventRecord =>
      r !== undefined && (!q.fork || r.forks.includes(q.fork)) && matches(r.event, q)

    let out: EventRecord[] = []
    if (q.ids) {
      const found = await Promise.all([...new Set(q.ids)].map((id) => request(events.get(id))))
      out = (found as (EventRecord | undefined)[]).filter(accept)
    } else {
      const driver = Object.entries(q.tags ?? {}).find(([, values]) => values.length === 1)
      const low = q.since ?? Number.NEGATIVE_INFINITY
      const high = q.until ?? Number.POSITIVE_INFINITY
      // Newest first through an ordered range; once `limit` are found, read on only through
      // events sharing the last one's created_at (the id tie-break may prefer one of them).
      let cutoff: number | undefined
      const want = (createdAt: number) => cutoff === undefined || createdAt === cutoff
      const keep = (r: EventRecord) => {
        out.push(r)
        if (cutoff === undefined && out.length >= limit) cutoff = r.created_at
      }
      if ((driver || q.fork) && DIRECTED_READS) {
        // Keys a batch at a time, newest first, then their events all at once: a few round trips
        // to the database instead of two per event (each waits its turn on a busy page).
        const [name, value] = driver ? [`#${driver[0]}`, driver[1][0] as string] : ['f', q.fork as string]
        const refs = tx.objectStore('refs') as unknown as DirectedSource
        let upper: RefKey | undefined
        for (let extra = 8; ; extra = Math.min(extra * 2, 1024)) {
          const query = upper
            ? IDBKeyRange.bound([name, value, low], upper, false, true)
            : IDBKeyRange.bound([name, value, low], [name, value, high, []])
          const count = cutoff === undefined ? Math.max(0, limit - out.length) + extra : extra
          const keys = (await request(
            refs.getAllKeys({ query, count: Number.isFinite(count) ? count : undefined, direction: 'prev' }),
          )) as RefKey[]
          const records = (await Promise.all(keys.map((k) => request(events.get(k[3]))))) as (
            | EventRecord
            | undefined
          )[]
          let stop = false
          for (const [i, key] of keys.entries()) {
            if (!want(key[2])) {
              stop = true
              break
            }
            const record = records[i]
            if (accept(record)) keep(record)
          }
          if (stop || !Number.isFinite(count) || keys.length < count) break
          upper = keys[keys.length - 1]
        }
      } else if (DIRECTED_READS) {
        // Records a batch at a time, newest first; a batch ending inside a second's events
        // starts the next one at that second again, past the ids already read.
        const index = events.index('time') as unknown as DirectedSource
        let top = high
        const readAtTop = new Set<string>()
        for (let extra = 32; ; extra = Math.min(extra * 2, 1024)) {
          const count = (cutoff === undefined ? Math.max(0, limit - out.length) : 0) + extra + readAtTop.size
          const records = (await request(
            index.getAll({
              query: IDBKeyRange.bound(low, top),
              count: Number.isFinite(count) ? count : undefined,
              direction: 'prev',
            }),
          )) as EventRecord[]
          let stop = false
          for (const record of records) {
            if (readAtTop.has(record.id)) continue
            if (!want(record.created_at)) {
              stop = true
              break
            }
            if (accept(record)) keep(record)
          }
          if (stop || !Number.isFinite(count) || records.length < count) break
          const lastAt = (records[records.length - 1] as EventRecord).created_at
          if (lastAt !== top) readAtTop.clear()
          for (const record of records) if (record.created_at === lastAt) readAtTop.add(record.id)
          top = lastAt
        }
      } else if (driver || q.fork) {
        const [name, value] = driver ? [`#${driver[0]}`, driver[1][0] as string] : ['f', q.fork as string]
        const range = IDBKeyRange.bound([name, value, low], [name, value, high, []])
        const r = tx.objectStore('refs').openKeyCursor(range, 'prev')
        for (let cursor = await step(r); cursor; cursor = await step(r, () => cursor?.continue())) {
          const [, , createdAt, id] = cursor.key as RefKey
          if (!want(createdAt)) break
          const record = (await request(events.get(id))) as EventRecord | undefined
          if (accept(record)) keep(record)
        }
      } else {
        const r = events.index('time').openCursor(IDBKeyRange.bound(low, high), 'prev')
        for (let cursor = await step(r); cursor; cursor = await step(r, () => cursor?.continue())) {
          const record = cursor.value as EventRecord
          if (!want(record.created_at)) break
          if (accept(record)) keep(record)
        }
      }
    }
    // A fork's ties follow its arrival order, latest first (decision 12), then the id.
    const fork = q.fork
    if (fork !== undefined) {
      const seqOf = (r: EventRecord) => r.seqs?.[fork] ?? 0
      out.sort((a, b) => b.created_at - a.created_at || seqOf(b) - seqOf(a) || newestFirst(a.event, b.event))
    } else out.sort((a, b) => newestFirst(a.event, b.event))
    const sorted = out.map((r) => branded(r.event))
    return sorted.length > limit ? sorted.slice(0, limit) : sorted
  }

  async newestPerFork(forks: readonly string[], limit: number): Promise<Map<string, NostrEvent[]>> {
    this.open()
    checkForks(forks, limit)
    const unique = [...new Set(forks)]
    // One page query per fork, all in flight at once: IndexedDB serves them from one connection.
    const pages = await Promise.all(unique.map((fork) => this.query({ fork, limit })))
    return new Map(unique.map((fork, i) => [fork, pages[i] as NostrEvent[]]))
  }

  async get(id: string): Promise<NostrEvent | undefined> {
    const tx = this.tx(['events'], 'readonly')
    const record = (await request(tx.objectStore('events').get(id))) as EventRecord | undefined
    return record ? branded(record.event) : undefined
  }

  /**
   * Through the `words` index: the keys of the words starting with the longest term give the
   * candidates, read newest first until `limit` pass every condition.
   */
  async search(q: StoreSearch): Promise<NostrEvent[]> {
    this.open()
    const plan = planSearch(q)
    if (plan.terms.length === 0 || plan.limit === 0) return []
    const term = plan.terms.map(foldSearchText).reduce((a, b) => (b.length > a.length ? b : a))
    const tx = this.tx(['events', 'words'], 'readonly')
    const keys = (await request(
      tx.objectStore('words').getAllKeys(IDBKeyRange.bound([term], [`${term}\uffff`])),
    )) as WordKey[]
    const candidates = new Map<string, number>()
    for (const [, createdAt, id] of keys)
      if (plan.until === undefined || createdAt <= plan.until) candidates.set(id, createdAt)
    const order = [...candidates].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    const events = tx.objectStore('events')
    const out: NostrEvent[] = []
    for (const [id] of order) {
      const record = (await request(events.get(id))) as EventRecord | undefined
      if (record && searchAccepts(plan, record.event, record.forks)) out.push(branded(record.event))
      if (out.length >= plan.limit) break
    }
    return out
  }

  async putState(relay: string, event: NostrEvent): Promise<boolean> {
    this.open()
    checkEvent(event)
    const fork = stateFork(relay, event)
    const d = fork.slice(relay.length + 1)
    const tx = this.tx(['state'], 'readwrite')
    const done = finished(tx)
    const store = tx.objectStore('state')
    const current = (await request(store.get([relay, event.kind, d]))) as StateRecord | undefined
    let changed = false
    if (!current || (current.event.id !== event.id && supersedes(event, current.event))) {
      store.put({ relay, kind: event.kind, d, fork, event: cleanCopy(event) } satisfies StateRecord)
      changed = true
    }
    await done
    return changed
  }

  async getState(relay: string, kind: number, d: string): Promise<NostrEvent | undefined> {
    const tx = this.tx(['state'], 'readonly')
    const record = (await request(tx.objectStore('state').get([relay, kind, d]))) as StateRecord | undefined
    return record ? branded(record.event) : undefined
  }

  async statePerFork(forks: readonly string[]): Promise<Map<string, NostrEvent[]>> {
    this.open()
    checkForks(forks, 0)
    const unique = [...new Set(forks)]
    if (unique.length === 0) return new Map()
    const index = this.tx(['state'], 'readonly').objectStore('state').index('fork')
    const found = (await Promise.all(unique.map((fork) => request(index.getAll(fork))))) as StateRecord[][]
    return new Map(
      unique.map((fork, i) => [
        fork,
        (found[i] as StateRecord[]).sort((a, b) => a.kind - b.kind).map((r) => branded(r.event)),
      ]),
    )
  }

  async deleteFork(fork: string): Promise<void> {
    this.open()
    if (typeof fork !== 'string' || fork === NO_FORK)
      throw new InvalidQueryError('deleteFork needs a GroupKey string')
    const tx = this.tx(['events', 'refs', 'state', 'words'], 'readwrite')
    const done = finished(tx)
    const keys = (await request(
      tx.objectStore('refs').getAllKeys(IDBKeyRange.bound(['f', fork], ['f', fork, []])),
    )) as RefKey[]
    for (const [, , , id] of keys) {
      const record = (await request(tx.objectStore('events').get(id))) as EventRecord | undefined
      if (record) await this.unlink(tx, record, fork)
    }
    const state = tx.objectStore('state')
    const stateKeys = await request(state.index('fork').getAllKeys(fork))
    for (const key of stateKeys) state.delete(key)
    await done
  }

  async removeFromFork(fork: string, ids: readonly string[]): Promise<number> {
    this.open()
    checkRemoval(fork, ids)
    const tx = this.tx(['events', 'refs', 'words'], 'readwrite')
    const done = finished(tx)
    let removed = 0
    for (const id of new Set(ids)) {
      const record = (await request(tx.objectStore('events').get(id))) as EventRecord | undefined
      if (!record?.forks.includes(fork)) continue
      await this.unlink(tx, record, fork)
      removed++
    }
    await done
    return removed
  }

  async getValue<T = unknown>(key: string): Promise<T | undefined> {
    const tx = this.tx(['values'], 'readonly')
    const raw = (await request(tx.objectStore('values').get(key))) as string | undefined
    return raw === undefined ? undefined : (JSON.parse(raw) as T)
  }

  async setValue(key: string, value: unknown): Promise<void> {
    this.open()
    const text = value === undefined ? undefined : serializeValue(key, value)
    const tx = this.tx(['values'], 'readwrite')
    const done = finished(tx)
    if (text === undefined) tx.objectStore('values').delete(key)
    else tx.objectStore('values').put(text, key)
    await done
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.db.close()
  }
}
