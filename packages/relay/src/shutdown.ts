import type { Server } from 'node:http'
import type { WebSocket, WebSocketServer } from 'ws'
import { SHUTTING_DOWN } from './connection'
import type { Engine } from './engine'

/** How long closing sockets get to finish their closing handshake before they are ended, ms. */
const GOODBYE_MS = 500
/** How long, at most, an ended socket may take to deliver what was sent to it before it is cut, ms. */
const FLUSH_MS = 2500
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
 *    ending those that do not finish the closing handshake within half a second (their output still
 *    goes out) and cutting what is still open 2.5 s after the farewell;
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
  await within(gone, GOODBYE_MS)
  // A client that has not answered the closing frame yet may still be reading what was sent before
  // it: its socket is ended, not reset, so that output (the CLOSEDs) still reaches it, while the
  // threads and the store close; a socket still open after FLUSH_MS is cut.
  for (const c of conns) if (c.ws.readyState !== c.ws.CLOSED) endSocket(c.ws)
  await mediaClosed.catch(() => {})
  await engine.close()
  await within(gone, FLUSH_MS - GOODBYE_MS)
  for (const c of conns) c.ws.terminate()
  server.closeAllConnections()
  await stopped
  engine.ctx.log(`closed after ${since()}`)
}

/** Resolves when `p` does or after `ms`, whichever comes first. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([p, new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}

/** Half-closes a WebSocket's TCP socket after what is buffered for it is written (a FIN, not a reset). */
function endSocket(ws: WebSocket): void {
  ;(ws as unknown as { _socket?: { end(): void } })._socket?.end()
}
