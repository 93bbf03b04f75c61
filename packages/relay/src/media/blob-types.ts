/** MIME types a blob may be stored under: `type/subtype`, lowercase, no parameters. */
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/

/**
 * The stored type for an upload's `Content-Type` header: its lowercase `type/subtype` made safe to
 * serve ({@link servedType}), or octet-stream.
 */
export function uploadType(header: string | undefined): string {
  const type = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  return MIME.test(type) ? servedType(type) : 'application/octet-stream'
}

/**
 * Types a browser would run as code when a page names the blob as a script, worker, module,
 * style sheet or XSLT (WHATWG's JavaScript MIME types and their kin, CSS, WebAssembly).
 */
const CODE =
  /^(text|application)\/(x-)?(java|ecma|j|live)script[0-9.]*$|^(text\/css|text\/xsl|application\/xslt\+xml|application\/wasm)$/

/**
 * The type a blob is served as: its own, except that code types are sent as `text/plain`, so no
 * browser runs a member's upload as a script, worker or style (with `nosniff`, a script or style
 * load of `text/plain` is refused). Applied when stored and again when served (older records).
 *
 * @example
 * servedType('application/javascript') // 'text/plain'
 * servedType('image/png') // 'image/png'
 */
export function servedType(type: string): string {
  return CODE.test(type) ? 'text/plain' : type
}

/**
 * `Sec-Fetch-Dest` values a blob is served to: fetches, images, audio, video, subtitles and a
 * page opened directly (sandboxed). Scripts, workers, styles, fonts, frames, objects, manifests
 * and anything newer are refused; a request without the header (not a browser) is served.
 */
const SERVED_DESTS = new Set(['empty', 'image', 'audio', 'video', 'track', 'document'])

/**
 * Why a request for a blob is refused because of what the page will do with it, or `undefined`.
 *
 * @example
 * destRefusal('script') // 'a blob is never served as script'
 * destRefusal('image') // undefined
 */
export function destRefusal(dest: string | string[] | undefined): string | undefined {
  if (dest === undefined) return undefined
  const value = (Array.isArray(dest) ? dest.join(',') : dest).trim().toLowerCase()
  if (SERVED_DESTS.has(value)) return undefined
  return `a blob is never served as ${/^[a-z-]{1,32}$/.test(value) ? value : 'that'}`
}

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/avif': '.avif',
  'image/svg+xml': '.svg',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'audio/mpeg': '.mp3',
  'audio/ogg': '.ogg',
  'audio/wav': '.wav',
  'application/pdf': '.pdf',
  'text/plain': '.txt',
}

/** The usual file extension for a type (with the dot), or `''`. */
export function extensionFor(type: string): string {
  return EXTENSIONS[type] ?? ''
}

/** The type for an extension (with the dot), or `undefined`. */
export function typeForExtension(ext: string): string | undefined {
  const lower = ext.toLowerCase()
  if (lower === '.jpeg') return 'image/jpeg'
  return Object.entries(EXTENSIONS).find(([, e]) => e === lower)?.[0]
}

/**
 * Types a browser may show inline from the blob host. Everything else (HTML, SVG, XML, scripts,
 * unknown types) is sent as an attachment: a blob can be anything a member uploads, and must not
 * run as a page on this origin.
 */
const INLINE =
  /^(image\/(png|jpeg|gif|webp|avif)|video\/(mp4|webm|ogg)|audio\/[a-z0-9.+-]+|text\/plain|application\/pdf)$/

/** A blob opened as a page runs nothing, loads nothing but itself, and cannot be framed. */
export const BLOB_CSP =
  "default-src 'none'; media-src 'self'; img-src 'self'; frame-ancestors 'none'; sandbox"

/**
 * The headers every blob response carries: CORS and `Cross-Origin-Resource-Policy` for any origin
 * (BUD-01: other clients embed blobs too), no sniffing, the type made safe by {@link servedType}, a
 * sandboxing CSP (a blob opened directly can run no script), attachment for types that could be a
 * page, and immutable caching (the address is the content's hash).
 */
export function blobHeaders(stored: string, sha256: string): Record<string, string> {
  const type = servedType(stored)
  const headers: Record<string, string> = {
    'Content-Type': type.startsWith('text/') ? `${type}; charset=utf-8` : type,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': BLOB_CSP,
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'public, max-age=31536000, immutable',
    // The answer depends on Sec-Fetch-Dest: a cached image is not reused for a script load.
    Vary: 'Sec-Fetch-Dest',
    ETag: `"${sha256}"`,
    'Accept-Ranges': 'bytes',
    ...corsHeaders(),
  }
  if (!INLINE.test(type))
    headers['Content-Disposition'] = `attachment; filename="${sha256}${extensionFor(type)}"`
  return headers
}

/**
 * The one byte range a `Range` header asks for, inclusive, within `size` bytes: `undefined` to
 * send the whole blob (no header, several ranges, another unit, or a malformed header),
 * `'unsatisfiable'` for a range outside the blob (416).
 */
export function byteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined
  const m = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim())
  if (m === null || (m[1] === '' && m[2] === '')) return undefined
  let start: number
  let end: number
  if (m[1] === '') {
    const suffix = Number(m[2])
    if (suffix === 0) return 'unsatisfiable'
    start = Math.max(0, size - suffix)
    end = size - 1
  } else {
    start = Number(m[1])
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
    if (Number(m[2] === '' ? start : m[2]) < start) return undefined
  }
  return start >= size || start > end ? 'unsatisfiable' : { start, end }
}

/** CORS for Blossom: any origin, the auth and upload headers, the Blossom methods. */
export function corsHeaders(): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers':
      'Authorization, Content-Type, Content-Length, X-SHA-256, X-Content-Type, X-Content-Length',
    'Access-Control-Allow-Methods': 'GET, HEAD, PUT, DELETE, OPTIONS',
    'Access-Control-Expose-Headers': 'X-Reason, Retry-After, Content-Range, Content-Length',
    'Access-Control-Max-Age': '86400',
  }
}
