import type { GroupKey } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { Filter } from 'nostr-tools/filter'
import { NegentropyError } from '../pool/negentropy'
import type { RelayPool } from '../pool/relay-pool'
import type { EventStore } from '../store/event-store'

/** What the backfill needs of the pool. */
export type BackfillPool = Pick<RelayPool, 'supportsNegentropy' | 'reconcile' | 'fetch'>

/**
 * What a backfill did to a fork's cache. `negentropy`: reconciled with NIP-77; `req`: the window
 * fetched again in full with REQ ({@link refetchWindow}); `none`: nothing done (`reason` says why:
 * the relay does not speak NIP-77, refused the session, or nothing is cached), so the caller keeps
 * its REQ path.
 */
export type BackfillResult =
  | {
      /** How the window was completed: NIP-77 reconciliation, or a full REQ of the window. */
      method: 'negentropy' | 'req'
      /** Events the cache lacked, now stored in the fork unless `write` was false (oldest first). */
      added: NostrEvent[]
      /** Ids the fork held that the relay no longer has for us (deleted, or no longer visible): gone from the fork. */
      removed: string[]
      /** The window's start (`created_at`), inclusive. */
      since: number
    }
  | {
      /** Nothing was done. */
      method: 'none'
      /** Why, in English (`'nothing cached'`, `'the relay does not list NIP-77'`, or the relay's refusal). */
      reason: string
    }

/**
 * What {@link negentropyBackfill} and {@link refetchWindow} work on: the local store, the pool to
 * ask, and the group fork whose window to complete.
 *
 * @example
 * await negentropyBackfill({ store, pool: roost.pool, key, since: Math.floor(Date.now() / 1000) - 86_400 })
 */
export interface BackfillOptions {
  /** The local cache the missing events are added to. */
  store: EventStore
  /** The relay pool to reconcile through. */
  pool: BackfillPool
  /** The group fork: its relay and id; the store's fork is `key.toString()`. */
  key: GroupKey
  /** Start of the window (`created_at`, inclusive); default the oldest event the fork holds. */
  since?: number
  /** ms to wait for each answer (default 10 000). */
  timeout?: number
  /**
   * Store the events the cache lacked (default true), as a page of older history, newest first. A
   * group passes false and takes `added` through its own writes, so its store numbers them where
   * its timeline shows them (decision 21) even while `loadOlder` pages in beside the backfill.
   */
  write?: boolean
}

/** Stores what the cache lacked as a newest-first page of older history (`added` is oldest first). */
function storeAdded(opts: BackfillOptions, fork: string, added: readonly NostrEvent[]) {
  return opts.write === false ? undefined : opts.store.addMany([...added].reverse(), fork, { older: true })
}

/** Ids per REQ filter when fetching what we need (a relay's `max_limit` is 500 here, 500 on strfry). */
const IDS_PER_FILTER = 500

/** The events of a group on a relay from `since` on: what a fork's window holds. */
export function windowFilter(key: GroupKey, since: number): Filter {
  return { '#h': [key.id.value], since }
}

/** The fork's cached events in the window: only those the window filter matches can be reconciled. */
async function cachedWindow(store: EventStore, key: GroupKey, since: number | undefined) {
  const fork = key.toString()
  // The fork's window read whole, the `h` checked here: cheaper than a tag index on every store.
  const all = await store.query({ fork, ...(since !== undefined && { since }) })
  const events = all.filter((e) => e.tags.some((t) => t[0] === 'h' && t[1] === key.id.value))
  const start = since ?? events.reduce((min, e) => Math.min(min, e.created_at), Number.POSITIVE_INFINITY)
  return { fork, events, since: start }
}

/** Fetches events by id from the relay, keeping only those the window holds; oldest first. */
async function fetchIds(
  pool: BackfillPool,
  key: GroupKey,
  ids: readonly string[],
  since: number,
  timeout: number,
) {
  const chunks: string[][] = []
  for (let i = 0; i < ids.length; i += IDS_PER_FILTER) chunks.push(ids.slice(i, i + IDS_PER_FILTER))
  const wanted = new Set(ids)
  const pages = await Promise.all(chunks.map((c) => pool.fetch([key.relay], [{ ids: c }], { timeout })))
  const got = pages
    .flat()
    .filter(
      (e) =>
        wanted.has(e.id) &&
        e.created_at >= since &&
        e.tags.some((t) => t[0] === 'h' && t[1] === key.id.value),
    )
  // The relay answers newest first; reversed, ties come in its arrival order.
  return got.reverse().sort((a, b) => a.created_at - b.created_at)
}

