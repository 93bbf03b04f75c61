import type { GroupKey } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { EventStore } from '../store'
import type { GroupEvent } from './types'

/**
 * What `group.subscribe(listener, opts)` takes besides the listener.
 * @example group.subscribe(onEvent, { after: lastAnsweredId })
 */
export interface SubscribeOptions {
  /**
   * Replay first, as `incoming`, the events of the group the local store holds after this cursor,
   * in timeline order: after the event with this id (an id the store does not hold for the group
   * replays nothing), or with `created_at` above this unix time. Then the live events, each told
   * once. With a persistent store (SQLite, IndexedDB) this survives a restart: a bot keeps the id
   * of the newest event it answered and hears everything after it, cached or new. The id's own
   * second is replayed whole, the id aside (an event of that second may have arrived after it yet
   * sort before it): answer idempotently, or remember that second's ids, if a repeat matters.
   */
  after?: string | number
}

/** What a replay reads from its group. */
export interface ReplaySource {
  readonly key: GroupKey
  readonly ctx: { readonly store: EventStore }
  /** Resolves when every event received so far is in the store. */
  flushStore(): Promise<unknown>
  subscribe(listener: (e: GroupEvent) => void): () => void
}

/** The stored events of `fork` after `after` (see {@link SubscribeOptions.after}), oldest first. */
async function storedAfter(store: EventStore, fork: string, after: string | number): Promise<NostrEvent[]> {
  if (typeof after === 'number') return (await store.query({ fork, since: after + 1 })).reverse()
  const cursor = await store.get(after)
  if (!cursor) return []
  // The cursor's own second is replayed whole: an event of that second can arrive after the cursor
  // yet sort before it (a backlog is numbered as history), and a lost event is worse than a repeat.
  const oldestFirst = (await store.query({ fork, since: cursor.created_at })).reverse()
  return oldestFirst.some((e) => e.id === after) ? oldestFirst.filter((e) => e.id !== after) : []
}

/**
 * Listens to `group` as `subscribe` does, but first tells `listener` the stored events after the
 * cursor as `incoming`. Live events arriving meanwhile wait until the replay is told; each event
 * is told once. Returns the stop.
 */
export function subscribeAfter(
  group: ReplaySource,
  listener: (e: GroupEvent) => void,
  after: string | number,
): () => void {
  let stopped = false
  let waiting: GroupEvent[] | undefined = []
  const replayed = new Set<string>() // what the replay told, so a live copy is not told again
  const tell = (e: GroupEvent) => {
    if (!stopped && !(e.type === 'incoming' && replayed.has(e.event.id))) listener(e)
  }
  const stop = group.subscribe((e) => (waiting ? waiting.push(e) : tell(e)))
  const fork = group.key.toString()
  void group
    .flushStore()
    .then(() => storedAfter(group.ctx.store, fork, after))
    .catch(() => [] as NostrEvent[]) // a store that fails replays nothing; live events still come
    .then((events) => {
      for (const event of events) {
        tell({ type: 'incoming', event })
        replayed.add(event.id)
      }
      const live = waiting ?? []
      waiting = undefined
      for (const e of live) tell(e)
    })
  return () => {
    stopped = true
    stop()
  }
}
