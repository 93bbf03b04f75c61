/**
 * A loopback TCP proxy in front of the test relay that holds back what the relay sends over a
 * WebSocket (its OKs, the events it echoes) for `delayMs`, in order, as a slow or far-away relay
 * does. Plain HTTP (the page, NIP-11) passes at once; what the browser sends is never delayed.
 * A page loaded from `base` talks to the relay through the proxy, since the app's default relay is
 * the origin that served it.
 */
import { once } from 'node:events'
import { type AddressInfo, createServer, connect as dial, type Socket } from 'node:net'

export interface SlowLink {
  /** ws://127.0.0.1:PORT: the relay as seen through the proxy. */
  url: string
  /** http://127.0.0.1:PORT: the client, served through the proxy. */
  base: string
  /** How long the relay's WebSocket frames are held back, in ms; may change at any time. */
  delayMs: number
  close(): Promise<void>
}

/** Starts the proxy in front of `target` (`http://host:port` or `ws://host:port`). */
export async function slowLink(target: string, delayMs = 0): Promise<SlowLink> {
  const { hostname, port } = new URL(target.replace(/^ws/, 'http'))
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = dial(Number(port), hostname)
    sockets.add(client)
    sockets.add(upstream)
    let upgraded = false
    // Chunks leave in the order they came, each no sooner than its own arrival + the delay.
    let lastAt = 0
    client.pipe(upstream)
    upstream.on('data', (chunk: Buffer) => {
      if (!upgraded) {
        if (chunk.subarray(0, 12).toString('latin1') === 'HTTP/1.1 101') upgraded = true
        client.write(chunk)
        return
      }
      const at = Math.max(lastAt, Date.now() + link.delayMs)
      lastAt = at
      setTimeout(() => {
        if (!client.destroyed) client.write(chunk)
      }, at - Date.now())
    })
    const end = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('close', end).on('error', end)
    upstream.on('close', () => setTimeout(end, Math.max(0, lastAt - Date.now()) + 1)).on('error', end)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port: own } = server.address() as AddressInfo
  const link: SlowLink = {
    url: `ws://127.0.0.1:${own}`,
    base: `http://127.0.0.1:${own}`,
    delayMs,
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return link
}
