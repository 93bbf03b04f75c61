/**
 * Links and images come from other people's events, so only absolute http(s) URLs are ever
 * turned into `href`/`src`; everything else (javascript:, data:, relative paths) stays text.
 *
 * @example safeHttpUrl('https://example.com/a.png') // 'https://example.com/a.png'
 * @example safeHttpUrl('javascript:alert(1)')       // undefined
 */
export function safeHttpUrl(raw: string | undefined | null): string | undefined {
  if (!raw) return undefined
  const trimmed = raw.trim()
  if (!/^https?:\/\//i.test(trimmed)) return undefined
  try {
    const url = new URL(trimmed)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    return url.href
  } catch {
    return undefined
  }
}

/** A piece of message content: plain text, or an http(s) link (an image when it looks like one). */
export type Token =
  | { type: 'text'; start: number; text: string }
  | { type: 'link'; start: number; href: string; text: string; image: boolean }

const URL_RE = /https?:\/\/[^\s<>"'`]+/gi
const TRAILING = /[.,;:!?)\]}]/
const IMAGE_RE = /\.(png|jpe?g|gif|webp|avif)(\?[^#]*)?(#.*)?$/i

/**
 * Splits message content into text and http(s) links. The caller renders every token as a
 * React text node or an `<a>`/`<img>` with the checked URL, so no content is parsed as HTML.
 *
 * At most `maxLinks` links: past them the rest is text, so a message of thousands of URLs costs
 * no more than one of `maxLinks`.
 *
 * @example tokenize('see https://x.org.') // [{text:'see '}, {link https://x.org/}, {text:'.'}]
 */
export function tokenize(content: string, maxLinks = Number.POSITIVE_INFINITY): Token[] {
  const out: Token[] = []
  let last = 0
  let links = 0
  for (const match of content.matchAll(URL_RE)) {
    if (links >= maxLinks) break
    let raw = match[0]
    // Trailing punctuation is text; trimmed by hand, since an unanchored `[…]+$` would retry
    // from each character of a long run (quadratic).
    let end = raw.length
    while (end > 0 && TRAILING.test(raw[end - 1] as string)) end--
    raw = raw.slice(0, end)
    const start = match.index ?? 0
    const href = safeHttpUrl(raw)
    if (!href) continue
    if (start > last) out.push({ type: 'text', start: last, text: content.slice(last, start) })
    out.push({ type: 'link', start, href, text: raw, image: IMAGE_RE.test(new URL(href).pathname) })
    links++
    last = start + raw.length
  }
  if (last < content.length) out.push({ type: 'text', start: last, text: content.slice(last) })
  return out
}
