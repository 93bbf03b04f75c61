import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { refuseBanned } from '../bans'
import type { Engine } from '../engine'
import { RelayOptionError } from '../errors'
import { mediaGuard } from '../operator-http'
import { isPostgresUrl } from '../store/db-url'
import { corsHeaders, destRefusal } from './blob-types'
import { createBlossomHandler, DEFAULT_MAX_BLOB_BYTES, type HttpHandler } from './blossom-server'
import { mediaOrigin } from './media-origin'
import { uploadGate } from './upload-gate'
import { DEFAULT_UPLOAD_POLICY } from './upload-policy'
import { settleUploadQuota, UploadQuotas } from './upload-quota'

/** The relay's Blossom: its own listening server, where blobs live, its cap, and how to stop it. */
export interface RelayMedia {
  /** The media origin as named without a request (`mediaUrl`, or the public or listen host on the media port). */
  readonly url: string
  readonly port: number
  readonly dir: string
  readonly maxBytes: number
  /** The media origin for a request to the relay (its Host header counts when nothing is configured). */
  origin(req?: IncomingMessage): string
  /**
   * For the relay's own port, which serves no blob: old blob URLs (`/<sha256>[.ext]`) redirect to
   * the media origin, Blossom calls are told where it is (404 with the origin in `X-Reason`).
   */
  onRelayPort: HttpHandler
  /** Stops the media server; removes the temporary directory a `:memory:` relay stored blobs in. */
  close(): Promise<void>
}

/**
 * Where the relay keeps blobs: `blobDir` when given, else `blobs/` beside a SQLite file; a
 * `:memory:` or PostgreSQL relay without `blobDir` uses a temporary directory removed on close.
 */
export function blobDirectory(db: string, blobDir: string | undefined): { dir: string; temporary: boolean } {
  if (blobDir !== undefined) return { dir: resolve(blobDir), temporary: false }
  if (db !== ':memory:' && db !== '' && !isPostgresUrl(db))
    return { dir: join(dirname(resolve(db)), 'blobs'), temporary: false }
  return { dir: mkdtempSync(join(tmpdir(), 'roost-blobs-')), temporary: true }
}

const BLOB_PATH = /^\/[0-9a-f]{64}(\.[a-z0-9]{1,10})?$/
const BLOSSOM_PATH = /^\/(upload|list\/[0-9a-f]{64})$/

/**
 * Starts Blossom on an origin of its own: its own port on the relay's `host` (`mediaPort`; by
 * default the relay's port + 1, or a free port), answering nothing but Blossom (no web client,
 * no NIP-11, no WebSocket). Uploads are for the keys `uploadPolicy` admits. Descriptor
 * URLs use `mediaUrl`, else the relay's first public URL's host on the media port, else the
 * upload request's Host.
 *
 * @example
 * const media = await startRelayMedia(engine, '127.0.0.1', '127.0.0.1')
 * media.url // 'http://127.0.0.1:7778'
 */
