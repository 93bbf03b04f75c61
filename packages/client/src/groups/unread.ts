import { isUnread, maxDefined, messageReadMark, threadReadMark } from '@roost/read-state'
import type { Timeline } from './timeline'
import type { ReadStateSource } from './types'

const NO_THREADS: readonly string[] = Object.freeze([])
const NOTHING_UNREAD = Object.freeze({ messages: 0, threads: NO_THREADS })

/**
 * One group's side of read state (NIP-RS): what is unread in its timeline, the parent of its
 * `thread:`/`msg:` contexts, and the marks its UI writes (channel, thread, one message).
 */
export class GroupUnread {
  constructor(
    /** The channel context: the GroupKey string. */
    private readonly channel: string,
    /** The group's timeline, folded up to date (a stored page is folded on first use). */
    private readonly rows: () => Timeline,
    private readonly readState: ReadStateSource | undefined,
  ) {}

  /** Unread top-level rows not sent by us, and the roots of threads with an unread comment. */
  count(): { messages: number; threads: readonly string[] } {
    const rs = this.readState
    if (!rs) return NOTHING_UNREAD
    const contexts = rs.contexts
    if (!contexts) return { messages: this.rows().countAfter(rs.frontier(this.channel)), threads: NO_THREADS }
    // Incremental (UnreadIndex over the rendered row set): another device's blob recounts in
    // O(log n + unread) per group instead of a pass over every message.
    const { messages, threads } = this.rows().unreadCount(contexts)
    return { messages, threads: threads.length ? Object.freeze(threads) : NO_THREADS }
  }

  /**
   * Unread messages and thread replies by others that mention us: a row is unread by the same
   * rule as the count (`max(msg:<id>, channel)`), a reply by `max(msg:<id>, thread:<root>,
   * channel)`. Mentions count whatever the group's notification setting (a UI may mute the count
   * badge, never this one). 0 without read state.
   */
  mentions(): number {
    const rs = this.readState
    if (!rs) return 0
    const contexts = rs.contexts
    let n = 0
    for (const { event, root } of this.rows().mentions()) {
      if (!contexts) {
        if (event.created_at > rs.frontier(this.channel)) n++
        continue
      }
      const frontier = maxDefined(
        contexts[`msg:${event.id}`],
        root === undefined ? undefined : contexts[`thread:${root}`],
        contexts[this.channel],
      )
      if (isUnread(event.created_at, frontier)) n++
    }
    return n
  }

  /**
   * The parent of a read-state context in this group: the channel, for `thread:<root>` and for
   * `msg:<id>` alike (NIP-RS hierarchical frontier rule, decision 15). A reply's thread frontier is
   * folded in only for display (`unreadCount`), never for dominance, eviction or pruning, so a peer
   * that does not fold never sees those replies unread. `undefined` for events not loaded here.
   */
  contextParent(ctx: string): string | undefined {
    if (ctx.startsWith('thread:')) return this.rows().event(ctx.slice(7)) ? this.channel : undefined
    if (ctx.startsWith('msg:')) return this.rows().event(ctx.slice(4)) ? this.channel : undefined
    return undefined
  }

  /** Marks a thread read up to its newest comment (only `thread:<root>` advances). */
  markThreadRead(rootId: string): void {
    const rs = this.readState
    const thread = this.rows().thread(rootId)
    if (!rs || !thread) return
    const mark = threadReadMark(rootId, thread.comments)
    if (mark) rs.markRead(mark.ctx, mark.ts)
  }

  /** Marks one message or reply read: only `msg:<id>` advances. No-op for unknown ids. */
  markMessageRead(id: string): void {
    const rs = this.readState
    const event = this.rows().event(id)
    if (!rs || !event) return
    const mark = messageReadMark({ id: event.id, createdAt: event.created_at })
    rs.markRead(mark.ctx, mark.ts)
  }

  /** Marks the channel read up to `timestamp` (default: its newest row). */
  markRead(timestamp?: number): void {
    const rs = this.readState
    if (!rs) return
    const ts = timestamp ?? this.rows().newestRow()?.created_at
    if (ts === undefined) return
    rs.markRead(this.channel, ts)
  }
}
