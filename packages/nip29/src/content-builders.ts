import type { EventTemplate, NostrEvent } from 'nostr-tools'
import * as nip19 from 'nostr-tools/nip19'
import { InvalidArgumentError } from './errors'
import { assertHex64 } from './hex'
import { buildImeta, type ImetaFields } from './imeta'
import { KINDS } from './kinds'
import { type BuilderOptions, groupTemplate } from './template'

/**
 * A message being replied to: its id, or its id with the author and a relay hint for the `q` tag
 * (and its kind, for the `nevent` link).
 * @example id.message('yes', { replyTo: { id: parent.id, pubkey: parent.pubkey, relay: key.relay } })
 */
export type ReplyTarget =
  | string
  | {
      /** Hex id of the replied-to event. */
      id: string
      /** Hex pubkey of its author; without it the `q` tag carries no author. */
      pubkey?: string
      /** A relay URL where it can be found (usually the group's), for the `q` tag and the `nevent` link. */
      relay?: string
      /** Its kind, added to the `nevent` link when given. */
      kind?: number
    }

/** Options of {@link GroupId.message}. @example { replyTo: parent.id, previous } */
export interface MessageOptions extends BuilderOptions {
  /**
   * The message(s) this one replies to. Each gets an `["e", id]` tag (what NIP-29 clients read),
   * a NIP-C7 `["q", id, relay, pubkey]` tag, and a `nostr:nevent1…` link on a line of its own
   * before the text, as NIP-C7's example writes it (clients that read the quote from the text).
   */
  replyTo?: ReplyTarget | readonly ReplyTarget[]
  /**
   * People mentioned in the content (NIP-27 `nostr:npub…`, see `composeMentions`): one
   * `["p", pubkey]` tag each, deduplicated, in order.
   */
  mentions?: readonly string[]
  /**
   * Attached files (NIP-92): one `imeta` tag each, built by `buildImeta` (which throws on a bad
   * field). Each URL should also appear in the content.
   */
  media?: readonly ImetaFields[]
}

/** Options of {@link GroupId.joinRequest}. @example { code: ref.invite, reason: 'hi' } */
export interface JoinOptions extends BuilderOptions {
  /** The invite code (from `naddr…?invite=<code>`), sent as `["code", code]`. */
  code?: string
  /** Free text for the admins; goes into `content`. */
  reason?: string
}

/** Options of {@link GroupId.leaveRequest}. @example { reason: 'bye' } */
export interface LeaveOptions extends BuilderOptions {
  /** Why you leave, for the admins (the event's content). */
  reason?: string
}

/** Options of {@link GroupId.comment}. @example { relay: key.relay, previous } */
export interface CommentOptions extends BuilderOptions {
  /** A relay hint for the `E`/`e` tags (usually the group's relay). */
  relay?: string
}

/** The event a reaction targets (a whole NostrEvent fits). @example id.reaction(message, '+') */
export interface ReactionTarget {
  /** The event id. */
  id: string
  /** Its author's public key (hex). */
  pubkey: string
  /** Its kind. */
  kind: number
}

export function buildMessage(id: string, content: string, opts?: MessageOptions): EventTemplate {
  if (typeof content !== 'string') throw new InvalidArgumentError('content', 'content must be a string')
  const targets =
    opts?.replyTo === undefined ? [] : Array.isArray(opts.replyTo) ? opts.replyTo : [opts.replyTo]
  const eTags: string[][] = []
  const qTags: string[][] = []
  const links: string[] = []
  for (const target of targets as ReplyTarget[]) {
    if (typeof target !== 'string' && (typeof target !== 'object' || target === null)) {
      throw new InvalidArgumentError('replyTo', 'replyTo must be event ids or { id, pubkey?, relay? }')
    }
    const t = typeof target === 'string' ? { id: target } : target
    assertHex64(t.id, 'replyTo')
    if (t.relay !== undefined && typeof t.relay !== 'string') {
      throw new InvalidArgumentError('replyTo.relay', 'replyTo.relay must be a string')
    }
    if (t.kind !== undefined && (!Number.isSafeInteger(t.kind) || t.kind < 0)) {
      throw new InvalidArgumentError('replyTo.kind', 'replyTo.kind must be a non-negative integer')
    }
    eTags.push(['e', t.id])
    if (t.pubkey !== undefined)
      qTags.push(['q', t.id, t.relay ?? '', assertHex64(t.pubkey, 'replyTo.pubkey')])
    else if (t.relay !== undefined) qTags.push(['q', t.id, t.relay])
    else qTags.push(['q', t.id])
    links.push(
      `nostr:${nip19.neventEncode({
        id: t.id,
        relays: t.relay ? [t.relay] : [],
        ...(t.pubkey !== undefined ? { author: t.pubkey } : {}),
        ...(t.kind !== undefined ? { kind: t.kind } : {}),
      })}`,
    )
  }
  if (opts?.mentions !== undefined && !Array.isArray(opts.mentions)) {
    throw new InvalidArgumentError('mentions', 'mentions must be an array of pubkeys')
  }
  const pTags: string[][] = []
  for (const pubkey of opts?.mentions ?? []) {
    assertHex64(pubkey, 'mentions')
    if (!pTags.some((t) => t[1] === pubkey)) pTags.push(['p', pubkey])
  }
  if (opts?.media !== undefined && !Array.isArray(opts.media)) {
    throw new InvalidArgumentError('media', 'media must be an array of imeta fields')
  }
  const imetaTags = (opts?.media ?? []).map((m) => buildImeta(m))
  // NIP-C7: `nostr:nevent1…\nyes`. Links the text already starts with are not written twice.
  let text = content
  for (const link of links.reverse()) if (!text.startsWith(link)) text = `${link}\n${text}`
  return groupTemplate(KINDS.chat, id, text, [...eTags, ...qTags, ...pTags, ...imetaTags], opts)
}

