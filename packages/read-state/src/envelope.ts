import type { EventTemplate, Filter, NostrEvent } from 'nostr-tools'
import {
  D_TAG_PREFIX,
  DEFAULT_HORIZON_SECONDS,
  DEFAULT_MAX_CONTENT_LENGTH,
  DELETION_KIND,
  READ_STATE_KIND,
  T_TAG_VALUE,
} from './constants'

/**
 * Why an event's envelope is not a read-state blob.
 *
 * @example
 * const r = readSlot(event)
 * if (!r.ok && r.reason === 'bad-d-prefix') return // other app data
 */
export type EnvelopeRejection =
  | 'wrong-kind'
  | 'wrong-author'
  | 'no-d-tag'
  | 'multiple-d-tags'
  | 'bad-d-prefix'
  | 'bad-slot'
  | 'no-t-tag'
  | 'multiple-t-tags'
  | 'too-large'

/**
 * Result of {@link readSlot}.
 *
 * @example
 * const r: SlotResult = readSlot(event)
 * if (r.ok) console.log(r.slotId)
 */
export type SlotResult =
  | {
      /** The event is a valid read-state envelope. */
      ok: true
      /** Its slot (the `d` tag). */
      slotId: string
    }
  | {
      /** The event is not one to read. */
      ok: false
      /** Why it was refused. */
      reason: EnvelopeRejection
    }

/**
 * Options of {@link readSlot}.
 *
 * @example
 * readSlot(event, { pubkey: me, maxContentLength: 87_472 })
 */
export interface ReadSlotOptions {
  /** When set, an event by any other pubkey is rejected (`'wrong-author'`). */
  pubkey?: string
  /** Content longer than this is rejected (`'too-large'`). Default 87,472 characters (the largest NIP-44 payload of 65,535 bytes). */
  maxContentLength?: number
}

/**
 * Checks a received event's envelope (kind 30078, exactly one `d` tag `read-state:<slot>` with a
 * slot of 1–64 ASCII characters, exactly one `["t","read-state"]`, content within the size limit)
 * and returns its slot id. Control characters are ASCII and accepted (decision a speaks only of
 * ASCII). Other `t` tags beside the one `read-state` tag are fine.
 *
 * @example
 * readSlot({ kind: 30078, tags: [['d', 'read-state:ab12'], ['t', 'read-state']], ... })
 * // { ok: true, slotId: 'ab12' }
 */
export function readSlot(
  event: Pick<NostrEvent, 'kind' | 'tags' | 'content'> & { pubkey?: string },
  options: ReadSlotOptions = {},
): SlotResult {
  if (event.kind !== READ_STATE_KIND) return { ok: false, reason: 'wrong-kind' }
  if (options.pubkey !== undefined && event.pubkey !== options.pubkey)
    return { ok: false, reason: 'wrong-author' }
  let d: string | undefined
  let dCount = 0
  let tCount = 0
  for (const tag of event.tags) {
    if (tag[0] === 'd') {
      dCount++
      d = tag[1]
    } else if (tag[0] === 't' && tag[1] === T_TAG_VALUE) tCount++
  }
  if (dCount === 0) return { ok: false, reason: 'no-d-tag' }
  if (dCount > 1) return { ok: false, reason: 'multiple-d-tags' }
  if (typeof d !== 'string' || !d.startsWith(D_TAG_PREFIX)) return { ok: false, reason: 'bad-d-prefix' }
  const slotId = d.slice(D_TAG_PREFIX.length)
  if (!isValidSlotId(slotId)) return { ok: false, reason: 'bad-slot' }
  if (tCount === 0) return { ok: false, reason: 'no-t-tag' }
  if (tCount > 1) return { ok: false, reason: 'multiple-t-tags' }
  if (typeof event.content !== 'string') return { ok: false, reason: 'too-large' }
  if (event.content.length > (options.maxContentLength ?? DEFAULT_MAX_CONTENT_LENGTH))
    return { ok: false, reason: 'too-large' }
  return { ok: true, slotId }
}

/**
 * A received slot id is valid when it is 1–64 ASCII characters (decision a).
 *
 * @example
 * isValidSlotId('café') // false
 */
export function isValidSlotId(slotId: string): boolean {
  if (slotId.length < 1 || slotId.length > 64) return false
  for (let i = 0; i < slotId.length; i++) if (slotId.charCodeAt(i) > 0x7f) return false
  return true
}

/**
 * The tags of a blob for `slotId`: exactly one `d` and one `t`.
 *
 * @example
 * readStateTags('ab12') // [['d', 'read-state:ab12'], ['t', 'read-state']]
 */
export function readStateTags(slotId: string): string[][] {
  return [
    ['d', D_TAG_PREFIX + slotId],
    ['t', T_TAG_VALUE],
  ]
}

/**
 * The NIP-01 address of a blob: `30078:<pubkey>:read-state:<slot>`.
 *
 * @example
 * coordinate(pk, 'ab12') // '30078:<pk>:read-state:ab12'
 */
export function coordinate(pubkey: string, slotId: string): string {
  return `${READ_STATE_KIND}:${pubkey}:${D_TAG_PREFIX}${slotId}`
}

/**
 * The initial-load filter: every blob of `pubkey` within the horizon.
 *
 * @example
 * loadFilter(pk, 1_700_000_000) // { kinds: [30078], authors: [pk], '#t': ['read-state'], since: 1699395200 }
 */
export function loadFilter(
  pubkey: string,
  nowSeconds: number,
  horizonSeconds = DEFAULT_HORIZON_SECONDS,
): Filter {
  return {
    kinds: [READ_STATE_KIND],
    authors: [pubkey],
    '#t': [T_TAG_VALUE],
    since: nowSeconds - horizonSeconds,
  }
}

/**
 * The live-subscription filter (no `since`).
 *
 * @example
 * liveFilter(pk) // { kinds: [30078], authors: [pk], '#t': ['read-state'] }
 */
export function liveFilter(pubkey: string): Filter {
  return { kinds: [READ_STATE_KIND], authors: [pubkey], '#t': [T_TAG_VALUE] }
}

/**
 * The read-before-write filter for one's own coordinate (no `since`, so old squatters are found too).
 *
 * @example
 * ownCoordinateFilter(pk, 'ab12') // { kinds: [30078], authors: [pk], '#d': ['read-state:ab12'] }
 */
export function ownCoordinateFilter(pubkey: string, slotId: string): Filter {
  return { kinds: [READ_STATE_KIND], authors: [pubkey], '#d': [D_TAG_PREFIX + slotId] }
}

/**
 * A NIP-09 deletion request for read-state coordinates, with one `a` tag per coordinate and a
 * `["k","30078"]` tag. Never reuse a deleted slot: relays delete every version up to `createdAt`.
 *
 * @example
 * deletionTemplate(pk, ['old1'], 1_700_000_000)
 * // { kind: 5, created_at: 1700000000, content: '', tags: [['a', '30078:<pk>:read-state:old1'], ['k', '30078']] }
 */
export function deletionTemplate(
  pubkey: string,
  slotIds: readonly string[],
  createdAt: number,
): EventTemplate {
  return {
    kind: DELETION_KIND,
    created_at: createdAt,
    content: '',
    tags: [...slotIds.map((s) => ['a', coordinate(pubkey, s)]), ['k', String(READ_STATE_KIND)]],
  }
}
