import type { IncomingMessage, ServerResponse } from 'node:http'
import { AuthorizationError, checkHttpAuth, decodeAuthHeader, GroupId, type VerifyEvent } from '@roost/nip29'
import { AccessToken } from 'livekit-server-sdk'

/** Options of {@link createLiveKitHandler}. @example { url: 'wss://livekit.example', apiKey, apiSecret, publicUrl, isMember } */
export interface LiveKitOptions {
  /** The LiveKit server clients connect to (`wss://…`), returned beside the token. */
  url: string
  /** The LiveKit API key and secret the tokens are signed with. */
  apiKey: string
  apiSecret: string
  /**
   * The relay's public URL(s) (`wss://relay.example` or `https://relay.example`): a NIP-98 `u`
   * tag must be one of them plus the request path. Never taken from request headers.
   */
  publicUrl: string | readonly string[]
  /** Whether `pubkey` is a member of `groupId` (false too for a group that does not exist). */
  isMember: (groupId: string, pubkey: string) => boolean | Promise<boolean>
  /** Token lifetime in seconds (default 600): enough to connect, short if it leaks. */
  ttlSeconds?: number
  /** Unix seconds; injectable for tests. */
  clock?: () => number
  /** Signature check (defaults to nostr-tools). */
  verify?: VerifyEvent
}

/** What a member gets: the LiveKit server to connect to and the access token. */
export interface LiveKitTokenResponse {
  url: string
  token: string
}

/** Handles a request when it is the handler's; `false` leaves it to the next handler. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>

const PREFIX = '/.well-known/nip29/livekit'

/** `wss://host` → `https://host`, without a trailing slash. */
function httpBase(url: string): string {
  const u = new URL(url)
  const protocol = u.protocol === 'wss:' ? 'https:' : u.protocol === 'ws:' ? 'http:' : u.protocol
  if (protocol !== 'https:' && protocol !== 'http:')
    throw new TypeError(`publicUrl must be ws(s) or http(s): ${url}`)
  return `${protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`
}

/**
 * The NIP-29 LiveKit endpoints, for a relay configured with a LiveKit server:
 *
 * - `GET /.well-known/nip29/livekit` → 204: this relay offers audio/video rooms.
 * - `GET /.well-known/nip29/livekit/<group>` with `Authorization: Nostr <kind 27235>` (NIP-98:
 *   `u` = this URL, `method` = GET, `created_at` within 60 s, used once) from a member of the group → 200
 *   `{ url, token }`: a LiveKit access token for room = group id, identity = the member's pubkey,
 *   expiring after `ttlSeconds`. 401 for a missing or invalid authorization, 403 for a non-member,
 *   400 for an unusable group id, each with a JSON `{ error }`.
 *
 * Build it only when LiveKit is configured: without it the relay should not advertise AV.
 *
 * @example
 * const livekit = createLiveKitHandler({ url, apiKey, apiSecret, publicUrl: 'wss://relay.example', isMember })
 * http.createServer(async (req, res) => { if (!(await livekit(req, res))) next(req, res) })
 */
export function createLiveKitHandler(options: LiveKitOptions): HttpHandler {
  const bases = (typeof options.publicUrl === 'string' ? [options.publicUrl] : [...options.publicUrl]).map(
    httpBase,
  )
  if (bases.length === 0) throw new TypeError('publicUrl is required')
  if (options.apiKey === '' || options.apiSecret === '')
    throw new TypeError('LiveKit apiKey and apiSecret are required')
  const ttl = options.ttlSeconds ?? 600
  const clock = options.clock ?? (() => Math.floor(Date.now() / 1000))
  // NIP-98 events already exchanged for a token, until they fall out of the 60 s window: a
  // header seen in transit cannot be replayed for a second token.
  const used = new Map<string, number>()
  const firstUse = (id: string, now: number): boolean => {
    for (const [seen, until] of used) if (until < now) used.delete(seen)
    if (used.has(id)) return false
    used.set(id, now + 2 * 60)
    return true
  }

  async function token(
    req: IncomingMessage,
    res: ServerResponse,
    rawId: string,
    path: string,
  ): Promise<void> {
    let groupId: string
    try {
      groupId = GroupId.parse(decodeURIComponent(rawId)).value
    } catch {
      return json(res, 400, { error: 'invalid: not a group id' })
    }
    let event: ReturnType<typeof decodeAuthHeader>
    try {
      event = decodeAuthHeader(req.headers.authorization)
    } catch (err) {
      const message = err instanceof AuthorizationError ? err.message : 'bad Authorization header'
      return json(res, 401, { error: `auth-required: ${message}` }, { 'WWW-Authenticate': 'Nostr' })
    }
    const check = checkHttpAuth(event, {
      url: bases.map((base) => base + path),
      method: 'GET',
      now: clock(),
      ...(options.verify === undefined ? {} : { verify: options.verify }),
    })
    if (!check.ok)
      return json(res, 401, { error: `auth-required: ${check.reason}` }, { 'WWW-Authenticate': 'Nostr' })
    if (!(await options.isMember(groupId, check.pubkey))) {
      return json(res, 403, { error: 'restricted: only members of this group can join its call' })
    }
    if (!firstUse(event.id, clock())) {
      return json(
        res,
        401,
        { error: 'auth-required: this authorization was already used' },
        { 'WWW-Authenticate': 'Nostr' },
      )
    }
    const at = new AccessToken(options.apiKey, options.apiSecret, { identity: check.pubkey, ttl })
    at.addGrant({ room: groupId, roomJoin: true, canPublish: true, canSubscribe: true, canPublishData: true })
    const body: LiveKitTokenResponse = { url: options.url, token: await at.toJwt() }
    json(res, 200, body, { 'Cache-Control': 'no-store' })
  }

  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string
    if (path !== PREFIX && !path.startsWith(`${PREFIX}/`)) return false
    try {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, cors())
        res.end()
      } else if (req.method !== 'GET' && req.method !== 'HEAD') {
        json(res, 405, { error: 'method not allowed' })
      } else if (path === PREFIX || path === `${PREFIX}/`) {
        res.writeHead(204, cors())
        res.end()
      } else {
        const rawId = path.slice(PREFIX.length + 1)
        if (rawId.includes('/')) json(res, 404, { error: 'not found' })
        else await token(req, res, rawId, req.url as string)
      }
    } catch {
      if (!res.headersSent) json(res, 500, { error: 'error: could not mint a token' })
      else res.destroy()
    }
    return true
  }
}

function cors(): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Authorization',
    'Access-Control-Allow-Methods': 'GET, OPTIONS',
  }
}

function json(res: ServerResponse, status: number, body: unknown, extra?: Record<string, string>): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...cors(), ...extra })
  res.end(JSON.stringify(body))
}
