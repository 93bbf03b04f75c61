/**
 * Which images load without a click. An image load tells its host who is reading (IP, time,
 * which message), so only the user's own Blossom servers (the one set in Settings, each relay's
 * media origin as its NIP-11 names it, and each relay's own origin) and this page's origin are
 * trusted; other hosts wait for a click unless the user allowed all.
 */
import { blossomServerFor } from '@roost/client'

/**
 * The origins images load from automatically.
 *
 * @example
 * trustedOrigins(undefined, ['ws://127.0.0.1:7777'], ['http://127.0.0.1:7778']).has('http://127.0.0.1:7778') // true
 */
export function trustedOrigins(
  blossomServer: string | undefined,
  relays: readonly string[],
  mediaServers: readonly string[] = [],
): Set<string> {
  const out = new Set<string>()
  const add = (url: string | undefined) => {
    if (!url) return
    try {
      out.add(new URL(url).origin)
    } catch {
      // not a URL: trusts nothing
    }
  }
  add(blossomServer)
  for (const m of mediaServers) add(m)
  for (const r of relays) {
    try {
      add(blossomServerFor(r))
    } catch {
      // not a relay URL
    }
  }
  if (typeof location !== 'undefined') add(location.origin)
  return out
}

/** The host name to show in "Load image from …", or the URL itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

/** Whether `url` may load without a click. */
export function mayAutoLoad(url: string, trusted: ReadonlySet<string>, loadAll: boolean): boolean {
  if (loadAll) return true
  try {
    return trusted.has(new URL(url).origin)
  } catch {
    return false
  }
}
