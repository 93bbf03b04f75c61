import type { NostrEvent } from 'nostr-tools'
import type { RelayContext } from './context'

/**
 * The NIP-42 checks of an AUTH event against the connection's challenge: a valid signature, kind
 * 22242, the challenge, a `relay` tag naming one of the relay's public URLs (host and path; request
 * headers play no part), `created_at` within the window, and a key the operator has not banned.
 * Undefined when it authenticates its pubkey, else the OK false text.
 *
 * @example
 * authProblem(event, conn.challenge, ctx) // undefined | 'invalid: challenge mismatch' | …
 */
export function authProblem(
  event: NostrEvent,
  challenge: string,
  ctx: Pick<RelayContext, 'verify' | 'publicUrls' | 'now' | 'limits' | 'bans'>,
): string | undefined {
  if (!ctx.verify(event)) return 'invalid: signature is invalid'
  if (event.kind !== 22242) return 'invalid: AUTH needs a kind 22242 event'
  const tag = (n: string) => event.tags.find((t) => t[0] === n)?.[1]
  if (tag('challenge') !== challenge) return 'invalid: challenge mismatch'
  const relay = tag('relay')
  const given = relay === undefined ? undefined : comparableUrl(relay)
  if (given === undefined || !ctx.publicUrls().some((u) => comparableUrl(u) === given))
    return 'invalid: relay tag does not name this relay'
  if (Math.abs(event.created_at - ctx.now()) > ctx.limits.authWindow) return 'invalid: auth event expired'
  if (ctx.bans.isBanned(event.pubkey)) return 'blocked: you are banned from this relay'
  return undefined
}

/** A ws(s) URL reduced to what identifies the relay: host (with port) and path, lowercased, no trailing slash. */
function comparableUrl(url: string): string | undefined {
  try {
    const u = new URL(url)
    if (u.protocol !== 'ws:' && u.protocol !== 'wss:') return undefined
    return `${u.host}${u.pathname.replace(/\/+$/, '')}`.toLowerCase()
  } catch {
    return undefined
  }
}
