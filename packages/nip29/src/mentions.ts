import type { NostrEvent } from 'nostr-tools/core'
import * as nip19 from 'nostr-tools/nip19'
import { InvalidArgumentError } from './errors'
import { assertHex64, isHex64 } from './hex'
import { KINDS } from './kinds'

/**
 * One piece of a message's content, in order; the segments' `raw` texts concatenate back to the
 * content exactly.
 *
 * - `text`: plain text.
 * - `mention`: a NIP-27 `nostr:npub1…` / `nostr:nprofile1…` (or a bare `npub1…`) naming a person.
 * - `event`: a `note1…` / `nevent1…` reference to an event.
 * - `address`: an `naddr1…` reference to an addressable event (a group's naddr among them).
 * - `url`: an `http(s)://` link, without trailing punctuation.
 *
 * @example
 * for (const s of parseContent(message.content)) if (s.type === 'mention') renderName(s.pubkey)
 */
export type ContentSegment =
  | {
      /** Plain text. */
      type: 'text'
      /** The text itself. */
      raw: string
    }
  | {
      /** A person named with NIP-27. */
      type: 'mention'
      /** The text as written, `nostr:` prefix included when present. */
      raw: string
      /** Hex public key of the person. */
      pubkey: string
      /** Relay hints from an `nprofile` (`[]` for an `npub`). */
      relays: string[]
    }
  | {
      /** A reference to one event. */
      type: 'event'
      /** The text as written, `nostr:` prefix included when present. */
      raw: string
      /** Hex id of the event. */
      id: string
      /** Relay hints from an `nevent` (`[]` for a `note`). */
      relays: string[]
      /** Hex pubkey of the event's author, when the `nevent` carries a valid one. */
      author?: string
      /** The event's kind, when the `nevent` carries one. */
      kind?: number
    }
  | {
      /** A reference to an addressable event. */
      type: 'address'
      /** The text as written, `nostr:` prefix included when present. */
      raw: string
      /** The event's kind (e.g. 39000 for a group's metadata). */
      kind: number
      /** Hex pubkey of the event's author. */
      pubkey: string
      /** Its `d` tag (a group's id for a group). */
      identifier: string
      /** Relay hints from the `naddr`; may be `[]`. */
      relays: string[]
    }
  | {
      /** An http(s) link. */
      type: 'url'
      /** The link as written, trailing punctuation left out. */
      raw: string
      /** The link as the URL parser writes it (host lowercased, spaces escaped): the one to open. */
      url: string
    }

const BECH32 = '[02-9ac-hj-np-z]'
// One alternation, scanned left to right: a nostr entity (with or without `nostr:`) or a URL.
// Every quantifier is bounded or over a class that excludes the next token: linear time.
const TOKEN = new RegExp(
  `(?<![0-9a-z])(?:nostr:)?(?:npub1|nprofile1|note1|nevent1|naddr1)${BECH32}{6,4990}(?!${BECH32})|https?://[^\\s<>"'\`\\u0000-\\u001f]+`,
  'gi',
)
/** Longer "URLs" stay text: no real link is this long, and a truncated one would mislead. */
const MAX_URL = 8192
const TRAILING = /[.,;:!?'"»”’*_~]$/

const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{', '>': '<' }

/** A URL's end without trailing punctuation; a `)` stays when it closes a `(` in the URL. Linear. */
function trimUrl(raw: string): string {
  const count = new Map<string, number>()
  for (const c of raw)
    if (c in CLOSERS || Object.values(CLOSERS).includes(c)) count.set(c, (count.get(c) ?? 0) + 1)
  let end = raw.length
  while (end > 0) {
    const last = raw[end - 1] as string
    const open = CLOSERS[last]
    const unbalanced = open !== undefined && (count.get(last) ?? 0) > (count.get(open) ?? 0)
    if (!TRAILING.test(last) && !unbalanced) break
    if (open !== undefined) count.set(last, (count.get(last) ?? 0) - 1)
    end--
  }
  return raw.slice(0, end)
}

function relaysOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((r): r is string => typeof r === 'string') : []
}

/** Decodes one nostr entity (without `nostr:`) into a segment, or `undefined` when it is not valid. */
function entitySegment(raw: string, code: string): ContentSegment | undefined {
  let decoded: ReturnType<typeof nip19.decode>
  try {
    decoded = nip19.decode(code.toLowerCase())
  } catch {
    return undefined
  }
  switch (decoded.type) {
    case 'npub':
      return isHex64(decoded.data) ? { type: 'mention', raw, pubkey: decoded.data, relays: [] } : undefined
    case 'nprofile':
      return isHex64(decoded.data.pubkey)
        ? { type: 'mention', raw, pubkey: decoded.data.pubkey, relays: relaysOf(decoded.data.relays) }
        : undefined
    case 'note':
      return isHex64(decoded.data) ? { type: 'event', raw, id: decoded.data, relays: [] } : undefined
    case 'nevent': {
      const d = decoded.data
      if (!isHex64(d.id)) return undefined
      const segment: ContentSegment = { type: 'event', raw, id: d.id, relays: relaysOf(d.relays) }
      if (isHex64(d.author)) segment.author = d.author
      if (Number.isSafeInteger(d.kind)) segment.kind = d.kind as number
      return segment
    }
    case 'naddr': {
      const d = decoded.data
      if (!isHex64(d.pubkey) || !Number.isSafeInteger(d.kind)) return undefined
      return {
        type: 'address',
        raw,
        kind: d.kind,
        pubkey: d.pubkey,
        identifier: d.identifier,
        relays: relaysOf(d.relays),
      }
    }
    default:
      return undefined
  }
}

/**
 * Splits message content into text, mentions (NIP-27), event and address references, and URLs.
 * Never throws on a string: an undecodable entity or an unusable URL stays text. Non-strings
 * give `[]`. Adjacent text is merged; the `raw` parts concatenate back to `content`.
 *
 * @example
 * parseContent('hi nostr:npub1… see https://example.com/a.')
 * // [text 'hi ', mention {pubkey}, text ' see ', url 'https://example.com/a', text '.']
 */
export function parseContent(content: string): ContentSegment[] {
  if (typeof content !== 'string') return []
  const out: ContentSegment[] = []
  const text = (raw: string): void => {
    if (raw === '') return
    const last = out.at(-1)
    if (last?.type === 'text') out[out.length - 1] = { type: 'text', raw: last.raw + raw }
    else out.push({ type: 'text', raw })
  }
  let at = 0
  for (const match of content.matchAll(TOKEN)) {
    const start = match.index
    let raw = match[0]
    let segment: ContentSegment | undefined
    if (/^https?:/i.test(raw)) {
      if (raw.length > MAX_URL) continue
      raw = trimUrl(raw)
      try {
        const url = new URL(raw)
        if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') {
          segment = { type: 'url', raw, url: url.href }
        }
      } catch {
        segment = undefined
      }
    } else {
      const code = raw.toLowerCase().startsWith('nostr:') ? raw.slice(6) : raw
      segment = entitySegment(raw, code)
    }
    if (segment === undefined) continue
    text(content.slice(at, start))
    out.push(segment)
    at = start + raw.length
  }
  text(content.slice(at))
  return out
}

