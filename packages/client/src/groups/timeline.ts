import { KINDS } from '@roost/nip29'
import type { Contexts, UnreadCount } from '@roost/read-state'
import type { NostrEvent } from 'nostr-tools/core'
import { buildMessage } from './message-view'
import { ArrivalOrder } from './timeline-order'
import { THREAD_ROOT_KINDS, TimelineUnread } from './timeline-unread'
import type { Message, Thread } from './types'

/** Kinds that are top-level rows of a group's channel (DESIGN decision 7). */
export const ROW_KINDS: ReadonlySet<number> = new Set([KINDS.chat, KINDS.note, KINDS.thread])

/** What adding an event did to the timeline. */
export type AddResult = 'row' | 'reaction' | 'comment' | 'deletion' | 'other' | 'duplicate'

function lastTag(event: NostrEvent, name: string): string | undefined {
  for (let i = event.tags.length - 1; i >= 0; i--) {
    const t = event.tags[i]!
    if (t[0] === name && typeof t[1] === 'string') return t[1]
  }
  return undefined
}

/**
 * The render fold of one group's timeline: top-level rows (9, 1, 11) in order, reactions (7)
 * folded onto their target, kind 1111 comments grouped under their kind 11 root (NIP-22 `E` tag),
 * and deletions applied (9005 by a moderator, kind 5 by the author). Other kinds are kept only as
 * "seen" ids. Snapshots are immutable and memoized: `messages()` returns the same array until an
 * event changes it, and an unchanged row keeps its object.
 *
 * @example
 * const t = new Timeline(me, (pk) => admins.contains(pk))
 * t.add(event)
 * const rows = t.messages()
 */
export class Timeline {
  private readonly seen = new Set<string>()
  /** The arrival order that breaks ties within a second (decision 21). */
  private readonly order = new ArrivalOrder()
  private readonly rows: NostrEvent[] = []
  private readonly rowIds = new Map<string, NostrEvent>()
  /** target id → reaction events by id */
  private readonly reactions = new Map<string, Map<string, NostrEvent>>()
  /** root id → comments, oldest first */
  private readonly comments = new Map<string, NostrEvent[]>()
  private readonly commentIds = new Map<string, NostrEvent>()
  private readonly deleted = new Set<string>()
  /** deletion requests by author (kind 5) waiting for the target to arrive */
  private readonly authorDeletes = new Map<string, string>()
  /** Reactions by id, so an author's kind 5 can withdraw one. */
  private readonly reactionIds = new Map<string, NostrEvent>()
  private readonly built = new Map<string, Message>()
  private version = 0
  private cachedMessages: { version: number; value: readonly Message[] } | undefined
  private cachedThreads: { version: number; value: readonly Thread[] } | undefined

  /** The unread index of exactly the rows `messages()` and `threads()` show (decision k). */
  private readonly unread: TimelineUnread

  /** `channel` is the read-state context of this timeline (the GroupKey string). */
  constructor(
    private readonly me: string,
    private readonly isModerator: (pubkey: string) => boolean,
    channel = '',
  ) {
    this.unread = new TimelineUnread(channel, me, {
      rows: () => this.rows,
      comments: (root) => this.comments.get(root),
      deleted: this.deleted,
      visibleThreadRoot: (id) => this.visibleThreadRoot(id),
    })
  }

  /**
   * Unread rows and threads for the merged read state, by the hierarchical rule of
   * `@roost/read-state` (`unreadCount` over `messages()` and `threads()` gives the same answer;
   * here thread roots come in `threads()` order).
   */
  unreadCount(contexts: Contexts): UnreadCount {
    const counted = this.unread.count(contexts)
    if (counted.threads.length < 2) return counted
    const roots = new Set(counted.threads)
    const threads = this.threads()
      .filter((t) => roots.has(t.root.id))
      .map((t) => t.root.id)
    return { ...counted, threads }
  }

