import type { Filter, NostrEvent } from 'nostr-tools'
import { LIMITS, type RelayLimits } from './limits'
import { type NegMessage, parseNegFrame } from './negentropy/wire'

/** A client message the relay understands, after shape checks. */
export type ClientMessage =
  | { type: 'EVENT'; event: NostrEvent }
  | { type: 'REQ'; subId: string; filters: Filter[] }
  /** NIP-45: how many stored events the filters match, answered `["COUNT", subId, {"count": n}]`. */
  | { type: 'COUNT'; subId: string; filters: Filter[] }
  | { type: 'CLOSE'; subId: string }
  | { type: 'AUTH'; event: NostrEvent }
  | NegMessage

/** Why a message was not understood, and how to answer it. */
export type WireError =
  /** `["OK", id, false, reason]`: an EVENT or AUTH whose id could be read. */
  | { answer: 'OK'; eventId: string; reason: string }
  /** `["CLOSED", subId, reason]`: a REQ whose subscription id could be read. */
  | { answer: 'CLOSED'; subId: string; reason: string }
  | { answer: 'NOTICE'; reason: string }
  /** `["NEG-ERR", subId, reason]`: a NIP-77 frame whose subscription id could be read. */
  | { answer: 'NEG-ERR'; subId: string; reason: string }

const HEX64 = /^[0-9a-f]{64}$/
const HEX128 = /^[0-9a-f]{128}$/

/**
 * Parses one text frame. Pure: never throws, returns what to answer when the frame is bad.
 *
 * @example
 * parseMessage('["CLOSE","sub1"]') // { ok: true, message: { type: 'CLOSE', subId: 'sub1' } }
 * parseMessage('nope')             // { ok: false, error: { answer: 'NOTICE', reason: 'invalid: …' } }
 */
export function parseMessage(
  text: string,
  limits: RelayLimits = LIMITS,
): { ok: true; message: ClientMessage } | { ok: false; error: WireError } {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return notice('invalid: message is not valid JSON')
  }
  if (!Array.isArray(data) || typeof data[0] !== 'string')
    return notice('invalid: message must be a JSON array starting with a string')
  const [type] = data
  // The limit counts UTF-8 bytes as NIP-11 says, not UTF-16 units.
  const oversize = Buffer.byteLength(text, 'utf8') > limits.maxMessageLength
  switch (type) {
    case 'EVENT':
    case 'AUTH': {
      const raw = data[1]
      const id = eventIdOf(raw)
      if (oversize)
        return id
          ? { ok: false, error: { answer: 'OK', eventId: id, reason: 'invalid: event too large' } }
          : notice('invalid: message too large')
      if (data.length !== 2) {
        return id
          ? {
              ok: false,
              error: { answer: 'OK', eventId: id, reason: `invalid: ${type} takes exactly one event` },
            }
          : notice(`invalid: ${type} takes exactly one event`)
      }
      const problem = eventProblem(raw, limits)
      if (problem) {
        return id
          ? { ok: false, error: { answer: 'OK', eventId: id, reason: `invalid: ${problem}` } }
          : notice(`invalid: ${problem}`)
      }
      return { ok: true, message: { type, event: raw as NostrEvent } }
    }
    case 'REQ':
    case 'COUNT': {
      const subId = data[1]
      if (typeof subId !== 'string' || subId.length === 0 || subId.length > limits.maxSubidLength)
        return notice(`invalid: subscription id must be a string of 1 to ${limits.maxSubidLength} characters`)
      const closed = (reason: string) => ({
        ok: false as const,
        error: { answer: 'CLOSED' as const, subId, reason },
      })
      if (oversize) return closed('invalid: message too large')
      const filters = data.slice(2)
      if (filters.length === 0) return closed(`invalid: a ${type} needs at least one filter`)
      if (filters.length > limits.maxFilters)
        return closed(`blocked: too many filters (at most ${limits.maxFilters})`)
      const parsed: Filter[] = []
      for (const f of filters) {
        const r = parseFilter(f, limits)
        if (typeof r === 'string') return closed(`invalid: ${r}`)
        parsed.push(r)
      }
      return { ok: true, message: { type: type as 'REQ' | 'COUNT', subId, filters: parsed } }
    }
    case 'CLOSE': {
      const subId = data[1]
      if (typeof subId !== 'string' || data.length !== 2)
        return notice('invalid: CLOSE takes one subscription id')
      return { ok: true, message: { type: 'CLOSE', subId } }
    }
    case 'NEG-OPEN':
    case 'NEG-MSG':
    case 'NEG-CLOSE':
      return parseNegFrame(data, limits, oversize, parseFilter)
    default:
      return notice(`invalid: unknown message type ${JSON.stringify(type).slice(0, 40)}`)
  }
}

