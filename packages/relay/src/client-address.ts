import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import { plainIp } from './bans'

/**
 * The client's address. The TCP peer's, unless the peer is one of `trustedProxies` (a load
 * balancer such as HAProxy with `option forwardfor`): then the nearest address in
 * `X-Forwarded-For` that is not itself a trusted proxy. A header from any other peer is ignored,
 * so a client cannot pick the address its per-address cap and blocks count against.
 *
 * @example
 * clientAddress(req, new Set(['127.0.0.1'])) // '203.0.113.7' (from X-Forwarded-For, sent by the local HAProxy)
 */
export function clientAddress(req: IncomingMessage, trustedProxies: ReadonlySet<string>): string {
  const peer = plainIp(req.socket.remoteAddress ?? '')
  if (!trustedProxies.has(peer)) return peer
  const header = req.headers['x-forwarded-for']
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainIp(hops[i] as string)
    if (isIP(hop) === 0) return peer
    if (!trustedProxies.has(hop)) return hop
  }
  return peer
}
