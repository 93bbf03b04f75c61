import type { Filter } from 'nostr-tools'
import type { Peer, RelayContext } from './context'
import { checkRead, type Reader } from './groups/visibility'
import { loadGroups } from './query'

/**
 * NIP-45 COUNT: how many stored events the filters match that a REQ with them would send this
 * reader, answered `["COUNT", subId, {"count": n}]`. The same rule as REQ, the same way: `checkRead`
 * first (a private group named by a non-member is refused with the REQ's CLOSED text, and
 * `auth-required:` brings a challenge), then the reader's view (`GroupIndex.view`) in the SQL that
 * counts, so an event a reader may not see is never counted. An event matched by several filters
 * counts once; `limit` is ignored. A count that would examine more than `maxQueryScan` stored rows
 * for one filter is refused with CLOSED `blocked:`.
 *
 * @example
 * await answerCount(ctx, conn, 'c1', [{ kinds: [9], '#h': ['general'] }]) // ["COUNT","c1",{"count":42}]
 */
export async function answerCount(
  ctx: RelayContext,
  conn: Peer,
  subId: string,
  filters: Filter[],
): Promise<void> {
  const { policy, store, limits } = ctx
  const reader: Reader = { authed: conn.authed, relayKey: ctx.pubkey }
  const named = filters.flatMap((f) => [...(f['#h'] ?? []), ...(f['#d'] ?? [])])
  const groups = await loadGroups(store, named)
  const refusal = checkRead(filters, reader, (id) => groups.get(id), policy)
  if (refusal) {
    conn.send(['CLOSED', subId, refusal.reason])
    if (refusal.auth) conn.requestAuth()
    return
  }
  const counted = new Set<number>()
  try {
    for (const f of filters) {
      const view = store.groupIndex.view(reader, f, policy)
      const rows = await store.countable(f, { view, maxScan: limits.maxQueryScan })
      if (rows === undefined) {
        conn.send([
          'CLOSED',
          subId,
          `blocked: this count would examine more than ${limits.maxQueryScan} stored events; narrow it (#h, kinds, since/until)`,
        ])
        return
      }
      for (const seq of rows) counted.add(seq)
    }
  } catch (err) {
    ctx.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
    conn.send(['CLOSED', subId, 'error: the count failed'])
    return
  }
  conn.send(['COUNT', subId, { count: counted.size }])
}
