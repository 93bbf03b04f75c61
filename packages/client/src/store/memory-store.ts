import { searchWords } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { InvalidQueryError, StoreClosedError } from './errors'
import type { AddOptions, EventStore, StoreQuery, StoreSearch } from './event-store'
import {
  checkEvent,
  checkFork,
  checkForks,
  checkQuery,
  checkRemoval,
  cleanCopy,
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
import { SortedEvents } from './sorted-events'

interface Entry {
  event: NostrEvent
  forks: Set<string>
}

/**
 * An {@link EventStore} in memory: for tests, for a session that should leave nothing behind,
 * and as the reference the persistent stores are tested against. Returned events are the stored
 * objects themselves (no copy per read), so treat them as read-only.
 *
 * @example
 * const store = new MemoryEventStore()
 * await store.add(event, "wss://groups.example.com'general")
 * const [newest] = await store.query({ fork: "wss://groups.example.com'general", limit: 1 })
 */
export class MemoryEventStore implements EventStore {
  private readonly events = new Map<string, Entry>()
  /** Every event, and each fork's events, in query order. */
  private readonly all = new SortedEvents()
  private readonly byFork = new Map<string, SortedEvents>()
  /** Each fork's arrival sequence (decision 12): fork → event id → when it was added there. */
  private readonly arrivals = new Map<string, Map<string, number>>()
  private nextArrival = 0
  /** The last number handed to an event of a page of older history (counting down from 0). */
  private olderArrival = 0
  /** (kind, pubkey, d) → id of the current fork-less replaceable/addressable event. */
  private readonly latest = new Map<string, string>()
  private readonly state = new Map<string, { fork: string; event: NostrEvent }>()
  private readonly values = new Map<string, string>()
  /** Each event's search words, computed on its first search. */
  private readonly words = new WeakMap<NostrEvent, string[]>()
  private closed = false

  private open(): void {
    if (this.closed) throw new StoreClosedError()
  }

  async add(event: NostrEvent, fork?: string): Promise<boolean> {
    this.open()
    return this.addOne(event, fork)
  }

  async addMany(events: NostrEvent[], fork?: string, opts: AddOptions = {}): Promise<number> {
    this.open()
    checkFork(fork)
    for (const e of events) checkEvent(e) // all or nothing, as the persistent stores' transaction
    let changed = 0
    for (const e of events) if (this.addOne(e, fork, opts.older === true)) changed++
    return changed
  }

  private addOne(event: NostrEvent, fork = NO_FORK, older = false): boolean {
    checkEvent(event)
    checkFork(fork)
    if (fork === NO_FORK) {
      const d = replaceD(event)
      if (d !== undefined) {
        const slot = `${event.kind}:${event.pubkey}:${d}`
        const currentId = this.latest.get(slot)
        if (currentId === event.id) return false
        const current = currentId === undefined ? undefined : this.events.get(currentId)
        if (current && !supersedes(event, current.event)) return false
        if (currentId !== undefined) this.unlink(currentId, NO_FORK)
        this.latest.set(slot, event.id)
      }
    }
    let entry = this.events.get(event.id)
    if (!entry) {
      entry = { event: cleanCopy(event), forks: new Set() }
      this.events.set(event.id, entry)
      this.all.insert(entry.event)
    }
    if (entry.forks.has(fork)) return false
    entry.forks.add(fork)
    let timeline = this.byFork.get(fork)
    let arrivals = this.arrivals.get(fork)
    if (!timeline || !arrivals) {
      const seqs = new Map<string, number>()
      arrivals = seqs
      timeline = new SortedEvents((e) => seqs.get(e.id) ?? 0)
      this.byFork.set(fork, timeline)
      this.arrivals.set(fork, seqs)
    }
    arrivals.set(event.id, older ? --this.olderArrival : ++this.nextArrival)
    timeline.insert(entry.event)
    return true
  }

  private unlink(id: string, fork: string): void {
    const entry = this.events.get(id)
    if (!entry) return
    this.byFork.get(fork)?.remove(entry.event)
    this.arrivals.get(fork)?.delete(id)
    entry.forks.delete(fork)
    if (entry.forks.size === 0) {
      this.events.delete(id)
      this.all.remove(entry.event)
    }
  }

  async query(q: StoreQuery): Promise<NostrEvent[]> {
    this.open()
    checkQuery(q)
    const limit = limitOf(q)
    if (limit === 0) return []
    if (q.ids) {
      const out: NostrEvent[] = []
      for (const id of new Set(q.ids)) {
        const entry = this.events.get(id)
        if (entry && (!q.fork || entry.forks.has(q.fork)) && matches(entry.event, q)) out.push(entry.event)
      }
      const seqs = q.fork ? this.arrivals.get(q.fork) : undefined
      out.sort(
        seqs
          ? (a, b) => b.created_at - a.created_at || seqs.get(b.id)! - seqs.get(a.id)! || newestFirst(a, b)
          : newestFirst,
      )
      return out.length > limit ? out.slice(0, limit) : out
    }
    const source = q.fork ? this.byFork.get(q.fork) : this.all
    if (!source) return []
    const out: NostrEvent[] = []
    for (const e of source.newestFirst()) {
      if (q.since !== undefined && e.created_at < q.since) break // the rest is older still
      if (!matches(e, q)) continue
      out.push(e)
      if (out.length >= limit) break
    }
    return out
  }

  async newestPerFork(forks: readonly string[], limit: number): Promise<Map<string, NostrEvent[]>> {
    this.open()
    checkForks(forks, limit)
    const out = new Map<string, NostrEvent[]>()
    for (const fork of forks) {
      if (out.has(fork)) continue
      const page: NostrEvent[] = []
      const timeline = limit > 0 ? this.byFork.get(fork) : undefined
      if (timeline) {
        for (const e of timeline.newestFirst()) {
          page.push(e)
          if (page.length >= limit) break
        }
      }
      out.set(fork, page)
    }
    return out
  }

  async get(id: string): Promise<NostrEvent | undefined> {
    this.open()
    return this.events.get(id)?.event
  }

  /** A scan of every cached event, newest first, until `limit` match. */
  async search(q: StoreSearch): Promise<NostrEvent[]> {
    this.open()
    const plan = planSearch(q)
    const out: NostrEvent[] = []
    if (plan.terms.length === 0 || plan.limit === 0) return out
    for (const e of this.all.newestFirst()) {
      const entry = this.events.get(e.id)
      if (!entry) continue
      let words = this.words.get(e)
      if (!words) {
        words = searchWords(e.content)
        this.words.set(e, words)
      }
      if (searchAccepts(plan, e, entry.forks, words)) out.push(e)
      if (out.length >= plan.limit) break
    }
    return out
  }

  async putState(relay: string, event: NostrEvent): Promise<boolean> {
    this.open()
    checkEvent(event)
    const fork = stateFork(relay, event)
    const slot = `${relay}\u0000${event.kind}\u0000${fork}`
    const current = this.state.get(slot)
    if (current && (current.event.id === event.id || !supersedes(event, current.event))) return false
    this.state.set(slot, { fork, event: cleanCopy(event) })
    return true
  }

  async getState(relay: string, kind: number, d: string): Promise<NostrEvent | undefined> {
    this.open()
    return this.state.get(`${relay}\u0000${kind}\u0000${relay}'${d}`)?.event
  }

  async statePerFork(forks: readonly string[]): Promise<Map<string, NostrEvent[]>> {
    this.open()
    checkForks(forks, 0)
    const out = new Map<string, NostrEvent[]>(forks.map((f) => [f, []]))
    for (const { fork, event } of this.state.values()) out.get(fork)?.push(event)
    for (const list of out.values()) list.sort((a, b) => a.kind - b.kind)
    return out
  }

  async deleteFork(fork: string): Promise<void> {
    this.open()
    if (typeof fork !== 'string' || fork === NO_FORK)
      throw new InvalidQueryError('deleteFork needs a GroupKey string')
    const timeline = this.byFork.get(fork)
    this.byFork.delete(fork)
    this.arrivals.delete(fork)
    if (timeline) {
      const gone = new Set<NostrEvent>()
      for (const e of timeline.newestFirst()) {
        const entry = this.events.get(e.id)
        if (!entry) continue
        entry.forks.delete(fork)
        if (entry.forks.size === 0) {
          this.events.delete(e.id)
          gone.add(entry.event)
        }
      }
      if (gone.size > 0) this.all.removeWhere((e) => gone.has(e))
    }
    for (const [slot, s] of this.state) if (s.fork === fork) this.state.delete(slot)
  }

  async removeFromFork(fork: string, ids: readonly string[]): Promise<number> {
    this.open()
    checkRemoval(fork, ids)
    let removed = 0
    for (const id of new Set(ids)) {
      if (!this.events.get(id)?.forks.has(fork)) continue
      this.unlink(id, fork)
      removed++
    }
    return removed
  }

  async getValue<T = unknown>(key: string): Promise<T | undefined> {
    this.open()
    const raw = this.values.get(key)
    return raw === undefined ? undefined : (JSON.parse(raw) as T)
  }

  async setValue(key: string, value: unknown): Promise<void> {
    this.open()
    if (value === undefined) this.values.delete(key)
    else this.values.set(key, serializeValue(key, value))
  }

  async close(): Promise<void> {
    this.closed = true
  }
}
