/**
 * A loopback TCP proxy that breaks the network between a client and a real server, for tests.
 *
 * It forwards bytes (WebSocket, HTTP, anything over TCP) between `proxy.url` and the target, and
 * on command: cuts every connection (RST or FIN), black-holes the link (nothing moves either way,
 * nothing closes, as when a network dies) and restores it, stalls it for a while, adds latency,
 * or refuses new connections. It knows nothing of Nostr, and sits in the test's own process.
 *
 * @example
 * const proxy = await startFaultProxy(relay.url) // listens on 127.0.0.1, port 0
 * const pool = new RelayPool({ websocket: WebSocket })
 * pool.subscribe(proxy.url, filters, handlers) // the client knows only the proxy
 * proxy.blackhole() // a dead network: bytes are held, no socket closes
 * proxy.restore({ halfOpen: true }) // back, but the flows from before stay dead (a NAT forgot them)
 * await proxy.close()
 */
import { createServer, type Server } from 'node:net'
import { Link } from './fault-link.ts'

/** Timer functions and a millisecond clock, injectable so a test can move time itself (latency, stalls). */
export interface ProxyTimers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
  now(): number
}

/** Who closed a proxied connection's client side first. */
export type ClosedBy = 'client' | 'target' | 'proxy'

/** One client connection through the proxy, as a test may inspect it. */
export interface ProxiedConnection {
  readonly id: number
  /** Bytes received from the client / from the target, delivered or not. */
  readonly fromClient: number
  readonly fromTarget: number
  /** `flowing`, `held` (black-holed, bytes kept), `dead` (black-holed for good) or `closed`. */
  readonly state: 'flowing' | 'held' | 'dead' | 'closed'
  /** Resolves when the client side of the connection is gone, saying who ended it. */
  readonly closed: Promise<ClosedBy>
}

export interface FaultProxy {
  /** The target's URL with the proxy's port: hand this to the client. */
  readonly url: string
  readonly port: number
  /** Every connection accepted, oldest first (closed ones included). */
  readonly connections: readonly ProxiedConnection[]
  /** Connections reset at once because new connections were being refused. */
  readonly refused: number
  /**
   * The network dies: from now on no byte moves either way and nothing is closed. Bytes are held,
   * as TCP keeps unacknowledged data to send again. A new connection is accepted (its client sees
   * a TCP connection) but reaches the target only once the network is back.
   */
  blackhole(): void
  /**
   * The network is back. Held bytes are delivered in order (TCP's retransmissions), a FIN the target
   * sent meanwhile with them; a target that reset its side meanwhile resets the client now. With
   * `halfOpen`, connections that were open when the black hole began stay silent for good (the far
   * end or a NAT forgot them: what the client sends is lost and it hears nothing, until it gives
   * up); newer ones flow.
   */
  restore(opts?: { halfOpen?: boolean }): void
  /** Black-holes the link for `ms`, then restores it (nothing lost). Resolves once restored. */
  stall(ms: number): Promise<void>
  /** Delays every chunk by `ms` each way from now on, keeping order (0 ends it). */
  latency(ms: number): void
  /** Resets each new connection at once for `ms` (until `refuse(0)` when omitted). */
  refuse(ms?: number): void
  /** Cuts every open connection on both sides now: TCP RST (`reset`, the default) or FIN (`end`). */
  cut(how?: 'reset' | 'end'): void
  /** Stops listening and destroys every connection. */
  close(): Promise<void>
}

export interface FaultProxyOptions {
  /** Default the global `setTimeout`/`clearTimeout` and `performance.now`. */
  timers?: ProxyTimers
}

/**
 * Starts a proxy on 127.0.0.1, port 0, in front of `target`: a `ws:`/`http:` URL on this machine,
 * or a function returning one, read at each new connection (so the proxy can be started first and
 * its URL given to the server, e.g. as the relay's NIP-42 `urls`).
 *
 * @example
 * let relayUrl = ''
 * const proxy = await startFaultProxy(() => relayUrl)
 * const relay = await startRelay({ port: 0, urls: [proxy.url] }) // AUTH names the proxy's URL
 * relayUrl = relay.url
 */
export async function startFaultProxy(
  target: string | (() => string),
  opts: FaultProxyOptions = {},
): Promise<FaultProxy> {
  const timers: ProxyTimers = opts.timers ?? {
    setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
    clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
    now: () => performance.now(),
  }
  const links: Link[] = []
  const net = { holing: false, latencyMs: 0, refusing: false, refused: 0, timers }
  let refuseTimer: unknown
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    if (net.refusing) {
      net.refused++
      socket.resetAndDestroy()
      return
    }
    const link = new Link(links.length + 1, socket, net, () => {
      const url = new URL(typeof target === 'function' ? target() : target)
      return { host: url.hostname, port: Number(url.port) }
    })
    links.push(link)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as { port: number }).port
  // The target's URL with this host and port, its scheme and path kept.
  const url =
    typeof target === 'function'
      ? `ws://127.0.0.1:${port}`
      : target.replace(
          /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*/i,
          (_, scheme: string) => `${scheme}127.0.0.1:${port}`,
        )

  const proxy: FaultProxy = {
    url,
    port,
    connections: links,
    get refused() {
      return net.refused
    },
    blackhole() {
      net.holing = true
      for (const link of links) link.hold()
    },
    restore({ halfOpen = false } = {}) {
      net.holing = false
      for (const link of links) link.resume(halfOpen)
    },
    async stall(ms) {
      proxy.blackhole()
      await new Promise<void>((resolve) => timers.setTimeout(resolve, ms))
      proxy.restore()
    },
    latency(ms) {
      net.latencyMs = Math.max(0, ms)
    },
    refuse(ms) {
      if (refuseTimer !== undefined) timers.clearTimeout(refuseTimer)
      refuseTimer = undefined
      net.refusing = ms !== 0
      if (ms)
        refuseTimer = timers.setTimeout(() => {
          refuseTimer = undefined
          net.refusing = false
        }, ms)
    },
    cut(how = 'reset') {
      for (const link of links) link.cut(how)
    },
    async close() {
      if (refuseTimer !== undefined) timers.clearTimeout(refuseTimer)
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const link of links) link.destroy()
      await stopped
    },
  }
  return proxy
}
