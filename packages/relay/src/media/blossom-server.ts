import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  AuthorizationError,
  authorizesBlob,
  type BlobDescriptor,
  checkBlossomAuth,
  decodeAuthHeader,
  isHex64,
  type VerifyEvent,
} from '@roost/nip29'
import { type BlobRecord, BlobStore, BlobTooLargeError } from './blob-store'
import {
  blobHeaders,
  byteRange,
  corsHeaders,
  destRefusal,
  extensionFor,
  typeForExtension,
  uploadType,
} from './blob-types'
import { drainOrDrop, header, overQuota, refuse } from './http-answers'
import type { UploadQuotas } from './upload-quota'

/** Options of {@link createBlossomHandler}. @example { dir: join(dataDir, 'blobs'), mayUpload } */
export interface BlossomOptions {
  /** Directory the blobs are stored under (created on first upload). */
  dir: string
  /** Largest accepted blob, in bytes (default 20 MiB). */
  maxBytes?: number
  /**
   * Whether `pubkey` may upload: `true`, or the reason it may not (sent with 403). The relay
   * passes its `--upload-policy` (`uploadGate`).
   */
  mayUpload: (pubkey: string) => true | string | Promise<true | string>
  /**
   * The server's public base URL (`https://relay.example`), used for descriptor URLs and, through
   * its host, for BUD-11 `server` tags. Without it, descriptor URLs use the request's Host header
   * and authorizations limited to a server are refused.
   */
  publicUrl?: string
  /** Daily upload quotas per key and in total; without them, no quota (the relay passes its own). */
  quotas?: UploadQuotas
  /** Unix seconds; injectable for tests. */
  clock?: () => number
  /** Signature check (defaults to nostr-tools). */
  verify?: VerifyEvent
}

/** Handles a request when it is the handler's; `false` leaves it to the next handler. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>

/** 20 MiB. */
export const DEFAULT_MAX_BLOB_BYTES = 20 * 1024 * 1024

const BLOB_PATH = /^\/([0-9a-f]{64})(\.[a-z0-9]{1,10})?$/
const LIST_PATH = /^\/list\/([0-9a-f]{64})$/

/**
 * A Blossom server (BUD-01 retrieval, BUD-02 upload) as one HTTP handler for the relay's port:
 *
 * - `PUT /upload` with `Authorization: Nostr <kind 24242, t=upload, x=sha256, expiration>` from a
 *   key `mayUpload` accepts; the body is stored by its SHA-256 (which the authorization must name)
 *   up to `maxBytes`; answers the BUD-02 blob descriptor. `HEAD /upload` runs the same checks on
 *   `X-SHA-256` / `X-Content-Length` / `X-Content-Type` first (BUD-06).
 * - `DELETE /<sha256>` with a `t=delete` authorization naming it, by one of its uploaders: that
 *   uploader lets go; the blob is deleted once no uploader holds it (members or not).
 * - `GET /list/<pubkey>[?since&until]` with a `t=list` authorization by that key: its uploads'
 *   descriptors, newest first (only to the owner: a list tells which files someone shared).
 * - `GET` / `HEAD /<sha256>[.ext]`: the blob with its type (never a script or style type) and
 *   safety headers; one `Range` (206). A browser load as a script, worker or style is refused (403,
 *   from `Sec-Fetch-Dest`).
 * - `OPTIONS` on those paths: CORS preflight.
 *
 * Refusals carry a status (400, 401, 403, 404, 411, 413, 429 over a daily quota with `Retry-After`)
 * and an `X-Reason` header.
 *
 * @example
 * const blossom = createBlossomHandler({ dir: join(dataDir, 'blobs'), mayUpload: (pk) => staff.has(pk) || 'staff only' })
 * http.createServer(async (req, res) => { if (!(await blossom(req, res))) next(req, res) })
 */
