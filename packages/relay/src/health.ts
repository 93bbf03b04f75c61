import type { ServerResponse } from 'node:http'
import type { EventStore } from './store/store'

/** How long the database may take to answer a health check before it counts as unreachable, ms. */
const HEALTH_TIMEOUT_MS = 2000

/**
 * Whether the database answers a read within {@link HEALTH_TIMEOUT_MS}.
 *
 * @example
 * await databaseReachable(store) // true
 */
export async function databaseReachable(store: EventStore): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS)
    timer.unref()
  })
  try {
    return await Promise.race([store.getMeta('secret_key').then(() => true), late])
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}

/**
 * `GET /healthz` for load balancers: `200 {"ok":true}` while the relay accepts connections and its
 * database answers; `503 {"ok":false,"error":…}` when the database does not answer, or once the
 * relay is closing (so the balancer stops sending it clients before it goes).
 *
 * @example
 * serveHealth(res, await databaseReachable(store), closing)
 */
export function serveHealth(res: ServerResponse, reachable: boolean, closing: boolean): void {
  const error = closing ? 'closing' : reachable ? undefined : 'database unreachable'
  res.writeHead(error ? 503 : 200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  })
  res.end(JSON.stringify(error ? { ok: false, error } : { ok: true }))
}
