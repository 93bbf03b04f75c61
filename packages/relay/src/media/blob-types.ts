/** MIME types a blob may be stored under: `type/subtype`, lowercase, no parameters. */
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/

/** The stored type for an upload's `Content-Type` header: its lowercase `type/subtype`, or octet-stream. */
export function uploadType(header: string | undefined): string {
  const type = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  return MIME.test(type) ? type : 'application/octet-stream'
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

/**
 * The headers every blob response carries: CORS for any origin (BUD-01), no sniffing, a
 * sandboxing CSP (a blob opened directly can run no script), attachment for types that could,
 * and immutable caching (the address is the content's hash).
 */
export function blobHeaders(type: string, sha256: string): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': type.startsWith('text/') ? `${type}; charset=utf-8` : type,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; media-src 'self'; img-src 'self'; sandbox",
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'public, max-age=31536000, immutable',
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
    'Access-Control-Expose-Headers': 'X-Reason, Content-Range, Content-Length',
    'Access-Control-Max-Age': '86400',
  }
}
