import type { NostrEvent } from 'nostr-tools/core'
import { verifyEvent } from 'nostr-tools/pure'
import { RoostError } from './errors'
import { isHex64 } from './hex'

/** Why {@link decodeAuthHeader} refused a header. @example if (err.reason === 'missing') … */
export type AuthorizationReason = 'missing' | 'scheme' | 'too-long' | 'base64' | 'json' | 'not-event'

/**
 * An `Authorization` header that does not carry a Nostr event (`Nostr <base64 JSON event>`),
 * with the `reason`. Servers answer 401 with its message.
 *
 * @example
 * try { decodeAuthHeader(req.headers.authorization) } catch (err) {
 *   if (err instanceof AuthorizationError) return reply(401, err.message)
 * }
 */
export class AuthorizationError extends RoostError {
  /** Why the header was refused. */
  readonly reason: AuthorizationReason

  constructor(reason: AuthorizationReason, message: string) {
    super('invalid-authorization', message)
    this.reason = reason
  }
}

/** The verdict of a server-side authorization check. @example if (!r.ok) reply(401, r.reason) */
export type AuthCheck =
  | {
      /** The header is valid. */
      ok: true
      /** Hex public key of the signer, the authenticated user. */
      pubkey: string
    }
  | {
      /** The header was refused. */
      ok: false
      /** A short English sentence saying why, fit for a 401 response (e.g. `'bad signature'`). */
      reason: string
    }

/** Checks an event's id and signature; nostr-tools' `verifyEvent` unless injected. */
export type VerifyEvent = (event: NostrEvent) => boolean

/** Headers longer than this are refused before decoding (a signed event is far smaller). */
export const MAX_AUTH_HEADER = 16_384

const utf8 = new TextEncoder()
const utf8Decoder = new TextDecoder('utf-8', { fatal: true })

function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary)
}

/**
 * The `Authorization` header value for a signed event: `Nostr <base64 of its JSON>`, as Blossom
 * (BUD-01) and NIP-98 both use.
 * @example fetch(url, { headers: { authorization: encodeAuthHeader(signed) } })
 */
export function encodeAuthHeader(event: NostrEvent): string {
  return `Nostr ${toBase64(utf8.encode(JSON.stringify(event)))}`
}

/**
 * The event in an `Authorization: Nostr <base64>` header (standard or URL-safe base64, padding
 * optional). It checks the shape only; the signature and meaning are the checks' job.
 *
 * @throws {AuthorizationError} for a missing header, another scheme, bad base64 or JSON, or JSON
 * that is not an event.
 * @example const event = decodeAuthHeader(req.headers.authorization)
 */
export function decodeAuthHeader(header: string | undefined | null): NostrEvent {
  if (typeof header !== 'string' || header.trim() === '') {
    throw new AuthorizationError('missing', 'missing Authorization header')
  }
  if (header.length > MAX_AUTH_HEADER)
    throw new AuthorizationError('too-long', 'Authorization header too long')
  const match = /^\s*Nostr\s+([A-Za-z0-9+/_-]+={0,2})\s*$/i.exec(header)
  if (match === null) throw new AuthorizationError('scheme', 'Authorization must be "Nostr <base64 event>"')
  let json: string
  try {
    const b64 = (match[1] as string).replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
    const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4)
    const binary = atob(padded)
    json = utf8Decoder.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))
  } catch {
    throw new AuthorizationError('base64', 'the Authorization event is not valid base64 UTF-8')
  }
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    throw new AuthorizationError('json', 'the Authorization event is not JSON')
  }
  if (!isEventShape(value))
    throw new AuthorizationError('not-event', 'the Authorization JSON is not a Nostr event')
  return value
}

/** True for an object with every NIP-01 field of the right type (the signature is not checked). */
export function isEventShape(value: unknown): value is NostrEvent {
  if (typeof value !== 'object' || value === null) return false
  const e = value as Record<string, unknown>
  return (
    isHex64(e.id) &&
    isHex64(e.pubkey) &&
    typeof e.sig === 'string' &&
    /^[0-9a-f]{128}$/.test(e.sig) &&
    Number.isSafeInteger(e.kind) &&
    Number.isSafeInteger(e.created_at) &&
    typeof e.content === 'string' &&
    Array.isArray(e.tags) &&
    e.tags.every((t) => Array.isArray(t) && t.every((v) => typeof v === 'string'))
  )
}

/**
 * The default signature check (nostr-tools, pure computation), on a fresh copy of the NIP-01
 * fields: nostr-tools caches a verdict on the object it checks, and an object carrying a stale
 * "verified" mark from elsewhere must not pass unchecked.
 */
export const defaultVerify: VerifyEvent = (event) => {
  try {
    const { id, pubkey, created_at, kind, tags, content, sig } = event
    return verifyEvent({ id, pubkey, created_at, kind, tags, content, sig })
  } catch {
    return false
  }
}

/** The first value of the first tag named `name`. */
export function tagValue(event: NostrEvent, name: string): string | undefined {
  return event.tags.find((t) => t[0] === name)?.[1]
}