function notice(reason: string): { ok: false; error: WireError } {
  return { ok: false, error: { answer: 'NOTICE', reason } }
}

function eventIdOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const id = (raw as { id?: unknown }).id
  return typeof id === 'string' && HEX64.test(id) ? id : undefined
}

/** What is wrong with an event's shape, or undefined when it is well formed. */
export function eventProblem(raw: unknown, limits: RelayLimits = LIMITS): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'event must be an object'
  const e = raw as Record<string, unknown>
  if (typeof e.id !== 'string' || !HEX64.test(e.id)) return 'id must be 64 lowercase hex characters'
  if (typeof e.pubkey !== 'string' || !HEX64.test(e.pubkey))
    return 'pubkey must be 64 lowercase hex characters'
  if (typeof e.sig !== 'string' || !HEX128.test(e.sig)) return 'sig must be 128 lowercase hex characters'
  if (typeof e.kind !== 'number' || !Number.isInteger(e.kind) || e.kind < 0 || e.kind > 65535)
    return 'kind must be an integer from 0 to 65535'
  if (typeof e.created_at !== 'number' || !Number.isInteger(e.created_at) || e.created_at < 0)
    return 'created_at must be a non-negative integer'
  if (typeof e.content !== 'string') return 'content must be a string'
  if (e.content.length > limits.maxContentLength) return 'content too long'
  if (!Array.isArray(e.tags)) return 'tags must be an array'
  if (e.tags.length > limits.maxEventTags) return `too many tags (at most ${limits.maxEventTags})`
  for (const t of e.tags) {
    if (!Array.isArray(t) || t.length === 0 || !t.every((v) => typeof v === 'string'))
      return 'each tag must be a non-empty array of strings'
  }
  return undefined
}

/** The longest NIP-50 `search` string a filter may carry. */
const MAX_SEARCH_LENGTH = 256

/** Validates one REQ filter; returns the filter or what is wrong with it. */
export function parseFilter(raw: unknown, limits: RelayLimits = LIMITS): Filter | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'filter must be an object'
  const out: Filter = {}
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'ids' || key === 'authors') {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && HEX64.test(v)))
        return `${key} must be a list of 64-character lowercase hex strings`
      if (value.length > limits.maxFilterValues) return `too many ${key}`
      out[key] = value
    } else if (key === 'kinds') {
      if (!Array.isArray(value) || !value.every((k) => Number.isInteger(k) && k >= 0 && k <= 65535))
        return 'kinds must be a list of integers from 0 to 65535'
      if (value.length > limits.maxFilterValues) return 'too many kinds'
      out.kinds = value
    } else if (key === 'since' || key === 'until' || key === 'limit') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        return `${key} must be a non-negative integer`
      out[key] = value
    } else if (key.startsWith('#')) {
      if (key.length !== 2) return `tag filter ${JSON.stringify(key).slice(0, 20)} must name a single letter`
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
        return `${key} must be a list of strings`
      if (value.length > limits.maxFilterValues) return `too many ${key} values`
      out[key as `#${string}`] = value
    } else if (key === 'search') {
      if (typeof value !== 'string') return 'search must be a string'
      if (value.length > MAX_SEARCH_LENGTH) return `search must be at most ${MAX_SEARCH_LENGTH} characters`
      out.search = value
    }
    // Other keys are ignored (NIP-01: relays may ignore what they do not know).
  }
  return out
}
