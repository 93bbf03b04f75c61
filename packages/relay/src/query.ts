import { contentMatches, searchTerms } from '@roost/nip29'
import type { Filter, NostrEvent } from 'nostr-tools'
import { matchFilter } from 'nostr-tools/filter'
import type { Peer, RelayContext, Subscription } from './context'
import type { GroupRecord } from './groups/record'
import { canSee, checkRead, type Reader } from './groups/visibility'
import type { Cursor, Page, StoredRow, StoreReader } from './store/store'
import { tiesById } from './ties-by-id'

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

/** Candidates one step of a read examines at most: a step holds the event loop a few milliseconds. */
const MAX_WINDOW = 1_024

/** A REQ examined `maxQueryScan` stored rows without filling its limit. */
export class QueryTooCostlyError extends Error {
  constructor(readonly scanned: number) {
    super(
      `blocked: this query examined ${scanned} stored events without filling its limit; narrow it (#h, authors, since/until)`,
    )
  }
}

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
    // Registered before anything stored is read, so nothing committed meanwhile is missed: an event
    // committed after a read's snapshot is broadcast after it, and waits in the backlog until EOSE.
    // Until the read check below passes, the backlog is only held: a refused REQ drops it unsent.
    const sub: Subscription = { filters, cost, backlog: [] }
    conn.subs.set(subId, sub)
    const named = filters.flatMap((f) => [...(f['#h'] ?? []), ...(f['#d'] ?? [])])
    // The first page of the first filter is read while the groups named are looked up (two round
    // trips at once on PostgreSQL); nothing of it is sent unless the check below passes.
    const early =
      named.length > 0 && this.ctx.tieOrder !== 'id' ? this.firstPage(filters[0], reader) : undefined
    early?.catch(() => {})
    const groups = await loadGroups(store, named)
    if (conn.subs.get(subId) !== sub) return
    const refusal = checkRead(filters, reader, (id) => groups.get(id), policy)
    if (refusal) {
      conn.subs.delete(subId)
      conn.send(['CLOSED', subId, refusal.reason])
      if (refusal.auth) conn.requestAuth()
      return
    }
    const sent = new Set<string>()
    const prefix = `["EVENT",${JSON.stringify(subId)},`
    const budget = { left: limits.maxQueryScan }
    try {
      for (const f of filters) {
        const pages =
          this.ctx.tieOrder === 'id'
            ? tiesById(f, Math.min(f.limit ?? limits.defaultLimit, limits.maxLimit), (g) =>
                this.visiblePages(g, reader, budget),
              )
            : this.visiblePages(f, reader, budget, f === filters[0] ? early : undefined)
        for await (const page of pages) {
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
      if (conn.subs.get(subId) === sub) conn.subs.delete(subId)
      if (err instanceof QueryTooCostlyError) {
        conn.send(['CLOSED', subId, err.message])
        return
      }
      this.ctx.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
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
   * Stored events for one filter, visible to the reader, up to the filter's limit, in the answer
   * order (`created_at` descending, then the relay's arrival order descending), in pages of at most
   * `pageSize` rows. The reader's view goes into the query, so hidden rows are skipped by the
   * database; each step examines a bounded window of rows and the walk yields to the event loop
   * between steps, so other clients are served. Past `budget` examined rows it throws
   * {@link QueryTooCostlyError}.
   */
  async *visiblePages(
    f: Filter,
    reader: Reader,
    budget = { left: this.ctx.limits.maxQueryScan },
    first?: Promise<Page>,
  ): AsyncGenerator<StoredRow[]> {
    const { policy, store, limits } = this.ctx
    const limit = Math.min(f.limit ?? limits.defaultLimit, limits.maxLimit)
    const view = store.groupIndex.view(reader, f, policy)
    let found = 0
    let after: Cursor | undefined
    let window = Math.min(limit, limits.pageSize)
    for (let step = 0; found < limit; step++) {
      if (step > 0) await yieldToLoop()
      const want = Math.min(limit - found, limits.pageSize)
      const page =
        step === 0 && first
          ? await first
          : await store.page(f, want, { view, after, window: Math.max(window, want) })
      budget.left -= page.scanned
      const out: StoredRow[] = []
      for (const row of page.rows) {
        // The query applied the view already; the rule itself is asked again, row by row.
        const g = row.grp === null ? undefined : store.peekGroup(row.grp)
        const tags = row.kind === 9000 || row.kind === 9001 ? tagsOf(row) : undefined
        const event = { kind: row.kind, pubkey: row.pubkey, grp: row.grp, ...(tags && { tags }) }
        if (canSee(event, g, reader, f, policy)) out.push(row)
      }
      found += out.length
      if (out.length > 0) yield out
      if (!page.next) return
      after = page.next
      if (budget.left <= 0) throw new QueryTooCostlyError(limits.maxQueryScan - budget.left)
      // Sparse matches: examine more rows per step (each step stays bounded).
      if (page.rows.length < want) window = Math.min(window * 4, MAX_WINDOW)
    }
  }

  /** The first step of {@link visiblePages} for `f`, as it would read it now (none when `f` asks for nothing). */
  private firstPage(f: Filter | undefined, reader: Reader): Promise<Page> | undefined {
    const { policy, store, limits } = this.ctx
    const limit = f ? Math.min(f.limit ?? limits.defaultLimit, limits.maxLimit) : 0
    if (!f || limit <= 0) return undefined
    const want = Math.min(limit, limits.pageSize)
    return store.page(f, want, { view: store.groupIndex.view(reader, f, policy), window: want })
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
