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
  // A client normalizes the same few relays over and over (every group key, list entry and
  // routed event): the answers for valid inputs are remembered, up to a bound.
  const known = normalized.get(url)
  if (known !== undefined) return known
  const result = normalize(url)
  if (normalized.size >= MEMO_LIMIT) normalized.clear()
  normalized.set(url, result)
  return result
}

const MEMO_LIMIT = 1_024
const normalized = new Map<string, string>()

function normalize(url: string): string {
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
