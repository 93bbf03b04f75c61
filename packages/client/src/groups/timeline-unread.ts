import { KINDS, mentionsPubkey } from '@roost/nip29'
import { type Contexts, type UnreadCount, UnreadIndex } from '@roost/read-state'
import type { NostrEvent } from 'nostr-tools/core'

/**
 * The kinds a thread of NIP-22 comments hangs from: a kind 11 thread, and a kind 9 chat message
 * replied to in thread (its comments carry `K` 9).
 */
export const THREAD_ROOT_KINDS: ReadonlySet<number> = new Set([KINDS.thread, KINDS.chat])

/** What the unread index reads of its timeline. */
export interface UnreadRows {
  /** Top-level rows, oldest first. */
  rows(): readonly NostrEvent[]
  /** A root's comments, oldest first. */
  comments(root: string): readonly NostrEvent[] | undefined
  readonly deleted: ReadonlySet<string>
  /** A thread root (kind 11 or 9) that is shown. */
  visibleThreadRoot(id: string | undefined): boolean
}

/**
 * The unread side of a timeline. Its index holds exactly the rows the timeline shows (decision k):
 * visible top-level rows, and visible comments of visible kind 11 and 9 roots. Built on the first count
 * (a cold start without read state never pays for it), then kept in step on every add and
 * deletion, so a recount after a read-state change costs a binary search, not a pass. And the rows
 * and comments by others that mention us, for the mention badge.
 */
export class TimelineUnread {
  private index: UnreadIndex | undefined
  /** Rows and comments by others that mention us (NIP-27 or a `p` tag), by id. */
  private readonly mentioning = new Map<string, NostrEvent>()

  constructor(
    private readonly channel: string,
    private readonly me: string,
    private readonly timeline: UnreadRows,
  ) {}

  /** Unread rows and thread roots for the merged read state (thread roots in index order). */
  count(contexts: Contexts): UnreadCount {
    if (!this.index) {
      const { deleted } = this.timeline
      const index = new UnreadIndex(this.channel, this.me)
      for (const row of this.timeline.rows()) {
        if (deleted.has(row.id)) continue
        index.add({ id: row.id, createdAt: row.created_at, pubkey: row.pubkey })
        if (!THREAD_ROOT_KINDS.has(row.kind)) continue
        for (const c of this.timeline.comments(row.id) ?? [])
          if (!deleted.has(c.id))
            index.add({ id: c.id, createdAt: c.created_at, pubkey: c.pubkey, root: row.id })
      }
      this.index = index
    }
    return this.index.count(contexts)
  }

  /** A row was added (a thread root brings the comments that came before it). */
  rowAdded(row: NostrEvent): void {
    const { index, timeline } = this
    if (!index || timeline.deleted.has(row.id)) return
    index.add({ id: row.id, createdAt: row.created_at, pubkey: row.pubkey })
    if (!THREAD_ROOT_KINDS.has(row.kind)) return
    for (const c of timeline.comments(row.id) ?? [])
      if (!timeline.deleted.has(c.id)) this.commentAdded(c, row.id)
  }

  /** A comment was added under `root`: counted once its root is shown. */
  commentAdded(comment: NostrEvent, root: string): void {
    if (!this.index || this.timeline.deleted.has(comment.id) || !this.timeline.visibleThreadRoot(root)) return
    this.index.add({ id: comment.id, createdAt: comment.created_at, pubkey: comment.pubkey, root })
  }

  /** An event was deleted (a thread root takes its comments with it). */
  deleted(id: string, threadRoot: boolean): void {
    if (!this.index) return
    this.index.remove(id)
    if (threadRoot) for (const c of this.timeline.comments(id) ?? []) this.index.remove(c.id)
  }

  /** A row or comment was added: kept when it is by someone else and mentions us. */
  noted(event: NostrEvent): void {
    if (event.pubkey !== this.me && mentionsPubkey(event, this.me)) this.mentioning.set(event.id, event)
  }

  /** The visible rows and comments that mention us, a comment with its thread root. */
  mentions(): { event: NostrEvent; root?: string }[] {
    const out: { event: NostrEvent; root?: string }[] = []
    for (const event of this.mentioning.values()) {
      if (this.timeline.deleted.has(event.id)) continue
      if (event.kind !== KINDS.comment) {
        out.push({ event })
        continue
      }
      const root = event.tags.find((t) => t[0] === 'E')?.[1]
      if (this.timeline.visibleThreadRoot(root)) out.push({ event, root })
    }
    return out
  }
}
