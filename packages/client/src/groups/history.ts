import type { GroupKey } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from '../pool'
import type { EventStore } from '../store'
import type { Timeline } from './timeline'

/** What paging back needs from its group. */
export interface HistoryContext {
  readonly key: GroupKey
  readonly store: EventStore
  readonly pool: RelayPool
  readonly clock: () => number
  /** The timeline, folded up to date. */
  folded(): Timeline
  /** Takes a newest-first page of older history; how many events were new. */
  ingestOlder(events: readonly NostrEvent[], fromStore: boolean): number
  /** Something the snapshot shows changed. */
  changed(): void
}

/**
 * One group's older history: pages back from the oldest row loaded, from the local store first
 * and then from the relay, and knows when the relay has nothing older (`snapshot().hasOlder`).
 */
export class GroupHistory {
  /** False once paging back found the start of the group's history. */
  hasOlder = true

  constructor(private readonly ctx: HistoryContext) {}

  /** The next `limit` older events; resolves with how many new events arrived. */
  async loadOlder(limit: number): Promise<number> {
    const { key, store, pool } = this.ctx
    const until = this.ctx.folded().oldestRow()?.created_at ?? this.ctx.clock()
    const cached = await store.query({ fork: key.toString(), until, limit })
    let added = this.ctx.ingestOlder(cached, true)
    if (added < limit) {
      const fetched = await pool.fetch([key.relay], [{ '#h': [key.id.value], until, limit }])
      const fresh = this.ctx.ingestOlder(fetched, false)
      added += fresh
      if (fresh === 0 && this.hasOlder) {
        this.hasOlder = false
        this.ctx.changed()
      }
    }
    return added
  }
}
