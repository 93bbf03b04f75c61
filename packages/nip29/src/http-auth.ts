import type { EventTemplate, NostrEvent } from 'nostr-tools'
import { type AuthCheck, defaultVerify, isEventShape, tagValue, type VerifyEvent } from './auth-header'
import { InvalidArgumentError } from './errors'
import { isHex64 } from './hex'
import { KINDS } from './kinds'
import { nowSeconds } from './template'

/** Options of {@link httpAuthTemplate}. @example { url, method: 'GET' } */
export interface HttpAuthOptions {
  /** The absolute request URL, query included. */
  url: string
  /** The HTTP method. */
  method: string
  /** The SHA-256 (hex) of the request body, for requests with one. */
  payload?: string
  /** Unix seconds; defaults to now. */
  createdAt?: number
}

function absoluteUrl(raw: string, argument: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new InvalidArgumentError(argument, `${argument} must be an absolute URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidArgumentError(argument, `${argument} must be an http(s) URL`)
  }
  return url
}

const METHOD = /^[A-Za-z]{1,16}$/

/**
 * A NIP-98 HTTP auth event (kind 27235): `["u", url]`, `["method", METHOD]` and, for a body,
 * `["payload", sha256]`. Sign it and send it as `Authorization: Nostr <base64>`
 * ({@link encodeAuthHeader}).
 *
 * @throws {InvalidArgumentError} for a relative or non-http URL, a bad method or payload hash.
 * @example
 * const url = `https://relay.example/.well-known/nip29/livekit/${groupId}`
 * const header = encodeAuthHeader(await signer.signEvent(httpAuthTemplate({ url, method: 'GET' })))
 */
export function httpAuthTemplate(opts: HttpAuthOptions): EventTemplate {
  if (typeof opts !== 'object' || opts === null)
    throw new InvalidArgumentError('opts', 'options are required')
  if (typeof opts.url !== 'string') throw new InvalidArgumentError('url', 'url must be a string')
  absoluteUrl(opts.url, 'url')
  if (typeof opts.method !== 'string' || !METHOD.test(opts.method)) {
    throw new InvalidArgumentError('method', 'method must be an HTTP method such as GET')
  }
  const tags = [
    ['u', opts.url],
    ['method', opts.method.toUpperCase()],
  ]
  if (opts.payload !== undefined) {
    if (!isHex64(opts.payload)) throw new InvalidArgumentError('payload', 'payload must be a 64-hex SHA-256')
    tags.push(['payload', opts.payload])
  }
  const createdAt = opts.createdAt ?? nowSeconds()
  if (!Number.isSafeInteger(createdAt) || createdAt < 0) {
    throw new InvalidArgumentError('createdAt', 'createdAt must be a non-negative integer (unix seconds)')
  }
  return { kind: KINDS.httpAuth, content: '', tags, created_at: createdAt }
}

/** What the server expects of a NIP-98 event. @example { url: publicUrl + req.url, method: 'GET', now } */
export interface HttpAuthCheck {
  /** The absolute URL(s) the request may be addressed as (the server's configured public URLs). */
  url: string | readonly string[]
  /** The HTTP method of the request being checked. */
  method: string
  /** Unix seconds, the server's clock. */
  now: number
  /** How far `created_at` may be from `now`, in seconds (default 60, as NIP-98 suggests). */
  windowSeconds?: number
  /** The SHA-256 (hex) of the received body: the event's `payload` tag must match it when given. */
  payload?: string
  /** Signature check; nostr-tools' `verifyEvent` by default. */
  verify?: VerifyEvent
}

function sameUrl(a: string, b: string): boolean {
  if (a === b) return true
  try {
    return new URL(a).href === new URL(b).href
  } catch {
    return false
  }
}

/**
 * The server side of NIP-98: the event is a kind 27235 with a valid signature, its `u` tag is the
 * request URL, its `method` tag the request method, its `created_at` within the window around
 * `now` and, when a body hash is given, its `payload` tag matches.
 *
 * @example
 * const r = checkHttpAuth(decodeAuthHeader(req.headers.authorization), { url, method: 'GET', now })
 * if (!r.ok) return reply(401, r.reason)
 */
export function checkHttpAuth(event: NostrEvent, expected: HttpAuthCheck): AuthCheck {
  if (!isEventShape(event)) return { ok: false, reason: 'not a Nostr event' }
  if (event.kind !== KINDS.httpAuth) return { ok: false, reason: `not a kind ${KINDS.httpAuth} event` }
  const window = expected.windowSeconds ?? 60
  if (Math.abs(event.created_at - expected.now) > window) {
    return { ok: false, reason: `created_at is more than ${window} seconds from now` }
  }
  const u = tagValue(event, 'u')
  if (u === undefined) return { ok: false, reason: 'missing u tag' }
  const urls = typeof expected.url === 'string' ? [expected.url] : expected.url
  if (!urls.some((url) => sameUrl(u, url))) return { ok: false, reason: 'the u tag is not this URL' }
  const method = tagValue(event, 'method')
  if (method === undefined) return { ok: false, reason: 'missing method tag' }
  if (method.toUpperCase() !== expected.method.toUpperCase()) {
    return { ok: false, reason: `the method tag is not ${expected.method.toUpperCase()}` }
  }
  if (expected.payload !== undefined && tagValue(event, 'payload') !== expected.payload) {
    return { ok: false, reason: 'the payload tag does not match the body' }
  }
  if (!(expected.verify ?? defaultVerify)(event)) return { ok: false, reason: 'bad signature' }
  return { ok: true, pubkey: event.pubkey }
}