export function createBlossomHandler(options: BlossomOptions): HttpHandler {
  const store = new BlobStore(options.dir)
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BLOB_BYTES
  const clock = options.clock ?? (() => Math.floor(Date.now() / 1000))
  const publicUrl = options.publicUrl?.replace(/\/+$/, '')
  const server = publicUrl === undefined ? undefined : new URL(publicUrl).host.toLowerCase()

  const baseUrl = (req: IncomingMessage): string => publicUrl ?? `http://${req.headers.host ?? 'localhost'}`

  const descriptor = (req: IncomingMessage, record: BlobRecord): BlobDescriptor => ({
    url: `${baseUrl(req)}/${record.sha256}${extensionFor(record.type)}`,
    sha256: record.sha256,
    size: record.size,
    type: record.type,
    uploaded: record.uploaded,
  })

  /** Checks the authorization and membership; answers and returns undefined on refusal. */
  async function authorize(
    req: IncomingMessage,
    res: ServerResponse,
    sha256: string | undefined,
    verb: 'upload' | 'delete' | 'list' = 'upload',
  ) {
    let event: ReturnType<typeof decodeAuthHeader>
    try {
      event = decodeAuthHeader(req.headers.authorization)
    } catch (err) {
      refuse(res, 401, err instanceof AuthorizationError ? err.message : 'bad Authorization header')
      return undefined
    }
    const check = checkBlossomAuth(event, {
      verb,
      now: clock(),
      ...(sha256 === undefined ? {} : { sha256 }),
      ...(server === undefined ? {} : { server }),
      ...(options.verify === undefined ? {} : { verify: options.verify }),
    })
    if (!check.ok) {
      refuse(res, 401, check.reason)
      return undefined
    }
    if (verb === 'upload') {
      const allowed = await options.mayUpload(check.pubkey)
      if (allowed !== true) {
        refuse(res, 403, allowed)
        return undefined
      }
    }
    return event
  }

  /** Size checks from headers, before any body is read. */
  function sizeRefusal(declared: string | undefined, required: boolean): [number, string] | undefined {
    if (declared === undefined) return required ? [411, 'Content-Length required'] : undefined
    if (!/^\d{1,16}$/.test(declared)) return [400, 'bad Content-Length']
    if (Number(declared) > maxBytes) return [413, `blob larger than ${maxBytes} bytes`]
    return undefined
  }

  async function upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const claimed = header(req, 'x-sha-256')
    if (claimed !== undefined && !isHex64(claimed))
      return refuse(res, 400, 'X-SHA-256 must be 64 lowercase hex')
    const tooBig = sizeRefusal(header(req, 'content-length'), false)
    if (tooBig !== undefined) return refuse(res, ...tooBig, true)
    const event = await authorize(req, res, claimed)
    if (event === undefined) return drainOrDrop(req)
    const declared = header(req, 'content-length')
    const size = declared === undefined ? undefined : Number(declared)
    const taken = options.quotas?.take(event.pubkey, size)
    if (taken !== undefined && 'reason' in taken) {
      overQuota(res, taken)
      return drainOrDrop(req)
    }
    const ticket = taken?.ticket
    const limit = Math.min(maxBytes, ticket?.limit ?? maxBytes)
    let received: Awaited<ReturnType<BlobStore['receive']>>
    try {
      received = await store.receive(req, limit)
    } catch (err) {
      ticket?.release()
      // An undeclared body that outgrew what the quotas left is over quota, not too large.
      const quota = limit < maxBytes ? options.quotas?.check(event.pubkey, limit + 1) : undefined
      if (err instanceof BlobTooLargeError && quota !== undefined) return overQuota(res, quota, true)
      if (err instanceof BlobTooLargeError)
        return refuse(res, 413, `blob larger than ${maxBytes} bytes`, true)
      return refuse(res, 400, 'upload interrupted', true)
    }
    // A body received in full counts, stored or not.
    ticket?.settle(received.size)
    if (claimed !== undefined && received.sha256 !== claimed) {
      await received.discard()
      return refuse(res, 400, 'the body does not match X-SHA-256')
    }
    if (!authorizesBlob(event, received.sha256)) {
      await received.discard()
      return refuse(res, 403, 'authorization does not name this blob')
    }
    const record = await received.commit(uploadType(req.headers['content-type']), clock(), event.pubkey)
    res.writeHead(200, { 'Content-Type': 'application/json', ...corsHeaders() })
    res.end(JSON.stringify(descriptor(req, record)))
  }

  async function uploadPreflight(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sha256 = header(req, 'x-sha-256')
    if (sha256 === undefined || !isHex64(sha256))
      return refuse(res, 400, 'X-SHA-256 must be 64 lowercase hex')
    const declared = header(req, 'x-content-length')
    const tooBig = sizeRefusal(declared, true)
    if (tooBig !== undefined) return refuse(res, ...tooBig)
    const event = await authorize(req, res, sha256)
    if (event === undefined) return
    const quota = options.quotas?.check(event.pubkey, Number(declared))
    if (quota !== undefined) return overQuota(res, quota)
    res.writeHead(200, corsHeaders())
    res.end()
  }

  async function remove(req: IncomingMessage, res: ServerResponse, sha256: string): Promise<void> {
    const event = await authorize(req, res, sha256, 'delete')
    if (event === undefined) return
    const result = await store.remove(sha256, event.pubkey)
    if (result === 'not-found') return refuse(res, 404, 'blob not found')
    if (result === 'not-owner') return refuse(res, 403, 'only its uploaders can delete a blob')
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', ...corsHeaders() })
    res.end(result)
  }

  async function list(req: IncomingMessage, res: ServerResponse, pubkey: string): Promise<void> {
    const event = await authorize(req, res, undefined, 'list')
    if (event === undefined) return
    if (event.pubkey !== pubkey) return refuse(res, 403, 'a list is only shown to its owner')
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '')
    const bound = (name: string): number | undefined => {
      const v = query.get(name)
      return v !== null && /^\d{1,15}$/.test(v) ? Number(v) : undefined
    }
    const since = bound('since')
    const until = bound('until')
    const records = await store.list(pubkey, {
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
    })
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...corsHeaders() })
    res.end(JSON.stringify(records.map((r) => descriptor(req, r))))
  }

  async function retrieve(
    req: IncomingMessage,
    res: ServerResponse,
    sha256: string,
    ext: string | undefined,
  ) {
    const refusal = destRefusal(req.headers['sec-fetch-dest'])
    if (refusal !== undefined) return refuse(res, 403, refusal)
    const record = await store.get(sha256)
    if (record === undefined) return refuse(res, 404, 'blob not found')
    const byExt = ext === undefined ? undefined : typeForExtension(ext)
    const type = record.type === 'application/octet-stream' && byExt !== undefined ? byExt : record.type
    const range = byteRange(header(req, 'range'), record.size)
    if (range === 'unsatisfiable') {
      res.writeHead(416, { ...blobHeaders(type, sha256), 'Content-Range': `bytes */${record.size}` })
      return void res.end()
    }
    if (range === undefined)
      res.writeHead(200, { ...blobHeaders(type, sha256), 'Content-Length': String(record.size) })
    else {
      res.writeHead(206, {
        ...blobHeaders(type, sha256),
        'Content-Length': String(range.end - range.start + 1),
        'Content-Range': `bytes ${range.start}-${range.end}/${record.size}`,
      })
    }
    if (req.method === 'HEAD') return void res.end()
    const stream = store.open(sha256, range)
    stream.on('error', () => res.destroy())
    stream.pipe(res)
  }

  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string
    const blob = BLOB_PATH.exec(path)
    const listed = LIST_PATH.exec(path)
    if (path !== '/upload' && blob === null && listed === null) return false
    try {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, corsHeaders())
        res.end()
      } else if (path === '/upload' && req.method === 'PUT') await upload(req, res)
      else if (path === '/upload' && req.method === 'HEAD') await uploadPreflight(req, res)
      else if (blob !== null && (req.method === 'GET' || req.method === 'HEAD'))
        await retrieve(req, res, blob[1] as string, blob[2])
      else if (listed !== null && req.method === 'GET') await list(req, res, listed[1] as string)
      else if (blob !== null && blob[2] === undefined && req.method === 'DELETE')
        await remove(req, res, blob[1] as string)
      else refuse(res, 405, 'method not allowed')
    } catch {
      if (!res.headersSent) refuse(res, 500, 'internal error', true)
      else res.destroy()
    }
    return true
  }
}
