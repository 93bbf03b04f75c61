// The checks `startRelay` runs on its options before anything starts: limits, public URLs,
// operator keys and trusted proxies.
import { isIP } from 'node:net'
import { isHex64 } from '@roost/nip29'
import { nip19 } from 'nostr-tools'
import { plainIp } from './bans'
import { RelayOptionError } from './errors'
import { LIMITS, type RelayLimits } from './limits'

/** The defaults with the operator's overrides; each must be a positive integer. */
export function settleLimits(given: Partial<RelayLimits> | undefined): RelayLimits {
  const out: RelayLimits = { ...LIMITS }
  for (const [key, value] of Object.entries(given ?? {})) {
    if (!Object.hasOwn(LIMITS, key)) throw new RelayOptionError(`unknown limit '${key}'`)
    if (value === undefined) continue
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RelayOptionError(`limit '${key}' must be a positive integer`)
    out[key as keyof RelayLimits] = value
  }
  return out
}

/** A configured public URL, checked: ws: or wss:, no credentials. */
export function publicUrl(url: string): string {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new RelayOptionError(`url '${url}' is not a URL`)
  }
  if (u.protocol !== 'ws:' && u.protocol !== 'wss:')
    throw new RelayOptionError(`url '${url}' must start with ws:// or wss://`)
  return u.href
}

/**
 * A key as hex: 64 hex characters (any case) or an `npub1…`.
 *
 * @example
 * operatorKey('npub1…') // 'a1b2…'
 */
export function operatorKey(key: string): string | undefined {
  if (/^[0-9a-f]{64}$/i.test(key)) return key.toLowerCase()
  if (!key.startsWith('npub1')) return undefined
  try {
    const decoded = nip19.decode(key)
    return decoded.type === 'npub' && isHex64(decoded.data) ? decoded.data : undefined
  } catch {
    return undefined
  }
}

/** The operators' keys (hex or npub) and the trusted proxies' addresses, checked. */
export function settleOperators(
  admins: readonly string[] | undefined,
  proxies: readonly string[] | undefined,
): { admins: ReadonlySet<string>; proxies: ReadonlySet<string> } {
  const keys = new Set<string>()
  for (const a of admins ?? []) {
    const hex = operatorKey(a)
    if (!hex) throw new RelayOptionError(`admin '${a}' must be a public key (64 hex characters or npub1…)`)
    keys.add(hex)
  }
  const addresses = new Set<string>()
  for (const p of proxies ?? []) {
    if (isIP(p) === 0) throw new RelayOptionError(`trusted proxy '${p}' must be an IP address`)
    addresses.add(plainIp(p))
  }
  return { admins: keys, proxies: addresses }
}