  /** A row that can hold a thread (kind 11, or a kind 9 replied to in thread), deleted or not. */
  private threadRoot(id: string): boolean {
    return THREAD_ROOT_KINDS.has(this.rowIds.get(id)?.kind ?? -1)
  }

  private visibleThreadRoot(id: string | undefined): boolean {
    return id !== undefined && !this.deleted.has(id) && this.threadRoot(id)
  }

  /** Number of distinct events added (any kind). */
  get size(): number {
    return this.seen.size
  }

  /** Whether the timeline holds the event with this id (as a row, reaction, comment or deletion). */
  has(id: string): boolean {
    return this.seen.has(id)
  }

  /** The oldest top-level row, for paging back with `until`. */
  oldestRow(): NostrEvent | undefined {
    return this.rows[0]
  }

  /** The newest top-level row (not deleted). */
  newestRow(): NostrEvent | undefined {
    for (let i = this.rows.length - 1; i >= 0; i--) {
      const r = this.rows[i]!
      if (!this.deleted.has(r.id)) return r
    }
    return undefined
  }

  /** Rows newer than `since` that were not sent by us (the unread predicate of NIP-RS k). */
  countAfter(since: number): number {
    let n = 0
    for (let i = this.rows.length - 1; i >= 0; i--) {
      const r = this.rows[i]!
      if (r.created_at <= since) break
      if (r.pubkey !== this.me && !this.deleted.has(r.id)) n++
    }
    return n
  }

  /**
   * Adds one event. `older`: it comes from a newest-first page of history (the store, a relay's
   * backlog, `loadOlder`), so within its second it arrived before everything added so far.
   */
  add(event: NostrEvent, opts: { older?: boolean } = {}): AddResult {
    if (this.seen.has(event.id)) return 'duplicate'
    this.seen.add(event.id)
    this.order.arrived(event, opts.older === true)
    const kind = event.kind
    if (ROW_KINDS.has(kind)) {
      this.order.insert(this.rows, event)
      this.rowIds.set(event.id, event)
      this.unread.noted(event)
      if (this.authorDeletes.get(event.id) === event.pubkey) this.deleted.add(event.id)
      this.unread.rowAdded(event)
      this.touch()
      return 'row'
    }
    if (kind === KINDS.reaction) {
      const target = lastTag(event, 'e')
      if (!target) return 'other'
      let m = this.reactions.get(target)
      if (!m) {
        m = new Map()
        this.reactions.set(target, m)
      }
      m.set(event.id, event)
      this.reactionIds.set(event.id, event)
      if (this.authorDeletes.get(event.id) === event.pubkey) this.deleted.add(event.id)
      this.invalidate(target)
      return 'reaction'
    }
    if (kind === KINDS.comment) {
      const root = event.tags.find((t) => t[0] === 'E')?.[1]
      if (!root) return 'other'
      let list = this.comments.get(root)
      if (!list) {
        list = []
        this.comments.set(root, list)
      }
      this.order.insert(list, event)
      this.commentIds.set(event.id, event)
      this.unread.noted(event)
      this.unread.commentAdded(event, root)
      this.invalidate(root)
      return 'comment'
    }
    if (kind === KINDS.deleteEvent && this.isModerator(event.pubkey)) {
      for (const t of event.tags) if (t[0] === 'e' && typeof t[1] === 'string') this.delete(t[1])
      return 'deletion'
    }
    if (kind === 5) {
      for (const t of event.tags) {
        if (t[0] !== 'e' || typeof t[1] !== 'string') continue
        const target = this.rowIds.get(t[1]) ?? this.commentIds.get(t[1]) ?? this.reactionIds.get(t[1])
        if (target) {
          if (target.pubkey === event.pubkey) this.delete(t[1])
        } else this.authorDeletes.set(t[1], event.pubkey)
      }
      return 'deletion'
    }
    return 'other'
  }

