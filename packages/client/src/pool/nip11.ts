import { httpDate } from './relay-clock'

/**
 * NIP-11 relay information, fetched over HTTP(S) from the relay's WebSocket URL. nostr-tools'
 * `nip11.fetchRelayInformation` has no timeout and no `self` field, so this small fetch is ours.
 *
 * @example
 * const info = await fetchRelayInfo('wss://groups.example.com', fetch, 5000)
 * const relayKey = info?.self ?? info?.pubkey
 */
export interface RelayInfo {
  /** The relay's name. */
  name?: string
  /** What the relay is for, in the operator's words. */
  description?: string
  /** The key the relay signs its own events with (NIP-11 `self`); NIP-29 state is signed by it. */
  self?: string
  /** The operator's contact key; older NIP-29 relays sign group state with it. */
  pubkey?: string
  /** The NIPs the relay says it implements. */
  supported_nips?: number[]
  /** The relay software's URL or name. */
  software?: string
  /** The relay software's version. */
  version?: string
  /** The relay's limits (`max_limit`, `auth_required`, …), as it sends them. */
  limitation?: Record<string, unknown>
  [k: string]: unknown
}

const HEX64 = /^[0-9a-f]{64}$/

/** The HTTP URL of a relay's NIP-11 document. */
export function infoUrl(relay: string): string {
  return relay.replace(/^ws(s?):\/\//i, 'http$1://')
}

/**
 * Fetches and sanity-checks a relay's NIP-11 document; `undefined` when the relay has none.
 * `onDate` gets the relay's time from the answer's HTTP `Date` header, when it has one.
 */
export async function fetchRelayInfo(
  relay: string,
  fetchImpl: typeof fetch,
  timeoutMs: number,
  onDate?: (relayAt: number) => void,
): Promise<RelayInfo | undefined> {
  try {
    const res = await fetchImpl(infoUrl(relay), {
      headers: { Accept: 'application/nostr+json' },
      signal: AbortSignal.timeout(timeoutMs),
    })
    // The relay's own clock, as its HTTP server states it (read where CORS exposes it).
    const date = httpDate(res.headers?.get?.('date'))
    if (date !== undefined) onDate?.(date)
    if (!res.ok) return undefined
    const doc: unknown = await res.json()
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined
    const info = { ...(doc as Record<string, unknown>) } as RelayInfo
    // Keys that are not 64 lowercase hex characters cannot sign anything: drop them.
    if (typeof info.self !== 'string' || !HEX64.test(info.self)) delete info.self
    if (typeof info.pubkey !== 'string' || !HEX64.test(info.pubkey)) delete info.pubkey
    return info
  } catch {
    return undefined
  }
}

/** The key NIP-29 group state must be signed by: NIP-11 `self`, else `pubkey` (DESIGN decision 3). */
export function relayKeyOf(info: RelayInfo | undefined): string | undefined {
  return info?.self ?? info?.pubkey
}
