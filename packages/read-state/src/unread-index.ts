import type { Contexts } from './blob'
import type { UnreadCount, UnreadRow } from './unread'

/**
 * A row for {@link UnreadIndex}: a top-level row, or a reply when `root` is set.
 *
 * @example
 * index.add({ id: reply.id, createdAt: reply.created_at, pubkey: reply.pubkey, root: root.id })
 */
export interface IndexedRow extends UnreadRow {
  /** Root event id of the thread this reply belongs to; absent for top-level rows. */
  readonly root?: string
}

/**
 * The unread count of one channel kept incrementally: rows are indexed by `created_at` once, and
 * each recount (after a local mark or another device's blob) costs a binary search plus the rows
 * that are actually unread, instead of a pass over every message. Same rules and results as
 * `unreadCount` (hierarchical frontier, decision j for replies, our own rows never count).
 *
 * @example
 * const index = new UnreadIndex(groupKey.toString(), me)
 * for (const m of messages) index.add({ id: m.id, createdAt: m.createdAt, pubkey: m.pubkey })
 * for (const c of comments) index.add({ id: c.id, createdAt: c.createdAt, pubkey: c.pubkey, root: rootId })
 * sync.subscribe(() => render(index.count(sync.contexts)))
 */
export class UnreadIndex {
  private readonly top: UnreadRow[] = []
  private readonly threads = new Map<string, UnreadRow[]>()
  private readonly ids = new Map<string, string | null>()

  constructor(
    /** The channel context this index counts for. */
    readonly channel: string,
    /** Your public key (hex): your own rows are never unread. */
    readonly me?: string,
  ) {}

  /** Number of indexed rows (ours included). */
  get size(): number {
    return this.ids.size
  }

  /** Indexes a row once (by id); returns false if it was already there. */
  add(row: IndexedRow): boolean {
    if (this.ids.has(row.id)) return false
    this.ids.set(row.id, row.root ?? null)
    if (row.root !== undefined && !this.threads.has(row.root)) this.threads.set(row.root, [])
    if (row.pubkey === this.me) return true
    const list = row.root === undefined ? this.top : this.threads.get(row.root)!
    const plain: UnreadRow = { id: row.id, createdAt: row.createdAt, pubkey: row.pubkey }
    list.splice(insertionPoint(list, plain), 0, plain)
    return true
  }

  /** Removes a row (e.g. a NIP-09 or kind 9005 deletion); returns false if it was not indexed. */
  remove(id: string): boolean {
    if (!this.ids.has(id)) return false
    const root = this.ids.get(id)
    this.ids.delete(id)
    const list = root === null || root === undefined ? this.top : this.threads.get(root)
    const at = list?.findIndex((r) => r.id === id) ?? -1
    if (list && at >= 0) list.splice(at, 1)
    return true
  }

  /** The unread state for the merged read state `contexts`. */
  count(contexts: Contexts): UnreadCount {
    const channelValue = contexts[this.channel]
    let messages = 0
    let firstUnread: UnreadRow | undefined
    for (let i = firstAfter(this.top, channelValue); i < this.top.length; i++) {
      const row = this.top[i]!
      const own = contexts[`msg:${row.id}`]
      if (own !== undefined && own >= row.createdAt) continue
      messages++
      firstUnread ??= row
    }
    const threads: string[] = []
    for (const [root, replies] of this.threads) {
      const t = contexts[`thread:${root}`]
      const base = t === undefined ? channelValue : channelValue === undefined ? t : Math.max(t, channelValue)
      for (let i = firstAfter(replies, base); i < replies.length; i++) {
        const row = replies[i]!
        const own = contexts[`msg:${row.id}`]
        if (own !== undefined && own >= row.createdAt) continue
        threads.push(root)
        break
      }
    }
    return firstUnread ? { messages, threads, firstUnread } : { messages, threads }
  }
}

function before(a: UnreadRow, b: UnreadRow): boolean {
  return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id)
}

function insertionPoint(list: readonly UnreadRow[], row: UnreadRow): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (before(list[mid]!, row)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Index of the first row with `createdAt > frontier` (0 when the frontier is unknown). */
function firstAfter(list: readonly UnreadRow[], frontier: number | undefined): number {
  if (frontier === undefined) return 0
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (list[mid]!.createdAt <= frontier) lo = mid + 1
    else hi = mid
  }
  return lo
}
