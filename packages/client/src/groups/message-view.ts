import { KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { Message, Reaction } from './types'

const EMPTY: readonly Reaction[] = Object.freeze([])
const NO_IDS: readonly string[] = Object.freeze([])

/** What a row or comment is shown with: its reactions, its comments (a kind 11 or 9 root), the deletions. */
export interface MessageParts {
  readonly me: string
  /** Reaction events to it, by id. */
  readonly reactions: ReadonlyMap<string, NostrEvent> | undefined
  /** Its kind 1111 comments, oldest first (a kind 11 root, or a kind 9 replied to in thread). */
  readonly comments: readonly NostrEvent[] | undefined
  /** Ids deleted (a moderator's 9005 or the author's kind 5). */
  readonly deleted: ReadonlySet<string>
}

/**
 * The immutable {@link Message} of one row or comment: the ids a kind 9 quotes or replies to,
 * its reactions folded per emoji (deleted ones left out), and a kind 11's title and comment count
 * (a kind 9 with comments has its count too, and an empty title).
 *
 * @example
 * const message = buildMessage(event, { me, reactions: byTarget.get(event.id), comments: undefined, deleted })
 */
export function buildMessage(event: NostrEvent, parts: MessageParts): Message {
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
  const reactions = foldReactions(parts)
  const mine = event.pubkey === parts.me
  // Two literal shapes (with and without `thread`), no spread: a cold start builds thousands.
  let message: Message
  const list =
    event.kind === KINDS.thread || (event.kind === KINDS.chat && parts.comments?.length)
      ? (parts.comments ?? []).filter((c) => !parts.deleted.has(c.id))
      : undefined
  if (list && (event.kind === KINDS.thread || list.length > 0)) {
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
  return Object.freeze(message)
}

/** Reactions per emoji (`''` counts as `+`), one per pubkey, most first; ours marked. */
function foldReactions({ reactions, deleted, me }: MessageParts): readonly Reaction[] {
  if (!reactions || reactions.size === 0) return EMPTY
  const byEmoji = new Map<string, Set<string>>()
  for (const r of reactions.values()) {
    if (deleted.has(r.id)) continue
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
    out.push(Object.freeze({ emoji, count: pubkeys.length, pubkeys, mine: set.has(me) }))
  }
  out.sort((a, b) => b.count - a.count || (a.emoji < b.emoji ? -1 : 1))
  return Object.freeze(out)
}
