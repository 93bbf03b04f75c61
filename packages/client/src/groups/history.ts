import type { GroupKey } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from '../pool'
import type { EventStore } from '../store'
import type { HistoryEdges } from './timeline-fold'

/** What paging back needs from its group. */
export interface HistoryContext {
  readonly key: GroupKey
  readonly store: EventStore
  readonly pool: RelayPool
  readonly clock: () => number
  /** The group's timeline side (`timeline-fold.ts`): what it holds, and how far back its history goes. */
  readonly rows: {
    has(id: string): boolean
    reach(): HistoryEdges
    heldAt(second: number): number
    reached(source: keyof HistoryEdges, second: number): void
  }
  /** Takes a newest-first page of older history; how many events were new. */
  ingestOlder(events: readonly NostrEvent[], fromStore: boolean): number
  /** Something the snapshot shows changed. */
  changed(): void
}

/** Relay pages one `loadOlder` asks for at most before it leaves the rest to the next call. */
const MAX_STEPS = 8
/** The most events a relay answers one filter with (NIP-11 `max_limit` of ours, and strfry's). */
const MAX_LIMIT = 500

/**
 * One group's older history: pages back from the oldest second of its history held, of any kind of
 * event (a reaction, a join, a moderator's act: not only the oldest row, or a page of those would
 * come back again and again), from the local store first and then from the relay, and knows when
 * the relay has nothing older (`snapshot().hasOlder`).
 *
 * The store is asked from the oldest second shown; the relay from the oldest second its own pages
 * reached (`HistoryEdges`): the cache may lack events between what it holds, the relay's pages do
 * not, so when the cache runs short the relay pages on through what the cache gave (each page
 * twice the last while it brings nothing new) and brings what it lacked.
 *
 * A second can hold more events than a page. Each page asks for the events up to and including a
 * second (`until`), as many as the page size plus those held from that second, and drops what it
 * holds by id; the next asks from the oldest second of the last. The relay answers a second's
 * events in a stable order (ours: newest arrival first), so each page brings the next ones (the
 * relay README's "answer order"). A relay may answer fewer than asked: only a page that brings
 * nothing new and is shorter than asked ends the history, and only when the relay answered it in
 * full (EOSE); an unreachable relay leaves `hasOlder` as it was.
 *
 * A page the relay did not answer at all (offline, unreachable, or silent until the query's
 * timeout) sets `relayAway` (`snapshot().olderUnreachable`): what the cache held is shown, and
 * asking again would only wait again. It is cleared when the relay answers this group again: a
 * page it answers, or its standing subscription's EOSE after a reconnect (`relayAnswered`), and a
 * UI pages back from there.
 *
 * @example
 * while (group.snapshot().hasOlder) await group.loadOlder()
 */
export class GroupHistory {
  /** False once paging back found the start of the group's history on its relay. */
  hasOlder = true
  /** True when the relay did not answer the last page that needed it, until it answers this group again. */
  relayAway = false
  private running: Promise<unknown> = Promise.resolve()

  constructor(private readonly ctx: HistoryContext) {}

  /** The next `limit` older events; resolves with how many new events arrived. Calls run one at a time. */
  loadOlder(limit: number): Promise<number> {
    const size = Number.isSafeInteger(limit) && limit > 0 ? Math.min(limit, MAX_LIMIT) : 50
    const page = this.running.then(() => this.page(size))
    this.running = page.catch(() => {})
    return page
  }

  private async page(limit: number): Promise<number> {
    const { key, store, rows } = this.ctx
    const reach = rows.reach()
    const now = this.ctx.clock()
    const shown = Math.min(reach.relay ?? now, reach.store ?? now)
    const cached = await store.query({
      fork: key.toString(),
      until: shown,
      limit: limit + rows.heldAt(shown),
    })
    const added = this.take(cached, 'store')
    if (added >= limit || !this.hasOlder) return added
    return added + (await this.fromRelay(limit, reach.relay ?? now))
  }

  private async fromRelay(limit: number, until: number): Promise<number> {
    const { key, pool } = this.ctx
    let added = 0
    let size = limit
    for (let step = 0; step < MAX_STEPS; step++) {
      const want = Math.min(size + this.ctx.rows.heldAt(until), MAX_LIMIT)
      let answered = false
      const page = await pool.fetch([key.relay], [{ '#h': [key.id.value], until, limit: want }], {
        eose: () => {
          answered = true
        },
      })
      const fresh = this.take(page, 'relay')
      added += fresh
      if (answered || fresh > 0) this.relayAnswered()
      else this.away()
      if (fresh > 0 || !answered) return added
      if (page.length < want) {
        this.ended()
        return added
      }
      // A full page of what we hold (the cache had it): on from its oldest second, with a larger
      // page. A page of one second only is one fuller than the relay answers at once (past its
      // `max_limit`): the rest of that second is out of reach, so on from the second before.
      const oldest = Math.min(...page.map((e) => e.created_at))
      until = oldest < until ? oldest : until - 1
      size = Math.min(size * 2, MAX_LIMIT)
    }
    return added
  }

  /** Folds a newest-first page in; how many of its events are new here. */
  private take(page: readonly NostrEvent[], source: keyof HistoryEdges): number {
    const { rows } = this.ctx
    const held = new Set<string>()
    let oldest = Number.POSITIVE_INFINITY
    for (const e of page) {
      if (rows.has(e.id)) held.add(e.id)
      if (e.created_at < oldest) oldest = e.created_at
    }
    this.ctx.ingestOlder(page, source === 'store')
    let fresh = 0
    for (const e of page) if (!held.has(e.id) && rows.has(e.id)) fresh++
    if (page.length > 0) rows.reached(source, oldest)
    return fresh
  }

  /** The relay answered this group (a page, or its standing subscription's EOSE): paging back may go on. */
  relayAnswered(): void {
    if (!this.relayAway) return
    this.relayAway = false
    this.ctx.changed()
  }

  private away(): void {
    if (this.relayAway) return
    this.relayAway = true
    this.ctx.changed()
  }

  private ended(): void {
    if (!this.hasOlder) return
    this.hasOlder = false
    this.ctx.changed()
  }
}
