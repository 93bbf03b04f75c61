import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Engine } from './engine'
import { createNip86Handler } from './nip86/endpoint'

/** Handles a request when it is the handler's; `false` leaves it to the next handler. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>

/**
 * What the relay's port answers for its operators, ahead of everything else: a `403` for blocked
 * addresses, and NIP-86 calls.
 *
 * @example
 * const ops = operatorHttp(engine, () => closing)
 * http.createServer(async (req, res) => { if (!(await ops(req, res))) next(req, res) })
 */
export function operatorHttp(engine: Engine, _closing: () => boolean): HttpHandler {
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
    if (engine.bans.ipBlocked(engine.clientIp(req))) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' })
      res.end('blocked: your address is blocked\n')
      return true
    }
    return nip86(req, res)
  }
}
