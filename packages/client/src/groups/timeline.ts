import { KINDS, mentionsPubkey, timelineOrder } from '@roost/nip29'
import { type Contexts, type UnreadCount, UnreadIndex } from '@roost/read-state'
import type { NostrEvent } from 'nostr-tools/core'
import type { Message, Reaction, Thread } from './types'

/** Kinds that are top-level rows of a group's channel (DESIGN decision 7). */
export const ROW_KINDS: ReadonlySet<number> = new Set([KINDS.chat, KINDS.note, KINDS.thread])

/** What adding an event did to the timeline. */
export type AddResult = 'row' | 'reaction' | 'comment' | 'deletion' | 'other' | 'duplicate'

/**
 * Inserts into an array kept oldest first by `before`; appending (the common live case) is O(1).
 */
function insertSorted(
  list: NostrEvent[],
  event: NostrEvent,
  before: (a: NostrEvent, b: NostrEvent) => boolean,
): void {
  let hi = list.length
  if (hi === 0 || before(list[hi - 1]!, event)) {
    list.push(event)
    return
  }
  let lo = 0
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(list[mid]!, event)) lo = mid + 1
    else hi = mid
  }
  list.splice(lo, 0, event)
}

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
  /**
   * Arrival order (decision 12): live events count up from 0, pages of older history (the store,
   * `loadOlder`, a relay's stored backlog, all newest first) count down from 0, so a tie within one
   * `created_at` second keeps the order in which the relay delivered the events.
   */
  private readonly arrival = new Map<string, number>()
  private newestArrival = 0
  private oldestArrival = 0
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
  /** Rows and comments by others that mention us (NIP-27 or a `p` tag), by id. */
  private readonly mentioning = new Map<string, NostrEvent>()
  private version = 0
  private cachedMessages: { version: number; value: readonly Message[] } | undefined
  private cachedThreads: { version: number; value: readonly Thread[] } | undefined

  /**
   * The unread index of exactly the rows `messages()` and `threads()` show (decision k): visible
   * top-level rows, and visible comments of visible kind 11 roots. Built on the first count (a
   * cold start without read state never pays for it), then kept in step on every add and
   * deletion, so a recount after a read-state change costs a binary search, not a pass.
   */
  private unread: UnreadIndex | undefined

  /** `channel` is the read-state context of this timeline (the GroupKey string). */
  constructor(
    private readonly me: string,
    private readonly isModerator: (pubkey: string) => boolean,
    private readonly channel = '',
  ) {}

  /**
   * Unread rows and threads for the merged read state, by the hierarchical rule of
   * `@roost/read-state` (`unreadCount` over `messages()` and `threads()` gives the same answer;
   * here thread roots come in `threads()` order).
   */
  unreadCount(contexts: Contexts): UnreadCount {
    const counted = this.unreadIndex().count(contexts)
    if (counted.threads.length < 2) return counted
    const roots = new Set(counted.threads)
    const threads = this.threads()
      .filter((t) => roots.has(t.root.id))
      .map((t) => t.root.id)
    return { ...counted, threads }
  }

  private unreadIndex(): UnreadIndex {
    if (!this.unread) {
      const index = new UnreadIndex(this.channel, this.me)
      for (const row of this.rows) {
        if (this.deleted.has(row.id)) continue
        index.add({ id: row.id, createdAt: row.created_at, pubkey: row.pubkey })
        if (row.kind !== KINDS.thread) continue
        for (const c of this.comments.get(row.id) ?? []) {
          if (!this.deleted.has(c.id))
            index.add({ id: c.id, createdAt: c.created_at, pubkey: c.pubkey, root: row.id })
        }
      }
      this.unread = index
    }
    return this.unread
  }

  private visibleThreadRoot(id: string | undefined): boolean {
    if (id === undefined || this.deleted.has(id)) return false
    return this.rowIds.get(id)?.kind === KINDS.thread
  }

  private indexComment(comment: NostrEvent, root: string): void {
    this.unread?.add({ id: comment.id, createdAt: comment.created_at, pubkey: comment.pubkey, root })
  }

  /** Number of distinct events added (any kind). */
  get size(): number {
    return this.seen.size
  }

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

  /** Timeline order (decision 21, `timelineOrder` of `@roost/nip29`): `created_at`, then arrival, then id. */
  private readonly before = (a: NostrEvent, b: NostrEvent): boolean =>
    timelineOrder(a, this.arrival.get(a.id) ?? 0, b, this.arrival.get(b.id) ?? 0) < 0

  /**
   * Adds one event. `older`: it comes from a newest-first page of history (the store, a relay's
   * backlog, `loadOlder`), so within its second it arrived before everything added so far.
   */
  add(event: NostrEvent, opts: { older?: boolean } = {}): AddResult {
    if (this.seen.has(event.id)) return 'duplicate'
    this.seen.add(event.id)
    this.arrival.set(event.id, opts.older ? --this.oldestArrival : ++this.newestArrival)
    const kind = event.kind
    if (ROW_KINDS.has(kind)) {
      insertSorted(this.rows, event, this.before)
      this.rowIds.set(event.id, event)
      this.noteMention(event)
      if (this.authorDeletes.get(event.id) === event.pubkey) this.deleted.add(event.id)
      if (this.unread && !this.deleted.has(event.id)) {
        this.unread.add({ id: event.id, createdAt: event.created_at, pubkey: event.pubkey })
        if (kind === KINDS.thread) {
          for (const c of this.comments.get(event.id) ?? [])
            if (!this.deleted.has(c.id)) this.indexComment(c, event.id)
        }
      }
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
      insertSorted(list, event, this.before)
      this.commentIds.set(event.id, event)
      this.noteMention(event)
      if (this.unread && !this.deleted.has(event.id) && this.visibleThreadRoot(root))
        this.indexComment(event, root)
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

  private noteMention(event: NostrEvent): void {
    if (event.pubkey !== this.me && mentionsPubkey(event, this.me)) this.mentioning.set(event.id, event)
  }

  /**
   * The visible rows and comments by others that mention us, each with the thread root a comment
   * belongs to: the input of the mention badge (`GroupUnread`).
   */
  mentions(): { event: NostrEvent; root?: string }[] {
    const out: { event: NostrEvent; root?: string }[] = []
    for (const event of this.mentioning.values()) {
      if (this.deleted.has(event.id)) continue
      if (event.kind !== KINDS.comment) {
        out.push({ event })
        continue
      }
      const root = event.tags.find((t) => t[0] === 'E')?.[1]
      if (this.visibleThreadRoot(root)) out.push({ event, root })
    }
    return out
  }

  /**
   * Our own live (not withdrawn) reactions to `targetId`, with `emoji` when given: what a second
   * click on a reaction chip withdraws.
   */
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
    if (this.unread) {
      this.unread.remove(id)
      if (this.rowIds.get(id)?.kind === KINDS.thread) {
        for (const c of this.comments.get(id) ?? []) this.unread.remove(c.id)
      }
    }
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
    const cached = this.built.get(event.id)
    if (cached) return cached
    let replyTo: readonly string[] = NO_IDS
    if (event.kind === KINDS.chat) {
      let ids: string[] | undefined
      for (const t of event.tags) {
        const v = t[1]
        if ((t[0] !== 'q' && t[0] !== 'e') || typeof v !== 'string' || ids?.includes(v)) continue
        if (ids) ids.push(v)
        else ids = [v]
      }
      if (ids) replyTo = Object.freeze(ids)
    }
    const reactions = this.foldReactions(event.id)
    const mine = event.pubkey === this.me
    // Two literal shapes (with and without `thread`), no spread: a cold start builds thousands.
    let message: Message
    if (event.kind === KINDS.thread) {
      const list = (this.comments.get(event.id) ?? []).filter((c) => !this.deleted.has(c.id))
      const thread = Object.freeze({
        title: event.tags.find((t) => t[0] === 'title')?.[1] ?? '',
        comments: list.length,
        lastCommentAt: list[list.length - 1]?.created_at,
      })
      message = {
        id: event.id,
        kind: event.kind,
        pubkey: event.pubkey,
        createdAt: event.created_at,
        content: event.content,
        event,
        mine,
        replyTo,
        reactions,
        thread,
      }
    } else {
      message = {
        id: event.id,
        kind: event.kind,
        pubkey: event.pubkey,
        createdAt: event.created_at,
        content: event.content,
        event,
        mine,
        replyTo,
        reactions,
      }
    }
    Object.freeze(message)
    this.built.set(event.id, message)
    return message
  }

  private foldReactions(target: string): readonly Reaction[] {
    const m = this.reactions.get(target)
    if (!m || m.size === 0) return EMPTY
    const byEmoji = new Map<string, Set<string>>()
    for (const r of m.values()) {
      if (this.deleted.has(r.id)) continue
      const emoji = r.content === '' ? '+' : r.content
      let set = byEmoji.get(emoji)
      if (!set) {
        set = new Set()
        byEmoji.set(emoji, set)
      }
      set.add(r.pubkey)
    }
    const out: Reaction[] = []
    for (const [emoji, set] of byEmoji) {
      const pubkeys = Object.freeze([...set])
      out.push(Object.freeze({ emoji, count: pubkeys.length, pubkeys, mine: set.has(this.me) }))
    }
    out.sort((a, b) => b.count - a.count || (a.emoji < b.emoji ? -1 : 1))
    return Object.freeze(out)
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

  /** Kind 11 threads with their comments, by latest activity (oldest first). */
  threads(): readonly Thread[] {
    if (this.cachedThreads?.version === this.version) return this.cachedThreads.value
    const out: Thread[] = []
    for (const e of this.rows) {
      if (e.kind !== KINDS.thread || this.deleted.has(e.id)) continue
      const comments = (this.comments.get(e.id) ?? [])
        .filter((c) => !this.deleted.has(c.id))
        .map((c) => this.build(c))
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

  /** A row or comment by id, if loaded and not deleted. */
  event(id: string): NostrEvent | undefined {
    if (this.deleted.has(id)) return undefined
    return this.rowIds.get(id) ?? this.commentIds.get(id)
  }
}

const EMPTY: readonly Reaction[] = Object.freeze([])
const NO_IDS: readonly string[] = Object.freeze([])
