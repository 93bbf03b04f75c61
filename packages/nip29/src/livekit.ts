import { InvalidArgumentError } from './errors'
import { GroupId } from './group-id'
import { normalizeRelayUrl } from './relay-url'

/** The LiveKit discovery path of a NIP-29 relay (answers 204 when it offers audio/video). */
export const LIVEKIT_PATH = '/.well-known/nip29/livekit'

/**
 * The relay's HTTP origin for a relay URL: `wss://` → `https://`, `ws://` → `http://`, path kept.
 * @example relayHttpUrl('wss://groups.example.com') // 'https://groups.example.com'
 */
export function relayHttpUrl(relay: string): string {
  const normalized = normalizeRelayUrl(relay)
  return normalized.replace(/^ws(s?):\/\//, 'http$1://').replace(/\/+$/, '')
}

/**
 * The NIP-29 LiveKit token URL of a group on a relay: the `u` of the NIP-98 event and the URL to
 * GET (the id percent-encoded). Without an id, the discovery URL.
 * @example livekitTokenUrl('wss://groups.example.com', 'pizza night')
 * // 'https://groups.example.com/.well-known/nip29/livekit/pizza%20night'
 */
export function livekitTokenUrl(relay: string, groupId?: string | GroupId): string {
  const base = relayHttpUrl(relay) + LIVEKIT_PATH
  return groupId === undefined ? base : `${base}/${encodeURIComponent(GroupId.parse(groupId).value)}`
}

/** What the token endpoint answers: the LiveKit server URL and the access token. */
export interface LiveKitToken {
  /** The LiveKit server to connect to. */
  url: string
  /** The access token for the group's room. */
  token: string
}

/**
 * Checks a token endpoint's JSON answer: `url` a `ws(s)://` URL, `token` a JWT (three base64url
 * parts). A client passes both to `livekit-client`'s `room.connect(url, token)`.
 * @throws {InvalidArgumentError} (argument `livekit`) naming the bad field.
 * @example const { url, token } = parseLiveKitToken(await res.json())
 */
export function parseLiveKitToken(value: unknown): LiveKitToken {
  const bad = (field: string): never => {
    throw new InvalidArgumentError('livekit', `LiveKit token answer: bad or missing ${field}`)
  }
  if (typeof value !== 'object' || value === null) return bad('object')
  const v = value as Record<string, unknown>
  if (typeof v.url !== 'string') return bad('url')
  try {
    const u = new URL(v.url)
    if (u.protocol !== 'wss:' && u.protocol !== 'ws:' && u.protocol !== 'https:' && u.protocol !== 'http:')
      bad('url')
  } catch {
    bad('url')
  }
  if (typeof v.token !== 'string' || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(v.token))
    return bad('token')
  return { url: v.url, token: v.token }
}