export function buildReaction(
  id: string,
  target: ReactionTarget,
  emoji: string,
  opts?: BuilderOptions,
): EventTemplate {
  if (typeof target !== 'object' || target === null)
    throw new InvalidArgumentError('target', 'target is required')
  assertHex64(target.id, 'target.id')
  assertHex64(target.pubkey, 'target.pubkey')
  if (!Number.isInteger(target.kind) || target.kind < 0) {
    throw new InvalidArgumentError('target.kind', 'target.kind must be a non-negative integer')
  }
  if (typeof emoji !== 'string' || emoji === '') {
    throw new InvalidArgumentError('emoji', 'a reaction needs a non-empty emoji ("+" for a like)')
  }
  const tags = [
    ['e', target.id],
    ['p', target.pubkey],
    ['k', String(target.kind)],
  ]
  return groupTemplate(KINDS.reaction, id, emoji, tags, opts)
}

export function buildJoinRequest(id: string, opts?: JoinOptions): EventTemplate {
  const tags: string[][] = []
  if (opts?.code !== undefined && typeof opts.code !== 'string') {
    throw new InvalidArgumentError('code', 'the invite code must be a string')
  }
  if (opts?.code !== undefined && opts.code !== '') tags.push(['code', opts.code])
  return groupTemplate(KINDS.joinRequest, id, opts?.reason ?? '', tags, opts)
}

export function buildLeaveRequest(id: string, opts?: LeaveOptions): EventTemplate {
  return groupTemplate(KINDS.leaveRequest, id, opts?.reason ?? '', [], opts)
}

export function buildThread(
  id: string,
  title: string,
  content: string,
  opts?: BuilderOptions,
): EventTemplate {
  if (typeof title !== 'string' || title.trim() === '') {
    throw new InvalidArgumentError('title', 'a thread needs a non-empty title')
  }
  if (typeof content !== 'string') throw new InvalidArgumentError('content', 'content must be a string')
  return groupTemplate(KINDS.thread, id, content, [['title', title]], opts)
}

/**
 * NIP-22: uppercase tags point at the root (`E`, `K`, `P`), lowercase at the parent (`e`, `k`, `p`).
 * A top-level comment has the root as its parent.
 */
export function buildComment(
  id: string,
  root: NostrEvent,
  parent: NostrEvent,
  content: string,
  opts?: CommentOptions,
): EventTemplate {
  if (typeof root !== 'object' || root === null) throw new InvalidArgumentError('root', 'root is required')
  if (typeof parent !== 'object' || parent === null)
    throw new InvalidArgumentError('parent', 'parent is required')
  assertHex64(root.id, 'root.id')
  assertHex64(root.pubkey, 'root.pubkey')
  assertHex64(parent.id, 'parent.id')
  assertHex64(parent.pubkey, 'parent.pubkey')
  if (root.kind === KINDS.comment || root.kind === KINDS.note) {
    throw new InvalidArgumentError('root', `a comment's root must not be a kind ${root.kind} event (NIP-22)`)
  }
  if (parent.id !== root.id && parent.kind !== KINDS.comment) {
    throw new InvalidArgumentError('parent', 'the parent must be the root or a kind 1111 comment')
  }
  if (typeof content !== 'string') throw new InvalidArgumentError('content', 'content must be a string')
  const hint = opts?.relay ?? ''
  if (typeof hint !== 'string') throw new InvalidArgumentError('relay', 'relay must be a string')
  const tags = [
    ['E', root.id, hint, root.pubkey],
    ['K', String(root.kind)],
    ['P', root.pubkey],
    ['e', parent.id, hint, parent.pubkey],
    ['k', String(parent.kind)],
    ['p', parent.pubkey],
  ]
  return groupTemplate(KINDS.comment, id, content, tags, opts)
}
