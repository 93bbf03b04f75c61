import type { Contexts } from './blob'
import { messageContext, threadContext } from './context'
import { isUnread, maxDefined } from './frontier'

/**
 * One message as the unread rules see it.
 *
 * @example
 * const row: UnreadRow = { id: e.id, createdAt: e.created_at, pubkey: e.pubkey }
 */
export interface UnreadRow {
  /** The event id. */
  readonly id: string
  /** Its `created_at`, Unix seconds. */
  readonly createdAt: number
  /** Its author's public key (hex); your own rows are never unread. */
  readonly pubkey: string
}

/**
 * A thread: its root event id and its replies.
 *
 * @example
 * const thread: ThreadRows = { root: root.id, replies: comments.map(toRow) }
 */
export interface ThreadRows {
  /** The thread root's event id. */
  readonly root: string
  /** The thread's comments. */
  readonly replies: readonly UnreadRow[]
}

/**
 * Input of {@link unreadCount}.
 *
 * @example
 * unreadCount({ channel: key, topLevel, threads, me, contexts: sync.contexts })
 */
export interface UnreadInput {
  /** The channel context (in Roost, the GroupKey string). */
  readonly channel: string
  /**
   * The channel's top-level rows: exactly the row set whose newest `created_at` a channel mark
   * advances to (decision k; in Roost decision 7's kinds 9 and 1 and thread roots).
   */
  readonly topLevel: readonly UnreadRow[]
  /** Threads with their replies (kind 1111 under a kind 11 root). */
  readonly threads?: readonly ThreadRows[]
  /** Our pubkey: our own messages are never unread. */
  readonly me?: string
  /** The merged read state. */
  readonly contexts: Contexts
}

/**
 * Result of {@link unreadCount}.
 *
 * @example
 * const { messages, threads } = unreadCount(input)
 * badge(messages + threads.length)
 */
export interface UnreadCount {
  /** Unread top-level messages not by us. */
  readonly messages: number
  /** Roots of threads with at least one unread reply not by us. */
  readonly threads: readonly string[]
  /** Oldest unread top-level row (where "jump to first unread" goes; ties: lowest id), if any. */
  readonly firstUnread?: UnreadRow
}

/**
 * Counts what is unread in a channel by the hierarchical rule: a top-level row is unread iff its
 * `created_at` is after `max(msg:<id>, channel)`; a reply is unread iff it is after
 * `max(msg:<reply>, thread:<root>, channel)` (decision j); a thread is unread iff a reply is.
 * Unknown frontiers are unread; equality is read. Use the same `topLevel` rows for
 * {@link channelReadMark}, so a channel never badges forever (decision k).
 *
 * @example
 * unreadCount({ channel: key, topLevel: rows, threads, me, contexts: sync.contexts }).messages
 */
export function unreadCount(input: UnreadInput): UnreadCount {
  const { channel, contexts, me } = input
  const channelValue = contexts[channel]
  let messages = 0
  let firstUnread: UnreadRow | undefined
  for (const row of input.topLevel) {
    if (row.pubkey === me) continue
    const frontier = maxDefined(contexts[`msg:${row.id}`], channelValue)
    if (isUnread(row.createdAt, frontier)) {
      messages++
      if (
        !firstUnread ||
        row.createdAt < firstUnread.createdAt ||
        (row.createdAt === firstUnread.createdAt && row.id < firstUnread.id)
      )
        firstUnread = row
    }
  }
  const threads: string[] = []
  for (const thread of input.threads ?? []) {
    const base = maxDefined(contexts[`thread:${thread.root}`], channelValue)
    for (const reply of thread.replies) {
      if (reply.pubkey === me) continue
      if (isUnread(reply.createdAt, maxDefined(contexts[`msg:${reply.id}`], base))) {
        threads.push(thread.root)
        break
      }
    }
  }
  return firstUnread ? { messages, threads, firstUnread } : { messages, threads }
}

/**
 * A context and the value to pass to `markRead(ctx, ts)`.
 *
 * @example
 * const mark: ReadMark | undefined = channelReadMark(key, rows)
 * if (mark) sync.markRead(mark.ctx, mark.ts)
 */
export interface ReadMark {
  /** The context key (`channel:…`, `thread:…`, `msg:…`). */
  readonly ctx: string
  /** Its frontier, Unix seconds. */
  readonly ts: number
}

/**
 * The channel mark for "I have seen these top-level rows": the channel context advanced to their
 * newest `created_at` (replies excluded, per the Write Discipline). `undefined` for no rows.
 *
 * @example
 * const mark = channelReadMark(key, visibleTopLevelRows)
 * if (mark) sync.markRead(mark.ctx, mark.ts)
 */
export function channelReadMark(
  channel: string,
  topLevel: readonly Pick<UnreadRow, 'createdAt'>[],
): ReadMark | undefined {
  let ts: number | undefined
  for (const row of topLevel) if (ts === undefined || row.createdAt > ts) ts = row.createdAt
  return ts === undefined ? undefined : { ctx: channel, ts }
}

/**
 * The thread mark for "I have read this thread": only `thread:<root>` advances, to the newest reply.
 *
 * @example
 * threadReadMark(root.id, replies) // { ctx: `thread:${root.id}`, ts: newestReply.created_at }
 */
export function threadReadMark(
  rootId: string,
  replies: readonly Pick<UnreadRow, 'createdAt'>[],
): ReadMark | undefined {
  let ts: number | undefined
  for (const row of replies) if (ts === undefined || row.createdAt > ts) ts = row.createdAt
  return ts === undefined ? undefined : { ctx: threadContext(rootId), ts }
}

/**
 * The per-message mark for one revealed message: only `msg:<id>` advances, to its `created_at`.
 *
 * @example
 * messageReadMark(reply) // { ctx: `msg:${reply.id}`, ts: reply.createdAt }
 */
export function messageReadMark(row: Pick<UnreadRow, 'id' | 'createdAt'>): ReadMark {
  return { ctx: messageContext(row.id), ts: row.createdAt }
}
