import type { RelayPool } from '../pool'
import type { EventStore } from '../store/event-store'
import { negentropyBackfill } from '../sync/negentropy-backfill'
import type { GroupCore } from './group-core'

/** What the backfills need from the registry. */
export interface BackfillContext {
  readonly pool: RelayPool
  readonly store: EventStore
  /** The group a key string stands for now (undefined once it was dropped). */
  core(key: string): GroupCore | undefined
  closed(): boolean
}

/**
 * Each group's NIP-77 backfill, run when its standing REQ reaches EOSE: after a start from the
 * cache and after every resume that follows a reconnect. Where the relay lists 77, the fork's
 * cached window is reconciled with the relay's (`negentropyBackfill`): the events the cache lacks
 * are ingested as a history page, and those the relay no longer has for us (deleted while we were
 * away, or no longer visible) are hidden from the timeline and leave the store. Elsewhere, or when
 * the relay refuses the session, nothing happens: the standing REQ stays the group's path.
 * Backfills of one relay run one after another (a start opens many groups; a relay caps sessions
 * per connection), and a group asked again while its backfill runs gets one more run after it.
 *
 * @example
 * const backfills = new GroupBackfills({ pool, store, core: (k) => cores.get(k), closed: () => false })
 * backfills.after(core) // in the standing subscription's oneose
 */
export class GroupBackfills {
  /** Per relay: the end of its queue. */
  private readonly queues = new Map<string, Promise<void>>()
  /** Group key strings queued or running, and whether another run was asked meanwhile. */
  private readonly pending = new Map<string, { again: boolean }>()

  constructor(private readonly ctx: BackfillContext) {}

  /** The group's standing REQ reached EOSE: reconcile its cached window. */
  after(core: GroupCore): void {
    const key = core.key.toString()
    const queued = this.pending.get(key)
    if (queued) {
      queued.again = true
      return
    }
    this.pending.set(key, { again: false })
    const relay = core.key.relay
    const tail = (this.queues.get(relay) ?? Promise.resolve()).then(() => this.run(key))
    this.queues.set(relay, tail)
    void tail.then(() => {
      if (this.queues.get(relay) === tail) this.queues.delete(relay)
    })
  }

  private async run(key: string): Promise<void> {
    for (;;) {
      const state = this.pending.get(key)
      const core = this.ctx.core(key)
      if (!state || !core || this.ctx.closed()) break
      state.again = false
      try {
        // What the subscription brought is in the store first, so it is not asked for again.
        await core.flushStore()
        const r = await negentropyBackfill({
          store: this.ctx.store,
          pool: this.ctx.pool,
          key: core.key,
          write: false,
        })
        if (r.method === 'negentropy' && this.ctx.core(key) === core) {
          core.forget(r.removed)
          // A history page, newest first, as the relay would send it; stored by the group's own
          // writes in the order it takes them, so a restart shows what the timeline showed.
          core.ingestMany([...r.added].reverse(), { older: true })
        }
      } catch {
        // A store or pool that closed under it: the standing REQ stays the path.
      }
      if (!state.again) break
    }
    this.pending.delete(key)
  }
}
