import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, normalize, sep } from 'node:path'

/** A CSP source list entry: an http(s) origin and nothing that could end the directive. */
const ORIGIN = /^https?:\/\/[a-z0-9.[\]:-]+$/i

/**
 * The Content-Security-Policy sent with every static response: same-origin scripts (plus WebAssembly
 * for nostr-wasm), WebSocket connections to any relay, NIP-11 fetches and uploads to any server
 * (http(s): a `ws://` relay the user added serves its document over plain http), images and media
 * from https and from the relay's media origin, which is named for images and media only: uploads
 * are served there, from an origin of their own, so none can run as this page's script or worker.
 *
 * @example
 * contentSecurityPolicy('http://127.0.0.1:7778') // "…; img-src 'self' data: blob: https: http://127.0.0.1:7778; …"
 */
export function contentSecurityPolicy(mediaOrigin?: string): string {
  const media = mediaOrigin !== undefined && ORIGIN.test(mediaOrigin) ? ` ${mediaOrigin}` : ''
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: https:${media}`,
    `media-src 'self' blob: https:${media}`,
    "connect-src 'self' ws: wss: http: https:",
    "font-src 'self' data:",
    "object-src 'none'",
    "worker-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/**
 * {@link contentSecurityPolicy} without a media origin: what the relay sends when it is not told
 * where its media is (the relay itself always adds its own).
 *
 * @example
 * res.headers.get('content-security-policy')?.startsWith(CONTENT_SECURITY_POLICY.slice(0, 20))
 */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy()

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
}

/** Sent with every HTML answer: no powerful browser features, no shared browsing context with openers. */
export const HTML_HEADERS: Readonly<Record<string, string>> = {
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()',
  'Cross-Origin-Opener-Policy': 'same-origin',
}

/** The headers every HTTP answer of the relay carries, plus the HTML ones for `text/html`. */
export function safetyHeaders(type: string): Record<string, string> {
  return {
    'Content-Type': type,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    ...(type.startsWith('text/html') && HTML_HEADERS),
  }
}

function headers(type: string, csp: string, extra?: Record<string, string>): Record<string, string> {
  return { ...safetyHeaders(type), 'Content-Security-Policy': csp, ...extra }
}

/**
 * Maps a request path to a file path under `root`, or undefined when it would escape the root.
 * Pure, so traversal attempts can be tested exhaustively.
 *
 * @example
 * resolveStaticPath('/srv/www', '/../etc/passwd') // undefined… or a path still inside /srv/www
 */
export function resolveStaticPath(root: string, urlPath: string): string | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0]?.split('#')[0] ?? '/')
  } catch {
    return undefined
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined
  const rel = normalize(`/${decoded}`).replace(/^([/\\])+/, '')
  if (rel.split(/[/\\]/).includes('..')) return undefined
  const full = join(root, rel)
  if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined
  return full
}

/**
 * Serves `root` (GET and HEAD): files as they are, index.html for unknown paths without an
 * extension, each with the `csp` given (default {@link CONTENT_SECURITY_POLICY}).
 */
export async function serveStatic(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  csp: string = CONTENT_SECURITY_POLICY,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, headers('text/plain; charset=utf-8', csp, { Allow: 'GET, HEAD' }))
    res.end('method not allowed\n')
    return
  }
  const realRoot = await realpath(root)
  const target = resolveStaticPath(realRoot, req.url ?? '/')
  if (!target) {
    res.writeHead(400, headers('text/plain; charset=utf-8', csp))
    res.end('bad path\n')
    return
  }
  let file = await fileAt(realRoot, target)
  if (!file) {
    const last = (req.url ?? '/').split('?')[0]?.split('/').pop() ?? ''
    if (extname(last) === '') file = await fileAt(realRoot, join(realRoot, 'index.html'))
  }
  if (!file) {
    res.writeHead(404, headers('text/plain; charset=utf-8', csp))
    res.end('not found\n')
    return
  }
  const type = TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream'
  const cache = file.path.endsWith('index.html') ? 'no-cache' : 'public, max-age=3600'
  res.writeHead(200, headers(type, csp, { 'Content-Length': String(file.size), 'Cache-Control': cache }))
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  createReadStream(file.path).pipe(res)
}

async function fileAt(root: string, path: string): Promise<{ path: string; size: number } | undefined> {
  try {
    let real = await realpath(path)
    if (real !== root && !real.startsWith(root + sep)) return undefined
    let s = await stat(real)
    if (s.isDirectory()) {
      real = join(real, 'index.html')
      s = await stat(real)
    }
    return s.isFile() ? { path: real, size: s.size } : undefined
  } catch {
    return undefined
  }
}
