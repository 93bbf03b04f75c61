import type { Server } from 'node:http'
import type { WebSocketServer } from 'ws'
import { SHUTTING_DOWN } from './connection'
import type { Engine } from './engine'

/** How long closing sockets get to finish their closing handshake before they are cut, ms. */
const GOODBYE_MS = 500
/**
 * How long, from the start of a close, EVENTs already received still go to storage; those not
 * stored by then (queued on their connection, or waiting for their turn in the store) are answered
 * `OK false "error: shutting down"` (the Roost client sends them again on its next connection).
 * Bounds a close under a flood to this plus the units already running.
 */
const SETTLE_MS = 1000

/** What a running relay is made of, for {@link closeRelay}. */
export interface RelayParts {
  engine: Engine
  server: Server
  wss: WebSocketServer
  /** The media server (Blossom on its own port). */
  media: { close(): Promise<void> }
  heartbeat: NodeJS.Timeout
}

/**
 * Closes a relay, in order, and always settles:
 *
 * 1. stops accepting: no new connection, WebSocket or upload (`/healthz` answers 503 meanwhile);
 * 2. answers every frame already received, reading no more: each EVENT gets its OK after its unit
 *    committed (a REQ among them gets CLOSED; an EVENT not stored within a second gets
 *    `OK false "error: shutting down"`);
 * 3. ends every subscription with `CLOSED "error: shutting down"` and closes each socket (1001),
 *    cutting those that do not finish the closing handshake within half a second;
 * 4. stops the media server, the signature-check threads and the store (its checkpoint thread).
 *
 * @example
 * await closeRelay({ engine, server, wss, media, heartbeat })
 */
export async function closeRelay(parts: RelayParts): Promise<void> {
  const { engine, server, wss, media, heartbeat } = parts
  const started = performance.now()
  const since = () => `${Math.round(performance.now() - started)} ms`
  clearInterval(heartbeat)
  engine.closing = true
  wss.close()
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
  server.closeIdleConnections()
  const mediaClosed = media.close()
  const conns = [...engine.connections]
  engine.ctx.log(`closing: no new connections; answering what ${conns.length} connections sent`)
  await Promise.all(conns.map((c) => c.settle(SETTLE_MS).catch(() => {})))
  engine.ctx.log(`closing: answered and committed after ${since()}; ending subscriptions`)
  const gone = Promise.all(
    conns.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.ws.readyState === c.ws.CLOSED) resolve()
          else c.ws.once('close', () => resolve())
        }),
    ),
  )
  for (const c of conns) c.farewell(SHUTTING_DOWN)
  let timer: NodeJS.Timeout | undefined
  await Promise.race([gone, new Promise((resolve) => (timer = setTimeout(resolve, GOODBYE_MS)))])
  clearTimeout(timer)
  for (const c of conns) c.ws.terminate()
  server.closeAllConnections()
  await mediaClosed.catch(() => {})
  await engine.close()
  await stopped
  engine.ctx.log(`closed after ${since()}`)
}
