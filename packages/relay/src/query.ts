import { contentMatches, searchTerms } from '@roost/nip29'
import type { Filter, NostrEvent } from 'nostr-tools'
import { matchFilter } from 'nostr-tools/filter'
import type { Peer, RelayContext, Subscription } from './context'
import type { GroupRecord } from './groups/record'
import { canSee, checkRead, type Reader } from './groups/visibility'
import type { StoredRow, StoreReader } from './store/store'

/** A connection as the query side sees it: who it is, its open subscriptions and its output pacing. */
export interface Subscriber extends Peer {
  readonly subs: Map<string, Subscription>
  /** Still open. */
  readonly open: boolean
  /** Bytes sent and not yet handed to the network. */
  readonly buffered: number
  /** Resolves when the client has read enough of its output to send more (false: it is gone). */
  drained(): Promise<boolean>
}

/** What matching an event against these filters costs (see {@link Subscription.cost}). */
export function queryCost(filters: readonly Filter[]): number {
  let cost = 0
  for (const f of filters) {
    cost += 1
    for (const [key, value] of Object.entries(f)) {
      if (
        Array.isArray(value) &&
        (key.startsWith('#') || key === 'ids' || key === 'authors' || key === 'kinds')
      )
        cost += value.length
    }
  }
  return cost
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

function tagsOf(row: StoredRow): string[][] {
  return (JSON.parse(row.json) as NostrEvent).tags
}

/** NIP-01 matching plus NIP-50: a filter with `search` also needs every search term in the content. */
function matches(f: Filter, event: NostrEvent): boolean {
  if (!matchFilter(f, event)) return false
  return f.search === undefined || contentMatches(event.content, searchTerms(f.search))
}

/** Loads the records of the given group ids into a map for the synchronous visibility rules. */
export async function loadGroups(
  store: Pick<StoreReader, 'group'>,
  ids: Iterable<string>,
): Promise<Map<string, GroupRecord>> {
  const out = new Map<string, GroupRecord>()
  for (const id of new Set(ids)) {
    const g = await store.group(id)
    if (g) out.set(id, g)
  }
  return out
}

/**
 * The read side: REQ (stored results through the visibility rule, then live), and live matching of
 * every accepted event against every open subscription.
 */
export class QuerySide {
  constructor(private readonly ctx: RelayContext) {}

  reader(peer: Peer): Reader {
    return { authed: peer.authed, relayKey: this.ctx.pubkey }
  }

  /**
   * Answers a REQ: refuses it (CLOSED), or streams the visible stored events in pages, paced by the
   * reader, then EOSE, and keeps it open. A REQ whose connection closes stops at the next page.
   */
  async req(conn: Subscriber, subId: string, filters: Filter[]): Promise<void> {
    const { policy, store, limits } = this.ctx
    const existing = conn.subs.get(subId)
    if (!existing && conn.subs.size >= limits.maxSubscriptions) {
      conn.send(['CLOSED', subId, `blocked: too many subscriptions (at most ${limits.maxSubscriptions})`])
      return
    }
    const cost = queryCost(filters)
    let held = 0
    for (const [id, sub] of conn.subs) if (id !== subId) held += sub.cost
    if (held + cost > limits.maxQueryCost) {
      conn.subs.delete(subId)
      conn.send([
        'CLOSED',
        subId,
        `blocked: subscriptions too costly (${held + cost} filter values, at most ${limits.maxQueryCost} per connection)`,
      ])
      return
    }
    const reader = this.reader(conn)
    const named = filters.flatMap((f) => [...(f['#h'] ?? []), ...(f['#d'] ?? [])])
    const groups = await loadGroups(store, named)
    const refusal = checkRead(filters, reader, (id) => groups.get(id), policy)
    if (refusal) {
      conn.subs.delete(subId)
      conn.send(['CLOSED', subId, refusal.reason])
      if (refusal.auth) conn.requestAuth()
      return
    }
    // Registered before the stored results so nothing committed meanwhile is missed; live matches
    // wait in the backlog until EOSE.
    const sub: Subscription = { filters, cost, backlog: [] }
    conn.subs.set(subId, sub)
    const sent = new Set<string>()
    const prefix = `["EVENT",${JSON.stringify(subId)},`
    try {
      for (const f of filters) {
        for await (const page of this.visiblePages(f, reader)) {
          if (conn.subs.get(subId) !== sub) return
          for (const row of page) {
            if (sent.has(row.id)) continue
            sent.add(row.id)
            conn.sendRaw(`${prefix}${row.json}]`)
            // Paced per event: a page of large events must not pile up past the memory cap.
            if (conn.buffered > this.ctx.limits.pacingBytes && !(await conn.drained())) return
          }
        }
      }
    } catch (err) {
      this.ctx.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
      if (conn.subs.get(subId) === sub) conn.subs.delete(subId)
      conn.send(['CLOSED', subId, 'error: the query failed'])
      return
    }
    if (conn.subs.get(subId) !== sub) return
    conn.send(['EOSE', subId])
    const backlog = sub.backlog ?? []
    sub.backlog = undefined
    for (const b of backlog) if (!sent.has(b.id)) conn.sendRaw(b.frame)
  }

  /** Closes a subscription (CLOSE). */
  close(conn: Subscriber, subId: string): void {
    conn.subs.delete(subId)
  }

  /**
   * Stored events for one filter, visible to the reader, up to the filter's limit, in pages of at
   * most `pageSize` rows; it yields to the event loop between pages so other clients are served.
   */
  async *visiblePages(f: Filter, reader: Reader): AsyncGenerator<StoredRow[]> {
    const { policy, store, limits } = this.ctx
    const limit = Math.min(f.limit ?? limits.defaultLimit, limits.maxLimit)
    let found = 0
    let offset = 0
    for (let page = 0; page < 100 && found < limit; page++) {
      if (page > 0) await yieldToLoop()
      const want = Math.min(limit - found, limits.pageSize)
      const rows = await store.query(f, want, offset)
      offset += rows.length
      const groups = await loadGroups(
        store,
        rows.flatMap((r) => (r.grp === null ? [] : [r.grp])),
      )
      const out: StoredRow[] = []
      for (const row of rows) {
        const g = row.grp === null ? undefined : groups.get(row.grp)
        const event = row.kind === 9000 || row.kind === 9001 ? { kind: row.kind, tags: tagsOf(row) } : row
        if (canSee(event, g, reader, f, policy)) out.push(row)
      }
      found += out.length
      if (out.length > 0) yield out
      if (rows.length < want) return
    }
  }

  /** Sends an accepted event to every open subscription that matches it and may see it (`g`: its group after the change). */
  broadcast(subscribers: Iterable<Subscriber>, event: NostrEvent, g: GroupRecord | undefined): void {
    const json = JSON.stringify(event)
    for (const conn of subscribers) {
      const reader = this.reader(conn)
      for (const [subId, sub] of conn.subs) {
        if (sub.filters.some((f) => matches(f, event) && canSee(event, g, reader, f, this.ctx.policy))) {
          const frame = `["EVENT",${JSON.stringify(subId)},${json}]`
          if (!sub.backlog) conn.sendRaw(frame)
          else if (sub.backlog.length < this.ctx.limits.maxLimit) sub.backlog.push({ id: event.id, frame })
          else {
            conn.subs.delete(subId)
            conn.send([
              'CLOSED',
              subId,
              'error: too many new events while sending stored ones, subscribe again',
            ])
          }
        }
      }
    }
  }
}
