import type { NostrEvent } from 'nostr-tools'
import { InvalidEventError } from './errors'
import { GroupId } from './group-id'

/** What every parser reads from an event, checked against arbitrary input. */
export interface CheckedEvent {
  kind: number
  pubkey: string
  createdAt: number
  content: string
  /** Only the tags that are non-empty arrays of strings; anything else is ignored. */
  tags: string[][]
}

function isTag(tag: unknown): tag is string[] {
  return Array.isArray(tag) && tag.length > 0 && tag.every((v) => typeof v === 'string')
}

/** Checks the event's shape and kind. */
export function checkEvent(event: NostrEvent, kind: number): CheckedEvent {
  const e = event as unknown as Record<string, unknown> | null
  if (typeof e !== 'object' || e === null || !Array.isArray(e.tags)) {
    throw new InvalidEventError('malformed', kind, `expected a kind ${kind} event, got something else`)
  }
  if (e.kind !== kind) {
    throw new InvalidEventError(
      'wrong-kind',
      kind,
      `expected a kind ${kind} event, got ${typeof e.kind === 'number' ? `kind ${e.kind}` : `a kind of type ${typeof e.kind}`}`,
    )
  }
  return {
    kind,
    pubkey: typeof e.pubkey === 'string' ? e.pubkey : '',
    createdAt: typeof e.created_at === 'number' && Number.isFinite(e.created_at) ? e.created_at : 0,
    content: typeof e.content === 'string' ? e.content : '',
    tags: (e.tags as unknown[]).filter(isTag),
  }
}

/** Options of the state parsers (39000–39005). @example GroupMetadata.parse(event, { relayKey }) */
export interface StateParseOptions {
  /**
   * The relay's key (NIP-11 `self`, else `pubkey`, else the naddr's pubkey). When given, an event
   * by anyone else is rejected: the spec says state events count only when the relay signs them.
   */
  relayKey?: string
}

/** Checks a relay-signed state event (39000–39005) and returns it with its group id (`d`). */
export function checkStateEvent(
  event: NostrEvent,
  kind: number,
  opts?: StateParseOptions,
): CheckedEvent & { id: string } {
  const checked = checkEvent(event, kind)
  if (opts?.relayKey !== undefined && checked.pubkey !== opts.relayKey) {
    throw new InvalidEventError(
      'wrong-author',
      kind,
      `this kind ${kind} event is not signed by the relay's key`,
    )
  }
  const d = checked.tags.find((t) => t[0] === 'd')
  if (d === undefined || d[1] === undefined) {
    throw new InvalidEventError('missing-d', kind, `a kind ${kind} event needs a d tag with the group id`)
  }
  try {
    return { ...checked, id: GroupId.parse(d[1]).value }
  } catch {
    throw new InvalidEventError('bad-d', kind, `the d tag "${d[1]}" is not a group id`)
  }
}
