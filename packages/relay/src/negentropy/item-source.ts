import type { Filter, NostrEvent } from 'nostr-tools'
import type { RelayContext } from '../context'
import { canSee, type Reader } from '../groups/visibility'
import { QueryTooCostlyError } from '../query'
import type { Cursor } from '../store/store'

/** Rows one step of the walk asks for and examines at most: a step holds the event loop a few ms. */
const STEP = 1_000

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * The filter matched more records than a session may hold.
 *
 * @example
 * if (err instanceof TooManyRecordsError) conn.send(['NEG-ERR', subId, err.message, err.cap])
 */
export class TooManyRecordsError extends Error {
  constructor(readonly cap: number) {
    super(`blocked: too many records (at most ${cap}); narrow the filter (since/until)`)
  }
}

/** One record of a session's set: `{ timestamp: created_at, id }`. */
export interface Record {
  timestamp: number
  id: string
}

/**
 * The records a reader may see for a NEG-OPEN filter: the same rows a REQ would send it, through
 * the same path — the reader's view in the SQL (`GroupIndex.view`), then the rule itself row by
 * row (`canSee`), in bounded steps after a cursor that yield to the event loop between them — but
 * all of them rather than a page: up to the filter's `limit` when it has one (the newest, as a REQ
 * would pick them), and never past `cap` (then {@link TooManyRecordsError}, nothing kept). A record a
 * reader may not see is never in the set, so a reconciliation cannot reveal that it exists. Rows
 * examined without joining the set count against `maxQueryScan` ({@link QueryTooCostlyError}).
 *
 * @example
 * const records = await visibleRecords(ctx, { '#h': ['general'], since }, reader, 100_000)
 */
export async function visibleRecords(
  ctx: RelayContext,
  f: Filter,
  reader: Reader,
  cap: number,
  open: () => boolean = () => true,
): Promise<Record[]> {
  const { policy, store, limits } = ctx
  const limit = f.limit === undefined ? cap + 1 : Math.min(f.limit, cap + 1)
  const view = store.groupIndex.view(reader, f, policy)
  const out: Record[] = []
  let wasted = 0
  let after: Cursor | undefined
  while (out.length < limit) {
    if (after) await yieldToLoop()
    if (!open()) return out
    const want = Math.min(limit - out.length, STEP)
    const page = await store.page(f, want, { view, after, window: STEP })
    let kept = 0
    for (const row of page.rows) {
      // The query applied the view already; the rule itself is asked again, row by row.
      const g = row.grp === null ? undefined : store.peekGroup(row.grp)
      const event =
        row.kind === 9000 || row.kind === 9001
          ? { kind: row.kind, tags: (JSON.parse(row.json) as NostrEvent).tags }
          : row
      if (!canSee(event, g, reader, f, policy)) continue
      out.push({ timestamp: row.created_at, id: row.id })
      kept++
    }
    if (out.length > cap) throw new TooManyRecordsError(cap)
    wasted += page.scanned - kept
    if (!page.next) break
    after = page.next
    if (wasted > limits.maxQueryScan) throw new QueryTooCostlyError(wasted)
  }
  if (out.length > cap) throw new TooManyRecordsError(cap)
  return out
}