  /** Visible rows and others' comments that mention us: the input of the mention badge (`GroupUnread`). */
  mentions(): {
    /** A visible row, or a comment by someone else, that mentions us. */
    event: NostrEvent
    /** The id of the thread root the comment belongs to; undefined for a row. */
    root?: string
  }[] {
    return this.unread.mentions()
  }

  /** Our live (not withdrawn) reactions to `targetId`, with `emoji` if given: what a re-click withdraws. */
  myReactions(targetId: string, emoji?: string): NostrEvent[] {
    const out: NostrEvent[] = []
    for (const r of this.reactions.get(targetId)?.values() ?? []) {
      if (r.pubkey !== this.me || this.deleted.has(r.id)) continue
      if (emoji === undefined || (r.content === '' ? '+' : r.content) === emoji) out.push(r)
    }
    return out
  }

  /** Hides an event (a moderator's 9005); it stays hidden if it arrives later. */
  delete(id: string): void {
    if (this.deleted.has(id)) return
    this.deleted.add(id)
    this.unread.deleted(id, this.threadRoot(id))
    const comment = this.commentIds.get(id)
    if (comment) this.invalidate(comment.tags.find((t) => t[0] === 'E')?.[1] ?? id)
    const reaction = this.reactionIds.get(id)
    if (reaction) this.invalidate(lastTag(reaction, 'e') ?? id)
    this.invalidate(id)
  }

  private touch(): void {
    this.version++
  }

  private invalidate(id: string): void {
    this.built.delete(id)
    this.version++
  }

  private build(event: NostrEvent): Message {
    let message = this.built.get(event.id)
    if (!message) {
      const { me, deleted } = this
      const parts = {
        me,
        reactions: this.reactions.get(event.id),
        comments: this.comments.get(event.id),
        deleted,
      }
      message = buildMessage(event, parts)
      this.built.set(event.id, message)
    }
    return message
  }

  /** Top-level rows, oldest first; the same array until something changes. */
  messages(): readonly Message[] {
    if (this.cachedMessages?.version === this.version) return this.cachedMessages.value
    const out: Message[] = []
    for (const e of this.rows) if (!this.deleted.has(e.id)) out.push(this.build(e))
    const value = Object.freeze(out)
    this.cachedMessages = { version: this.version, value }
    return value
  }

  /** Threads with their comments, by latest activity (oldest first): kind 11s, and kind 9s with a comment. */
  threads(): readonly Thread[] {
    if (this.cachedThreads?.version === this.version) return this.cachedThreads.value
    const out: Thread[] = []
    for (const e of this.rows) {
      if (!THREAD_ROOT_KINDS.has(e.kind) || this.deleted.has(e.id)) continue
      const comments = (this.comments.get(e.id) ?? [])
        .filter((c) => !this.deleted.has(c.id))
        .map((c) => this.build(c))
      if (e.kind !== KINDS.thread && comments.length === 0) continue
      out.push(Object.freeze({ root: this.build(e), comments: Object.freeze(comments) }))
    }
    out.sort(
      (a, b) =>
        (a.root.thread?.lastCommentAt ?? a.root.createdAt) -
        (b.root.thread?.lastCommentAt ?? b.root.createdAt),
    )
    const value = Object.freeze(out)
    this.cachedThreads = { version: this.version, value }
    return value
  }

  /** One thread by its root: a kind 11, or a kind 9 (empty until its first reply in thread); else undefined. */
  thread(rootId: string): Thread | undefined {
    const found = this.threads().find((t) => t.root.id === rootId)
    if (found) return found
    const row = this.rowIds.get(rootId)
    if (!row || row.kind !== KINDS.chat || this.deleted.has(rootId)) return undefined
    return Object.freeze({ root: this.build(row), comments: Object.freeze([]) })
  }

  /** A row or comment by id, if loaded and not deleted. */
  event(id: string): NostrEvent | undefined {
    if (this.deleted.has(id)) return undefined
    return this.rowIds.get(id) ?? this.commentIds.get(id)
  }
}
