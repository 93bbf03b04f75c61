import type { EventTemplate, NostrEvent } from 'nostr-tools'
import { type AuthCheck, defaultVerify, isEventShape, tagValue, type VerifyEvent } from './auth-header'
import { InvalidArgumentError } from './errors'
import { isHex64 } from './hex'
import { KINDS } from './kinds'
import { nowSeconds } from './template'

/** What a Blossom authorization allows (BUD-01 `t` tag). */
export type BlossomVerb = 'upload' | 'get' | 'delete' | 'list'

const VERBS: readonly string[] = ['upload', 'get', 'delete', 'list']

/** Options of {@link blossomAuthTemplate}. @example { verb: 'upload', sha256, expiration: now + 300 } */
export interface BlossomAuthOptions {
  /** What the authorization allows (`upload`, `get`, `delete`, …). */
  verb: BlossomVerb
  /** The blob(s) it is for: one `x` tag each (required for upload and delete). */
  sha256?: string | readonly string[]
  /** Unix seconds after which the authorization is void. */
  expiration: number
  /** Human-readable text for the user's signer (defaults to e.g. "Upload blob"). */
  content?: string
  /** Server domains it is limited to (BUD-11 `server` tags, lowercase hosts). */
  servers?: readonly string[]
  /** Unix seconds; defaults to now. */
  createdAt?: number
}

function hashes(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return []
  const list = typeof value === 'string' ? [value] : value
  if (!Array.isArray(list)) throw new InvalidArgumentError('sha256', 'sha256 must be a string or an array')
  for (const x of list)
    if (!isHex64(x)) throw new InvalidArgumentError('sha256', 'sha256 must be 64 lowercase hex')
  return [...new Set(list)]
}

/**
 * A Blossom authorization event (kind 24242, BUD-01/02): `["t", verb]`, one `["x", sha256]` per
 * blob, `["expiration", unix]` and optional `["server", domain]` tags. Sign it and send it as
 * `Authorization: Nostr <base64>` ({@link encodeAuthHeader}).
 *
 * @throws {InvalidArgumentError} for an unknown verb, an upload or delete without a hash, bad
 * hashes, or an expiration not after `createdAt`.
 * @example
 * const auth = blossomAuthTemplate({ verb: 'upload', sha256, expiration: now + 300, createdAt: now })
 * await fetch(`${server}/upload`, { method: 'PUT', body, headers: { authorization: encodeAuthHeader(await sign(auth)) } })
 */
export function blossomAuthTemplate(opts: BlossomAuthOptions): EventTemplate {
  if (typeof opts !== 'object' || opts === null)
    throw new InvalidArgumentError('opts', 'options are required')
  if (!VERBS.includes(opts.verb)) {
    throw new InvalidArgumentError('verb', 'verb must be upload, get, delete or list')
  }
  const xs = hashes(opts.sha256)
  if ((opts.verb === 'upload' || opts.verb === 'delete') && xs.length === 0) {
    throw new InvalidArgumentError('sha256', `a ${opts.verb} authorization names its blob's sha256`)
  }
  const createdAt = opts.createdAt ?? nowSeconds()
  if (!Number.isSafeInteger(createdAt) || createdAt < 0) {
    throw new InvalidArgumentError('createdAt', 'createdAt must be a non-negative integer (unix seconds)')
  }
  if (!Number.isSafeInteger(opts.expiration) || opts.expiration <= createdAt) {
    throw new InvalidArgumentError('expiration', 'expiration must be an integer after createdAt')
  }
  const tags: string[][] = [
    ['t', opts.verb],
    ...xs.map((x) => ['x', x]),
    ['expiration', String(opts.expiration)],
  ]
  if (opts.servers !== undefined && !Array.isArray(opts.servers)) {
    throw new InvalidArgumentError('servers', 'servers must be an array of domains')
  }
  for (const server of opts.servers ?? []) {
    if (typeof server !== 'string' || !/^[a-z0-9.-]+(:\d+)?$/.test(server)) {
      throw new InvalidArgumentError('servers', 'servers are lowercase domains such as cdn.example.com')
    }
    tags.push(['server', server])
  }
  const content = opts.content ?? `${opts.verb[0]?.toUpperCase()}${opts.verb.slice(1)} blob`
  if (typeof content !== 'string') throw new InvalidArgumentError('content', 'content must be a string')
  return { kind: KINDS.blossomAuth, content, tags, created_at: createdAt }
}

/** What a Blossom server expects of an authorization. @example { verb: 'upload', sha256, now } */
export interface BlossomAuthCheck {
  /** The action the server is about to perform. */
  verb: BlossomVerb
  /** The blob concerned; the event must name it in an `x` tag. Omit before the hash is known. */
  sha256?: string
  /** Unix seconds, the server's clock. */
  now: number
  /** This server's domain: when the event has `server` tags, one must be it. */
  server?: string
  /** How far in the future `created_at` may be (clock skew), in seconds; default 60. */
  skewSeconds?: number
  /** Signature check; nostr-tools' `verifyEvent` by default. */
  verify?: VerifyEvent
}