/**
 * A group's backfill after a reconnect or a restart, by NIP-77 where the relay speaks it: the ids
 * of the fork's cached window (from `since`, default the oldest cached event, on) are reconciled
 * with the relay's events for the same window, so only fingerprints and ids cross the network;
 * then the events the cache lacks are fetched by id and stored in the fork, and the cached events
 * the relay no longer has for us (NIP-09 kind 5 and NIP-29 9005 deletions the cache missed, or
 * events no longer visible to us) are removed from the fork. Resolves `{ method: 'none' }` when the
 * relay does not list 77 in NIP-11, refuses the session (`NEG-ERR`, e.g. a window past its
 * records cap), the connection fails, or the fork holds nothing: the caller keeps its REQ path.
 *
 * @example
 * const r = await negentropyBackfill({ store, pool, key })
 * if (r.method === 'negentropy') group.forget(r.removed) // and r.added into the timeline
 */
export async function negentropyBackfill(opts: BackfillOptions): Promise<BackfillResult> {
  const { store, pool, key } = opts
  const timeout = opts.timeout ?? 10_000
  if (!(await pool.supportsNegentropy(key.relay)))
    return { method: 'none', reason: 'the relay does not list NIP-77' }
  const cached = await cachedWindow(store, key, opts.since)
  if (cached.events.length === 0 && opts.since === undefined)
    return { method: 'none', reason: 'nothing cached' }
  let diff: { have: string[]; need: string[] }
  try {
    diff = await pool.reconcile(key.relay, windowFilter(key, cached.since), cached.events, { timeout })
  } catch (err) {
    if (err instanceof NegentropyError) return { method: 'none', reason: err.reason }
    throw err
  }
  const added = await fetchIds(pool, key, diff.need, cached.since, timeout)
  await storeAdded(opts, cached.fork, added)
  const held = new Set(cached.events.map((e) => e.id))
  const gone = diff.have.filter((id) => held.has(id))
  await store.removeFromFork(cached.fork, gone)
  return { method: 'negentropy', added, removed: gone, since: cached.since }
}

/** Events one page of {@link refetchWindow} asks for (the relay's `max_limit` here). */
const PAGE = 500

/**
 * The same repair with REQ alone, for relays without NIP-77 and as the baseline NIP-77 is measured
 * against: the whole window is fetched again, newest first in pages of 500 (`until` = the oldest
 * `created_at` of the last page, duplicates dropped), then the cache gets what it lacked and loses
 * what the relay no longer has. Costs every event of the window on the wire. Each page is taken
 * as complete (`pool.fetch` ends at EOSE or its timeout): a page cut short by the timeout would
 * look like the window's end, so prefer NIP-77 where the relay speaks it.
 *
 * @example
 * const r = await refetchWindow({ store, pool, key }) // { method: 'req', added, removed, since }
 */
export async function refetchWindow(opts: BackfillOptions): Promise<BackfillResult> {
  const { store, pool, key } = opts
  const timeout = opts.timeout ?? 10_000
  const cached = await cachedWindow(store, key, opts.since)
  if (cached.events.length === 0 && opts.since === undefined)
    return { method: 'none', reason: 'nothing cached' }
  const relayHas = new Map<string, NostrEvent>()
  let until: number | undefined
  for (;;) {
    const filter: Filter = {
      ...windowFilter(key, cached.since),
      limit: PAGE,
      ...(until !== undefined && { until }),
    }
    const page = await pool.fetch([key.relay], [filter], { timeout })
    let fresh = 0
    let oldest = Number.POSITIVE_INFINITY
    for (const e of page) {
      oldest = Math.min(oldest, e.created_at)
      if (relayHas.has(e.id)) continue
      relayHas.set(e.id, e)
      fresh++
    }
    if (fresh === 0 && page.length < PAGE) break
    // Nothing new from a full page: that second holds more than a page; step past it.
    until = fresh === 0 ? oldest - 1 : oldest
    if (until < cached.since) break
  }
  const held = new Set(cached.events.map((e) => e.id))
  const added = [...relayHas.values()]
    .filter((e) => !held.has(e.id) && e.tags.some((t) => t[0] === 'h' && t[1] === key.id.value))
    .reverse()
    .sort((a, b) => a.created_at - b.created_at)
  await storeAdded(opts, cached.fork, added)
  const removed = cached.events.filter((e) => !relayHas.has(e.id)).map((e) => e.id)
  await store.removeFromFork(cached.fork, removed)
  return { method: 'req', added, removed, since: cached.since }
}
