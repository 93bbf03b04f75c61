import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Engine } from './engine'
import { databaseReachable, serveHealth } from './health'
import { serveMetrics } from './metrics'
import { createNip86Handler } from './nip86/endpoint'

/** Handles a request when it is the handler's; `false` leaves it to the next handler. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>

/**
 * What the relay's port answers for its operators, ahead of everything else: `GET /healthz`,
 * `GET /metrics` (behind `metricsToken`), a `403` for blocked addresses (after those two, so a load
 * balancer's checks still pass), and NIP-86 calls.
 *
 * @example
 * const ops = operatorHttp(engine, () => closing)
 * http.createServer(async (req, res) => { if (!(await ops(req, res))) next(req, res) })
 */
export function operatorHttp(engine: Engine, closing: () => boolean): HttpHandler {
  const nip86 = createNip86Handler({
    store: engine.store,
    bans: engine.bans,
    isExempt: (pk) => pk === engine.pubkey || engine.admins.has(pk),
    publicUrls: () => engine.ctx.publicUrls(),
    admins: engine.admins,
    now: () => engine.now(),
    verify: (event) => engine.ctx.verify(event),
    log: (line) => engine.ctx.log(line),
  })
  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    const read = req.method === 'GET' || req.method === 'HEAD'
    if (path === '/healthz' && read) {
      serveHealth(res, closing() || (await databaseReachable(engine.store)), closing())
      return true
    }
    if (path === '/metrics' && read) {
      serveMetrics(req, res, engine.opts.metricsToken, () =>
        engine.metrics.render({
          connections: engine.connections.size,
          subscriptions: engine.subscriptions,
          verifyQueue: engine.verifier.depth,
        }),
      )
      return true
    }
    if (engine.bans.ipBlocked(engine.clientIp(req))) {
      refuseBlocked(res)
      return true
    }
    return nip86(req, res)
  }
}

/**
 * At the entry of the media port (Blossom): refuses a blocked address and counts uploads for the
 * metrics. True when it answered.
 *
 * @example
 * createServer((req, res) => { if (mediaGuard(engine, req, res)) return; blossom(req, res) })
 */
export function mediaGuard(engine: Engine, req: IncomingMessage, res: ServerResponse): boolean {
  if (engine.bans.ipBlocked(engine.clientIp(req))) {
    refuseBlocked(res)
    return true
  }
  if (req.method === 'PUT' && (req.url ?? '').split('?')[0] === '/upload')
    res.on('finish', () => engine.metrics.upload(res.statusCode))
  return false
}

function refuseBlocked(res: ServerResponse): void {
  res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' })
  res.end('blocked: your address is blocked\n')
}