/**
 * The server side of a Blossom authorization (BUD-01): a signed kind 24242 whose `created_at` is
 * not in the future, whose `expiration` is in the future, whose `t` is the verb, which names the
 * blob in an `x` tag (when `sha256` is given) and, if it has `server` tags, names this server.
 *
 * @example
 * const r = checkBlossomAuth(decodeAuthHeader(req.headers.authorization), { verb: 'upload', sha256, now })
 * if (!r.ok) return reply(401, r.reason)
 */
export function checkBlossomAuth(event: NostrEvent, expected: BlossomAuthCheck): AuthCheck {
  if (!isEventShape(event)) return { ok: false, reason: 'not a Nostr event' }
  if (event.kind !== KINDS.blossomAuth) return { ok: false, reason: `not a kind ${KINDS.blossomAuth} event` }
  if (event.created_at > expected.now + (expected.skewSeconds ?? 60)) {
    return { ok: false, reason: 'created_at is in the future' }
  }
  const expiration = tagValue(event, 'expiration')
  if (expiration === undefined || !/^\d{1,15}$/.test(expiration)) {
    return { ok: false, reason: 'missing or malformed expiration tag' }
  }
  if (Number(expiration) <= expected.now) return { ok: false, reason: 'authorization expired' }
  const verbs = event.tags.filter((t) => t[0] === 't').map((t) => t[1])
  if (!verbs.includes(expected.verb))
    return { ok: false, reason: `authorization is not for ${expected.verb}` }
  if (expected.sha256 !== undefined && !authorizesBlob(event, expected.sha256)) {
    return { ok: false, reason: 'authorization does not name this blob' }
  }
  const servers = event.tags.filter((t) => t[0] === 'server').map((t) => t[1]?.toLowerCase())
  if (
    servers.length > 0 &&
    (expected.server === undefined || !servers.includes(expected.server.toLowerCase()))
  ) {
    return { ok: false, reason: 'authorization is for another server' }
  }
  if (!(expected.verify ?? defaultVerify)(event)) return { ok: false, reason: 'bad signature' }
  return { ok: true, pubkey: event.pubkey }
}

/**
 * Whether a Blossom authorization names `sha256` in an `x` tag (for a server that learns the hash
 * only after receiving the body).
 * @example if (!authorizesBlob(auth, computed)) reject(403)
 */
export function authorizesBlob(event: NostrEvent, sha256: string): boolean {
  return (
    Array.isArray(event.tags) && event.tags.some((t) => Array.isArray(t) && t[0] === 'x' && t[1] === sha256)
  )
}

/**
 * A Blossom blob descriptor (BUD-02), as servers answer uploads and lists.
 * @example const { url, sha256, size, type } = parseBlobDescriptor(await res.json())
 */
export interface BlobDescriptor {
  /** Where the blob can be fetched. */
  url: string
  /** The blob's SHA-256, hex: its Blossom address. */
  sha256: string
  /** Its size in bytes. */
  size: number
  /** The MIME type; `application/octet-stream` when the server gave none. */
  type: string
  /** Unix seconds. */
  uploaded: number
}

/**
 * Checks a server's blob descriptor: an http(s) `url`, 64-hex `sha256`, a non-negative integer
 * `size` and `uploaded`, and a string `type` (defaulted). Unknown fields are dropped.
 *
 * @throws {InvalidArgumentError} (argument `descriptor`) naming the bad field.
 * @example parseBlobDescriptor(JSON.parse(body)).url
 */
export function parseBlobDescriptor(value: unknown): BlobDescriptor {
  const bad = (field: string): never => {
    throw new InvalidArgumentError('descriptor', `blob descriptor: bad or missing ${field}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('object')
  const d = value as Record<string, unknown>
  if (typeof d.url !== 'string') return bad('url')
  try {
    const u = new URL(d.url)
    if (u.protocol !== 'https:' && u.protocol !== 'http:') bad('url')
  } catch {
    bad('url')
  }
  if (!isHex64(d.sha256)) return bad('sha256')
  if (!Number.isSafeInteger(d.size) || (d.size as number) < 0) return bad('size')
  if (d.type !== undefined && typeof d.type !== 'string') return bad('type')
  const uploaded = d.uploaded ?? 0
  if (!Number.isSafeInteger(uploaded) || (uploaded as number) < 0) return bad('uploaded')
  return {
    url: d.url,
    sha256: d.sha256,
    size: d.size as number,
    type: typeof d.type === 'string' && d.type !== '' ? d.type : 'application/octet-stream',
    uploaded: uploaded as number,
  }
}
