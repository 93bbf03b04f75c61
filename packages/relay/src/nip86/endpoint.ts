// NIP-86 over HTTP: JSON-RPC-like calls on the relay's own URL, authorized with NIP-98.
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { AuthorizationError, checkHttpAuth, decodeAuthHeader, type VerifyEvent } from '@roost/nip29'
import { callMethod, type Nip86Context, Nip86Error } from './methods'

/** The Content-Type NIP-86 calls carry. */
export const NIP86_CONTENT_TYPE = 'application/nostr+json+rpc'
/** Largest request body, bytes. */
const MAX_BODY = 64 * 1024
/** NIP-98's window around now for `created_at`, seconds. */
const WINDOW_S = 60

/** Options of {@link createNip86Handler}. */
export interface Nip86Options extends Nip86Context {
  /** The relay's public URLs (`wss://relay.example`); a NIP-98 `u` tag names one, as ws(s) or http(s). */
  publicUrls(): readonly string[]
  /** The operators' keys (`--admin`): only they may call. */
  admins: ReadonlySet<string>
  /** Unix seconds. */
  now(): number
  verify: VerifyEvent
  /** Told of each call an operator made (method and outcome), for the log. */
  log?(line: string): void
}

/** Methods that change nothing. */
const isRead = (method: unknown) =>
  typeof method === 'string' && (method === 'supportedmethods' || method.startsWith('list'))

/** Handles a request when it is the handler's; `false` leaves it to the next handler. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>

/** The forms a NIP-98 `u` tag may take for a public URL: as written, and as http(s). */
function urlForms(url: string): string[] {
  const u = new URL(url)
  const http = new URL(url)
  http.protocol = u.protocol === 'wss:' ? 'https:' : 'http:'
  return [u.href, http.href]
}

function reply(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Access-Control-Allow-Origin': '*',
    ...extra,
  })
  res.end(JSON.stringify(body))
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > MAX_BODY) throw new BodyTooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY) throw new BodyTooLarge()
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/**
 * The NIP-86 endpoint: a `POST` with `Content-Type: application/nostr+json+rpc` to the relay's
 * URL, `{ method, params }` in the body, and `Authorization: Nostr <kind 27235>` (NIP-98 with its
 * `payload` tag required: the SHA-256 of the body; `u` one of the public URLs; `method` POST;
 * `created_at` within 60 s; each event accepted once for a change) from an operator's key.
 *
 * Answers `200 { result }`, `400 { error }` for a malformed call or one the relay refuses, `401`
 * for a missing, invalid or replayed authorization, `403` for a key that is not an operator's,
 * `413` past 64 KiB. Browsers get the CORS preflight for `POST` with `Authorization`.
 *
 * @example
 * const nip86 = createNip86Handler({ store, bans, isExempt, publicUrls: () => urls, admins, now, verify })
 * http.createServer(async (req, res) => { if (!(await nip86(req, res))) next(req, res) })
 */
export function createNip86Handler(opts: Nip86Options): HttpHandler {
  /** NIP-98 events already used, until they fall out of the window: a captured header cannot be replayed. */
  const used = new Map<string, number>()
  const firstUse = (id: string, now: number): boolean => {
    for (const [seen, until] of used) if (until < now) used.delete(seen)
    if (used.has(id)) return false
    used.set(id, now + 2 * WINDOW_S)
    return true
  }
  const unauthorized = (res: ServerResponse, why: string) =>
    reply(res, 401, { error: `auth-required: ${why}` }, { 'WWW-Authenticate': 'Nostr' })

  async function call(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: Buffer
    try {
      body = await readBody(req)
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        res.setHeader('Connection', 'close')
        return reply(res, 413, { error: `invalid: the request is larger than ${MAX_BODY} bytes` })
      }
      throw err
    }
    let event: ReturnType<typeof decodeAuthHeader>
    try {
      event = decodeAuthHeader(req.headers.authorization)
    } catch (err) {
      return unauthorized(res, err instanceof AuthorizationError ? err.message : 'bad Authorization header')
    }
    const now = opts.now()
    const check = checkHttpAuth(event, {
      url: opts.publicUrls().flatMap(urlForms),
      method: 'POST',
      now,
      windowSeconds: WINDOW_S,
      payload: createHash('sha256').update(body).digest('hex'),
      verify: opts.verify,
    })
    if (!check.ok) return unauthorized(res, check.reason)
    if (!opts.admins.has(check.pubkey))
      return reply(res, 403, { error: 'restricted: only the relay operators may manage it' })
    let request: { method?: unknown; params?: unknown }
    try {
      request = JSON.parse(body.toString('utf8'))
    } catch {
      return reply(res, 400, { error: 'invalid: the body is not JSON' })
    }
    if (typeof request !== 'object' || request === null)
      return reply(res, 400, { error: 'invalid: the body must be { method, params }' })
    const params = request.params === undefined ? [] : request.params
    if (!Array.isArray(params)) return reply(res, 400, { error: 'invalid: params must be an array' })
    // A change is made once per authorization, so a captured header cannot undo a later change (a
    // ban replayed after an unban). Reads may repeat: the same read in the same second signs the
    // same event.
    if (!isRead(request.method) && !firstUse(event.id, now))
      return unauthorized(res, 'this authorization was already used')
    try {
      const result = await callMethod(opts, request.method, params)
      opts.log?.(`nip86 ${check.pubkey} ${String(request.method)} ok`)
      reply(res, 200, { result })
    } catch (err) {
      if (!(err instanceof Nip86Error)) throw err
      opts.log?.(`nip86 ${check.pubkey} ${String(request.method).slice(0, 64)} refused: ${err.message}`)
      reply(res, 400, { error: err.message })
    }
  }

  return async (req, res) => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
    const preflight =
      req.method === 'OPTIONS' &&
      String(req.headers['access-control-request-method']).toUpperCase() === 'POST'
    if (type !== NIP86_CONTENT_TYPE && !preflight) return false
    if (preflight) {
      res.writeHead(204, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type',
        'Access-Control-Max-Age': '600',
      })
      res.end()
      return true
    }
    if (req.method !== 'POST') {
      reply(res, 405, { error: 'invalid: NIP-86 calls are POSTed' }, { Allow: 'POST' })
      return true
    }
    try {
      await call(req, res)
    } catch (err) {
      opts.log?.(`error nip86 ${(err as Error).stack ?? err}`)
      if (!res.headersSent) reply(res, 500, { error: 'error: the call failed' })
      else res.destroy()
    }
    return true
  }
}
