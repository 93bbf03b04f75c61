import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Filter, NostrEvent } from 'nostr-tools'
import { type WebSocket, WebSocketServer } from 'ws'

/**
 * A tiny raw relay for injecting faults the real relay will not produce: forged state, NOTICE
 * instead of OK, silence. It speaks just enough NIP-01/NIP-11 for the test at hand.
 */
export interface FakeRelay {
  url: string
  /** Every REQ received, as [subscription id, filters]. */
  reqs: [string, Filter[]][]
  /** Every EVENT received. */
  events: NostrEvent[]
  close(): Promise<void>
}

export interface FakeRelayOptions {
  /** The NIP-11 document (served for `Accept: application/nostr+json`). */
  info?: Record<string, unknown>
  /** Answers a REQ: events to send, then EOSE. */
  onReq?: (filters: Filter[]) => NostrEvent[]
  /**
   * Answers an EVENT: `ok` (OK true), `notice` (NOTICE only), `silent` (nothing at all) or
   * `shutting-down` (OK false `error: shutting down`, then the socket closes, as a relay going away).
   */
  onEvent?: (event: NostrEvent) => 'ok' | 'notice' | 'silent' | 'shutting-down'
}

export async function startFakeRelay(opts: FakeRelayOptions = {}): Promise<FakeRelay> {
  const server: Server = createServer((req, res) => {
    if (req.headers.accept?.includes('application/nostr+json') && opts.info) {
      res.writeHead(200, { 'content-type': 'application/nostr+json', 'access-control-allow-origin': '*' })
      res.end(JSON.stringify(opts.info))
      return
    }
    res.writeHead(404)
    res.end()
  })
  const wss = new WebSocketServer({ server })
  const sockets = new Set<WebSocket>()
  const reqs: [string, Filter[]][] = []
  const events: NostrEvent[] = []
  wss.on('connection', (ws) => {
    sockets.add(ws)
    ws.on('close', () => sockets.delete(ws))
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as unknown[]
      if (msg[0] === 'REQ') {
        const id = String(msg[1])
        const filters = msg.slice(2) as Filter[]
        reqs.push([id, filters])
        for (const e of opts.onReq?.(filters) ?? []) ws.send(JSON.stringify(['EVENT', id, e]))
        ws.send(JSON.stringify(['EOSE', id]))
      } else if (msg[0] === 'EVENT') {
        const event = msg[1] as NostrEvent
        events.push(event)
        const verdict = opts.onEvent?.(event) ?? 'ok'
        if (verdict === 'ok') ws.send(JSON.stringify(['OK', event.id, true, '']))
        else if (verdict === 'notice')
          ws.send(JSON.stringify(['NOTICE', 'you are not an admin of this group']))
        else if (verdict === 'shutting-down') {
          ws.send(JSON.stringify(['OK', event.id, false, 'error: shutting down']))
          setTimeout(() => ws.close(1001, 'shutting down'), 20)
        }
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `ws://127.0.0.1:${port}`,
    reqs,
    events,
    async close() {
      for (const s of sockets) s.terminate()
      wss.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
