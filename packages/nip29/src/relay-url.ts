import { InvalidRelayUrlError } from './errors'

/**
 * Normalizes a relay URL so that two spellings of one relay compare equal: the form every
 * {@link GroupKey} and group list entry uses.
 *
 * Rules (decided here, since NIP-01 leaves them open):
 * - `ws://` and `wss://` only. A scheme-less `host[:port][/path]` means `wss://` (the legacy group
 *   code `host'id` is written that way). `http(s)://` and every other scheme are rejected, rather
 *   than silently mapped, because a web URL is not a relay URL.
 * - Lowercase scheme and host (IDN hosts become punycode), default ports dropped (80 for ws,
 *   443 for wss), trailing slashes dropped, the path kept as written, the query kept, the
 *   `#fragment` dropped.
 * - Rejected: empty input, whitespace, user info (`user:pass@`), and the `'` character, which
 *   separates the relay from the id in a group code.
 *
 * @throws {InvalidRelayUrlError} when the input is not a usable relay URL.
 * @example
 * normalizeRelayUrl('WSS://Groups.Example.com:443/') // 'wss://groups.example.com'
 * normalizeRelayUrl('groups.example.com')            // 'wss://groups.example.com'
 * normalizeRelayUrl('ws://127.0.0.1:7777/nip29/')    // 'ws://127.0.0.1:7777/nip29'
 */
export function normalizeRelayUrl(url: string): string {
  if (typeof url !== 'string') throw new InvalidRelayUrlError(url, 'a relay URL must be a string')
  const input = url.trim()
  if (input === '') throw new InvalidRelayUrlError(url, 'the relay URL is empty')
  if (/\s/.test(input)) throw new InvalidRelayUrlError(url, `the relay URL "${input}" contains whitespace`)
  if (input.includes("'")) throw new InvalidRelayUrlError(url, `the relay URL "${input}" contains "'"`)
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `wss://${input}`
  let parsed: URL
  try {
    parsed = new URL(withScheme)
  } catch (cause) {
    throw new InvalidRelayUrlError(url, `"${input}" is not a URL`, { cause })
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new InvalidRelayUrlError(
      url,
      `a relay URL must start with ws:// or wss://, not ${parsed.protocol}//`,
    )
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new InvalidRelayUrlError(url, 'a relay URL must not carry a user name or password')
  }
  // ws and wss are WHATWG "special" schemes: the parser has already refused an empty host,
  // lowercased the host and dropped the scheme's default port.
  const path = parsed.pathname.replace(/\/+$/, '')
  return `${parsed.protocol}//${parsed.host}${path}${parsed.search}`
}

/**
 * Like {@link normalizeRelayUrl}, but returns `undefined` instead of throwing.
 *
 * @example
 * tryNormalizeRelayUrl('not a url') // undefined
 */
export function tryNormalizeRelayUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined
  try {
    return normalizeRelayUrl(url)
  } catch {
    return undefined
  }
}

/**
 * A memo of {@link normalizeRelayUrl} held by its caller: the same answers and the same errors,
 * with the answers for valid inputs remembered, up to `limit` of them (then it starts over). A
 * client normalizes the same few relays for every group key, list entry and route; one cache per
 * registry or pool saves parsing a URL each time, and leaves this package without state of its own.
 *
 * @example
 * const urls = new RelayUrlCache()
 * urls.normalize('WSS://Groups.Example.com:443/') // 'wss://groups.example.com', parsed once
 * urls.tryNormalize('not a url') // undefined
 */
export class RelayUrlCache {
  /** How many answers the cache remembers; when full it starts over. */
  readonly limit: number
  readonly #known = new Map<string, string>()

  constructor(limit = 1_024) {
    this.limit = Number.isInteger(limit) && limit > 0 ? limit : 1_024
  }

  /** {@link normalizeRelayUrl}, remembered. @throws {InvalidRelayUrlError} as it does. */
  normalize(url: string): string {
    const known = this.#known.get(url)
    if (known !== undefined) return known
    const result = normalizeRelayUrl(url)
    if (this.#known.size >= this.limit) this.#known.clear()
    this.#known.set(url, result)
    return result
  }

  /** {@link tryNormalizeRelayUrl}, remembered. @example urls.tryNormalize(tag[2]) */
  tryNormalize(url: unknown): string | undefined {
    if (typeof url !== 'string') return undefined
    try {
      return this.normalize(url)
    } catch {
      return undefined
    }
  }

  /** How many answers are held. @example urls.size */
  get size(): number {
    return this.#known.size
  }
}