export async function startRelayMedia(engine: Engine, host: string, listenHost: string): Promise<RelayMedia> {
  const { opts } = engine
  const { dir, temporary } = blobDirectory(opts.db ?? ':memory:', opts.blobDir)
  const maxBytes = opts.maxUpload ?? DEFAULT_MAX_BLOB_BYTES
  let handler: HttpHandler = async (_req, res) => {
    res.writeHead(503, { 'Retry-After': '1' })
    res.end()
    return true
  }
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (mediaGuard(engine, req, res)) return
    handler(req, res).then(
      (handled) => {
        if (!handled) notBlossom(res)
      },
      () => res.destroy(),
    )
  }
  const server: Server = opts.tls ? createTlsServer(opts.tls, onRequest) : createServer(onRequest)
  let port: number
  try {
    port = await listenMedia(server, host, opts)
  } catch (err) {
    if (temporary) rmSync(dir, { recursive: true, force: true })
    throw err
  }
  if (opts.mediaPort === undefined && opts.port && port !== opts.port + 1)
    engine.ctx.log(`media: port ${opts.port + 1} is taken, Blossom listens on ${port}`)
  const settings = {
    ...(opts.mediaUrl !== undefined && { mediaUrl: opts.mediaUrl }),
    ...(opts.urls?.[0] !== undefined && { publicUrl: opts.urls[0] }),
    listenHost,
    port,
    tls: opts.tls !== undefined,
  }
  const configured = opts.mediaUrl !== undefined || opts.urls?.[0] !== undefined || opts.tls !== undefined
  handler = createBlossomHandler({
    dir,
    maxBytes,
    mayUpload: refuseBanned(engine.bans, uploadGate(engine, opts.uploadPolicy ?? DEFAULT_UPLOAD_POLICY)),
    quotas: new UploadQuotas(settleUploadQuota(opts.uploadQuota), () => engine.now()),
    clock: () => engine.now(),
    verify: engine.ctx.verify,
    ...(configured && { publicUrl: mediaOrigin(settings) }),
  })
  const origin = (req?: IncomingMessage) => mediaOrigin(settings, req?.headers.host)
  let closing: Promise<void> | undefined
  return {
    url: origin(),
    port,
    dir,
    maxBytes,
    origin,
    onRelayPort: relayPortHandler(origin),
    close: () => {
      closing ??= new Promise<void>((done) => {
        server.close(() => {
          if (temporary) rmSync(dir, { recursive: true, force: true })
          done()
        })
        server.closeAllConnections()
      })
      return closing
    },
  }
}

/** Listens on `mediaPort`, else the relay's port + 1 (a free port when that one is taken), else a free port. */
async function listenMedia(server: Server, host: string, opts: Engine['opts']): Promise<number> {
  const listen = (port: number) =>
    new Promise<number>((done, fail) => {
      server.once('error', fail)
      server.listen(port, host, () => {
        server.off('error', fail)
        done((server.address() as AddressInfo).port)
      })
    })
  if (opts.mediaPort !== undefined) return listen(opts.mediaPort)
  if (!opts.port || opts.port >= 65535) return listen(0)
  try {
    return await listen(opts.port + 1)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    return listen(0)
  }
}

/** What the media port answers for anything that is not Blossom. */
function notBlossom(res: ServerResponse): void {
  res.writeHead(404, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': 'cross-origin',
  })
  res.end('Roost media: blobs by SHA-256 (Blossom).\n')
}

/** The relay port's answers for blob and Blossom paths (see {@link RelayMedia.onRelayPort}). */
function relayPortHandler(origin: (req: IncomingMessage) => string): HttpHandler {
  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string
    const blob = BLOB_PATH.test(path)
    if (!blob && !BLOSSOM_PATH.test(path)) return false
    const where = origin(req)
    if (req.method === 'OPTIONS') {
      res.writeHead(204, corsHeaders())
      res.end()
      return true
    }
    const refusal = blob ? destRefusal(req.headers['sec-fetch-dest']) : undefined
    if (blob && refusal === undefined && (req.method === 'GET' || req.method === 'HEAD')) {
      // Links in older messages named the relay's port: they still work, from the media origin.
      res.writeHead(307, {
        Location: `${where}${path}`,
        'Cache-Control': 'public, max-age=3600',
        'X-Content-Type-Options': 'nosniff',
        ...corsHeaders(),
      })
      res.end()
      return true
    }
    const reason = refusal ?? `Blossom is served at ${where}`
    req.resume()
    res.writeHead(refusal === undefined ? 404 : 403, {
      'Content-Type': 'text/plain; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      'X-Reason': reason,
      ...corsHeaders(),
    })
    res.end(reason)
    return true
  }
}

/** Throws {@link RelayOptionError} unless `maxUpload` is absent or a positive safe integer. */
export function checkMaxUpload(maxUpload: number | undefined): void {
  if (maxUpload !== undefined && (!Number.isSafeInteger(maxUpload) || maxUpload < 1))
    throw new RelayOptionError('maxUpload must be a positive integer (bytes)')
}