/**
 * The NIP-27 URI naming a person: `nostr:npub1…`, or `nostr:nprofile1…` with relay hints.
 * @throws {InvalidArgumentError} for a pubkey that is not 64 lowercase hex.
 * @example `hi ${mentionUri(bob)}` // 'hi nostr:npub1…'
 */
export function mentionUri(pubkey: string, relays?: readonly string[]): string {
  assertHex64(pubkey, 'pubkey')
  if (relays !== undefined && !Array.isArray(relays)) {
    throw new InvalidArgumentError('relays', 'relays must be an array of relay URLs')
  }
  if (relays !== undefined && relays.length > 0) {
    if (!relays.every((r) => typeof r === 'string')) {
      throw new InvalidArgumentError('relays', 'relays must be strings')
    }
    return `nostr:${nip19.nprofileEncode({ pubkey, relays: [...relays] })}`
  }
  return `nostr:${nip19.npubEncode(pubkey)}`
}

/** A person to mention in {@link composeMentions}. @example { pubkey: bob } */
export interface MentionPart {
  /** Hex public key of the person. */
  pubkey: string
  /** Relay hints where their profile is found; given, the URI is an `nprofile`, else an `npub`. */
  relays?: readonly string[]
}

/**
 * Assembles content from text and people: each person becomes a `nostr:npub…` URI, and
 * `mentions` lists each distinct pubkey once, in order (pass it to `GroupId.message`'s
 * `mentions`, which adds one `p` tag each).
 *
 * @example
 * const { content, mentions } = composeMentions(['thanks ', { pubkey: bob }, '!'])
 * id.message(content, { mentions })
 */
export function composeMentions(parts: readonly (string | MentionPart)[]): {
  /** The text with each person as a `nostr:` URI. */
  content: string
  /** Each mentioned hex pubkey once, in order of first mention. */
  mentions: string[]
} {
  if (!Array.isArray(parts)) throw new InvalidArgumentError('parts', 'parts must be an array')
  let content = ''
  const mentions: string[] = []
  for (const part of parts) {
    if (typeof part === 'string') {
      content += part
      continue
    }
    if (typeof part !== 'object' || part === null) {
      throw new InvalidArgumentError('parts', 'each part is a string or { pubkey }')
    }
    content += mentionUri(part.pubkey, part.relays)
    if (!mentions.includes(part.pubkey)) mentions.push(part.pubkey)
  }
  return { content, mentions }
}

/**
 * The people `content` mentions with NIP-27 URIs, each once, in order of appearance.
 * @example id.message(text, { mentions: contentMentions(text) })
 */
export function contentMentions(content: string): string[] {
  const out: string[] = []
  for (const s of parseContent(content))
    if (s.type === 'mention' && !out.includes(s.pubkey)) out.push(s.pubkey)
  return out
}

/** Kinds whose `p` tags mean "mentioned" (elsewhere a `p` names a reply or reaction target). */
const P_MENTION_KINDS: readonly number[] = [KINDS.chat, KINDS.thread]

/**
 * Whether `event` mentions `pubkey`: a NIP-27 mention in its content, or (on kinds 9 and 11)
 * a `p` tag. Reactions and comments `p`-tag the author they answer; that is not a mention.
 *
 * @example if (mentionsPubkey(message, me)) bumpMentionBadge()
 */
export function mentionsPubkey(
  event: Pick<NostrEvent, 'kind' | 'tags' | 'content'>,
  pubkey: string,
): boolean {
  if (typeof event !== 'object' || event === null || !isHex64(pubkey)) return false
  if (P_MENTION_KINDS.includes(event.kind) && Array.isArray(event.tags)) {
    for (const tag of event.tags) if (Array.isArray(tag) && tag[0] === 'p' && tag[1] === pubkey) return true
  }
  if (typeof event.content !== 'string' || !event.content.includes('1')) return false
  return contentMentions(event.content).includes(pubkey)
}
