// Where browsers reach the relay's Blossom: an origin of its own, never the web client's.
import { RelayOptionError } from '../errors'

/** What decides the media origin: the operator's `mediaUrl`, else the relay's public URL, else the listen host. */
export interface MediaOriginSettings {
  /** `mediaUrl` as configured (already checked by {@link checkMediaUrl}). */
  mediaUrl?: string
  /** The relay's first public WebSocket URL (`--url`), when configured. */
  publicUrl?: string
  /** The interface the relay listens on, as it appears in its own URL (`127.0.0.1`, `[::1]`). */
  listenHost: string
  /** The port Blossom listens on. */
  port: number
  /** Blossom serves HTTPS itself (`tls`): `https://` when nothing else decides. */
  tls?: boolean
}

/** A host name as a Host header may carry it (letters, digits, dots, dashes; an IPv6 literal in brackets). */
const HOSTNAME = /^(?:[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})*\.?|\[[0-9a-f:.]{2,45}\])$/i

/**
 * The origin blobs are served from, for one request to the relay (its Host header matters only when
 * nothing is configured: a relay on `0.0.0.0` reached as `192.168.1.5:7777` serves media on
 * `192.168.1.5:<media port>`). A Host header that is not a plain host name is ignored.
 *
 * @example
 * mediaOrigin({ listenHost: '127.0.0.1', port: 7778 }, 'localhost:7777') // 'http://localhost:7778'
 * mediaOrigin({ mediaUrl: 'https://media.example', listenHost: '0.0.0.0', port: 7778 }) // 'https://media.example'
 */
export function mediaOrigin(settings: MediaOriginSettings, hostHeader?: string): string {
  if (settings.mediaUrl !== undefined) return new URL(settings.mediaUrl).origin
  if (settings.publicUrl !== undefined) {
    const u = new URL(settings.publicUrl)
    return `${u.protocol === 'wss:' ? 'https' : 'http'}://${u.hostname}:${settings.port}`
  }
  const scheme = settings.tls ? 'https' : 'http'
  return `${scheme}://${requestHost(hostHeader) ?? settings.listenHost}:${settings.port}`
}

/** The host name of a Host header (without its port), or `undefined` when it is not a plain one. */
function requestHost(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const host = header.trim().replace(/:\d{1,5}$/, '')
  return HOSTNAME.test(host) ? host.toLowerCase() : undefined
}

/**
 * Throws {@link RelayOptionError} unless `mediaUrl` is absent or an http(s) origin: a scheme, a
 * host, an optional port and nothing else (Blossom serves blobs at the root, `/<sha256>`).
 *
 * @example
 * checkMediaUrl('https://media.example') // ok
 * checkMediaUrl('https://relay.example/media') // throws
 */
export function checkMediaUrl(mediaUrl: string | undefined): void {
  if (mediaUrl === undefined) return
  let u: URL
  try {
    u = new URL(mediaUrl)
  } catch {
    throw new RelayOptionError(`mediaUrl '${mediaUrl}' is not a URL`)
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw new RelayOptionError('mediaUrl must be an http:// or https:// URL')
  if (u.username || u.password || u.search || u.hash || (u.pathname !== '/' && u.pathname !== ''))
    throw new RelayOptionError(
      'mediaUrl must be an origin only (scheme, host, port): blobs are served at its root',
    )
}
