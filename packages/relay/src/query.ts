import type { Filter, NostrEvent } from 'nostr-tools'
import { matchFilter } from 'nostr-tools/filter'
import type { Peer, RelayContext } from './context'
import type { GroupRecord } from './groups/record'
import { canSee, checkRead, type Reader } from './groups/visibility'
import { LIMITS } from './limits'
import type { StoredRow, StoreReader } from './store/store'

/** A connection as the query side sees it: who it is, and its open subscriptions. */
export interface Subscriber extends Peer {
  readonly subs: Map<string, Filter[]>
}

function tagsOf(row: StoredRow): string[][] {
  return (JSON.parse(row.json) as NostrEvent).tags
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

  /** Answers a REQ: refuses it (CLOSED), or sends the visible stored events, EOSE, and keeps it open. */
  async req(conn: Subscriber, subId: string, filters: Filter[]): Promise<void> {
    const { policy, store } = this.ctx
    if (!conn.subs.has(subId) && conn.subs.size >= LIMITS.maxSubscriptions) {
      conn.send(['CLOSED', subId, `blocked: too many subscriptions (at most ${LIMITS.maxSubscriptions})`])
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
    const sent = new Set<string>()
    const rows: StoredRow[] = []
    try {
      for (const f of filters) {
        for (const row of await this.visibleRows(f, reader)) {
          if (sent.has(row.id)) continue
          sent.add(row.id)
          rows.push(row)
        }
      }
    } catch (err) {
      this.ctx.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
      conn.subs.delete(subId)
      conn.send(['CLOSED', subId, 'error: the query failed'])
      return
    }
    conn.subs.set(subId, filters)
    const prefix = `["EVENT",${JSON.stringify(subId)},`
    for (const row of rows) conn.sendRaw(`${prefix}${row.json}]`)
    conn.send(['EOSE', subId])
  }

  /** Closes a subscription (CLOSE). */
  close(conn: Subscriber, subId: string): void {
    conn.subs.delete(subId)
  }

  /** Stored events for one filter, visible to the reader, up to the filter's limit. */
  async visibleRows(f: Filter, reader: Reader): Promise<StoredRow[]> {
    const { policy, store } = this.ctx
    const limit = Math.min(f.limit ?? LIMITS.defaultLimit, LIMITS.maxLimit)
    if (limit === 0) return []
    const out: StoredRow[] = []
    let offset = 0
    for (let page = 0; page < 20 && out.length < limit; page++) {
      const want = limit - out.length
      const rows = await store.query(f, want, offset)
      offset += rows.length
      const groups = await loadGroups(
        store,
        rows.flatMap((r) => (r.grp === null ? [] : [r.grp])),
      )
      for (const row of rows) {
        const g = row.grp === null ? undefined : groups.get(row.grp)
        const event = row.kind === 9000 || row.kind === 9001 ? { kind: row.kind, tags: tagsOf(row) } : row
        if (canSee(event, g, reader, f, policy)) out.push(row)
      }
      if (rows.length < want) break
    }
    return out
  }

  /** Sends an accepted event to every open subscription that matches it and may see it (`g`: its group after the change). */
  broadcast(subscribers: Iterable<Subscriber>, event: NostrEvent, g: GroupRecord | undefined): void {
    const json = JSON.stringify(event)
    for (const conn of subscribers) {
      const reader = this.reader(conn)
      for (const [subId, filters] of conn.subs) {
        if (filters.some((f) => matchFilter(f, event) && canSee(event, g, reader, f, this.ctx.policy))) {
          conn.sendRaw(`["EVENT",${JSON.stringify(subId)},${json}]`)
        }
      }
    }
  }
}
