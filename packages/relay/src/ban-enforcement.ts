import type { Bans } from './bans'
import type { Connection } from './connection'

/**
 * After the operator's lists changed: closes connections from a blocked address and those
 * authenticated as a banned key, with a NOTICE saying why (a banned key's subscriptions end with
 * its connection).
 *
 * @example
 * bans.onChange(() => enforceBans(engine.connections, (c) => ips.get(c), bans, log))
 */
export function enforceBans(
  connections: Iterable<Connection>,
  ipOf: (conn: Connection) => string | undefined,
  bans: Bans,
  log: (line: string) => void,
): void {
  for (const conn of connections) {
    const key = [...conn.authed].find((pk) => bans.isBanned(pk))
    const reason = key
      ? 'blocked: you are banned from this relay'
      : bans.ipBlocked(ipOf(conn) ?? '')
        ? 'blocked: your address is blocked'
        : undefined
    if (!reason) continue
    log(`banned ${conn.remote}${key ? ` ${key}` : ''}: closing`)
    conn.send(['NOTICE', reason])
    conn.ws.close(1008, reason)
  }
}
