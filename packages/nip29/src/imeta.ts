import type { NostrEvent } from 'nostr-tools'
import { InvalidArgumentError } from './errors'
import { isHex64 } from './hex'

/**
 * The media fields of a NIP-92 `imeta` tag that this package reads and writes.
 * @example { url, m: 'image/png', x: sha256, size: 1234, dim: { width: 640, height: 480 } }
 */
export interface ImetaFields {
  /** http(s) URL of the file, also present in the event's content. */
  url: string
  /** MIME type, lowercase (`type/subtype`). */
  m?: string
  /** SHA-256 of the file, 64 lowercase hex (the Blossom hash). */
  x?: string
  /** Size in bytes. */
  size?: number
  /** Pixel dimensions (`dim WxH`). */
  dim?: {
    /** Width in pixels. */
    width: number
    /** Height in pixels. */
    height: number
  }
  /** A BlurHash placeholder. */
  blurhash?: string
  /** Accessibility description. */
  alt?: string
}

/** Largest width or height accepted (a 1-gigapixel side is already absurd). */
const MAX_SIDE = 65_535
const MAX_ALT = 4_096
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/
const BLURHASH = /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,128}$/
const DIM = /^([1-9]\d{0,5})x([1-9]\d{0,5})$/

function httpUrl(value: string): boolean {
  try {
    const u = new URL(value)
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== ''
  } catch {
    return false
  }
}

/** The valid value of each field, or `undefined`. */
const valid = {
  url: (v: string) => (v.length <= 8192 && httpUrl(v) ? v : undefined),
  m: (v: string) => {
    const m = v.trim().toLowerCase()
    return MIME.test(m) ? m : undefined
  },
  x: (v: string) => (isHex64(v) ? v : undefined),
  size: (v: string) => {
    if (!/^\d{1,16}$/.test(v)) return undefined
    const n = Number(v)
    return Number.isSafeInteger(n) ? n : undefined
  },
  dim: (v: string) => {
    const m = DIM.exec(v)
    if (m === null) return undefined
    const width = Number(m[1])
    const height = Number(m[2])
    return width <= MAX_SIDE && height <= MAX_SIDE ? { width, height } : undefined
  },
  blurhash: (v: string) => (BLURHASH.test(v) ? v : undefined),
  alt: (v: string) => (v.length <= MAX_ALT ? v : undefined),
}

/**
 * Builds a NIP-92 `imeta` tag: `["imeta", "url …", "m …", "x …", "size …", "dim WxH", "blurhash …",
 * "alt …"]`, fields in that order, absent ones left out. Put the same URL in the content.
 *
 * @throws {InvalidArgumentError} naming the first invalid field (a non-http(s) URL, a MIME type
 * that is not `type/subtype`, a hash that is not 64 hex, a negative or fractional size, zero or
 * huge dimensions, a blurhash with foreign characters, an alt text over 4,096 characters).
 * @example
 * const tag = buildImeta({ url, m: 'image/png', x: sha256, size: 1234, dim: { width: 640, height: 480 } })
 * id.message(`look ${url}`) // then push `tag` onto the template's tags
 */
export function buildImeta(fields: ImetaFields): string[] {
  if (typeof fields !== 'object' || fields === null)
    throw new InvalidArgumentError('imeta', 'fields are required')
  const bad = (name: string, what: string): never => {
    throw new InvalidArgumentError(name, `imeta ${name} must be ${what}`)
  }
  if (typeof fields.url !== 'string' || valid.url(fields.url) === undefined) bad('url', 'an http(s) URL')
  const tag = ['imeta', `url ${fields.url}`]
  if (fields.m !== undefined) {
    const m = typeof fields.m === 'string' ? valid.m(fields.m) : undefined
    tag.push(`m ${m ?? bad('m', 'a MIME type such as image/png')}`)
  }
  if (fields.x !== undefined) tag.push(`x ${valid.x(fields.x) ?? bad('x', '64 lowercase hex')}`)
  if (fields.size !== undefined) {
    if (!Number.isSafeInteger(fields.size) || fields.size < 0) bad('size', 'a non-negative integer')
    tag.push(`size ${fields.size}`)
  }
  if (fields.dim !== undefined) {
    const { width, height } = fields.dim ?? {}
    const ok = [width, height].every(
      (n) => Number.isInteger(n) && (n as number) > 0 && (n as number) <= MAX_SIDE,
    )
    if (!ok) bad('dim', `positive integers up to ${MAX_SIDE}`)
    tag.push(`dim ${width}x${height}`)
  }
  if (fields.blurhash !== undefined) {
    const b = typeof fields.blurhash === 'string' ? valid.blurhash(fields.blurhash) : undefined
    tag.push(`blurhash ${b ?? bad('blurhash', 'a BlurHash string')}`)
  }
  if (fields.alt !== undefined) {
    if (typeof fields.alt !== 'string' || valid.alt(fields.alt) === undefined)
      bad('alt', 'a string up to 4096 characters')
    tag.push(`alt ${fields.alt}`)
  }
  return tag
}

/**
 * Reads one `imeta` tag. Each entry is `"<key> <value>"`; the first of a key counts. A tag without
 * a valid http(s) `url` gives `undefined`; any other invalid field is dropped, never trusted
 * (so a hostile `dim` cannot size an image absurdly). Unknown keys are ignored.
 *
 * @example parseImeta(['imeta', 'url https://cdn.example/a.png', 'dim 640x480'])?.dim // { width: 640, height: 480 }
 */
export function parseImeta(tag: readonly unknown[]): ImetaFields | undefined {
  if (!Array.isArray(tag) || tag[0] !== 'imeta') return undefined
  const seen = new Map<string, string>()
  for (const entry of tag.slice(1)) {
    if (typeof entry !== 'string') continue
    const space = entry.indexOf(' ')
    if (space <= 0) continue
    const key = entry.slice(0, space)
    if (!seen.has(key)) seen.set(key, entry.slice(space + 1))
  }
  const rawUrl = seen.get('url')
  const url = rawUrl === undefined ? undefined : valid.url(rawUrl)
  if (url === undefined) return undefined
  const out: ImetaFields = { url }
  const m = seen.has('m') ? valid.m(seen.get('m') as string) : undefined
  if (m !== undefined) out.m = m
  const x = seen.has('x') ? valid.x(seen.get('x') as string) : undefined
  if (x !== undefined) out.x = x
  const size = seen.has('size') ? valid.size(seen.get('size') as string) : undefined
  if (size !== undefined) out.size = size
  const dim = seen.has('dim') ? valid.dim(seen.get('dim') as string) : undefined
  if (dim !== undefined) out.dim = dim
  const blurhash = seen.has('blurhash') ? valid.blurhash(seen.get('blurhash') as string) : undefined
  if (blurhash !== undefined) out.blurhash = blurhash
  const alt = seen.has('alt') ? valid.alt(seen.get('alt') as string) : undefined
  if (alt !== undefined) out.alt = alt
  return out
}

/**
 * Every usable `imeta` of an event, in tag order, one per URL (the first wins).
 * @example const media = imetaOf(message); const byUrl = new Map(media.map((m) => [m.url, m]))
 */
export function imetaOf(event: Pick<NostrEvent, 'tags'>): ImetaFields[] {
  if (typeof event !== 'object' || event === null || !Array.isArray(event.tags)) return []
  const out: ImetaFields[] = []
  for (const tag of event.tags) {
    const meta = parseImeta(tag)
    if (meta !== undefined && !out.some((m) => m.url === meta.url)) out.push(meta)
  }
  return out
}
