/**
 * The fault proxy for browser-mode tests: a page cannot open a TCP listener, so these vitest
 * browser commands run the proxy in Node and the page drives it by id. Registered in
 * `vitest.browser.config.ts`; a test closes what it starts.
 *
 * @example
 * import { commands } from 'vitest/browser'
 * const proxy = await commands.startFaultProxy(relays.groups) // { id, url }
 * await commands.faultProxy(proxy.id, 'blackhole')
 * await commands.faultProxy(proxy.id, 'restore', { halfOpen: true })
 * await commands.faultProxy(proxy.id, 'close')
 */
import { type FaultProxy, type ProxiedConnection, startFaultProxy } from './fault-proxy.ts'

/** What a page may ask of a proxy, and with what. */
export type FaultProxyAction =
  | 'blackhole'
  | 'restore'
  | 'cut'
  | 'latency'
  | 'refuse'
  | 'connections'
  | 'close'

/** A connection as the page sees it (a snapshot: `closed` stays in Node). */
export type ConnectionView = Pick<ProxiedConnection, 'id' | 'fromClient' | 'fromTarget' | 'state'>

const proxies = new Map<string, FaultProxy>()
let serial = 0

export const faultProxyCommands = {
  /** Starts a proxy in front of `target` (a ws: URL) and returns its id and URL. */
  async startFaultProxy(_ctx: unknown, target: string): Promise<{ id: string; url: string }> {
    const proxy = await startFaultProxy(target)
    const id = `proxy-${++serial}`
    proxies.set(id, proxy)
    return { id, url: proxy.url }
  },
  /** Runs one action on a proxy; `connections` answers with every connection's counters and state. */
  async faultProxy(
    _ctx: unknown,
    id: string,
    action: FaultProxyAction,
    arg?: { halfOpen?: boolean; ms?: number; how?: 'reset' | 'end' },
  ): Promise<ConnectionView[]> {
    const proxy = proxies.get(id)
    if (!proxy) throw new Error(`no fault proxy ${id}`)
    if (action === 'blackhole') proxy.blackhole()
    else if (action === 'restore') proxy.restore(arg)
    else if (action === 'cut') proxy.cut(arg?.how)
    else if (action === 'latency') proxy.latency(arg?.ms ?? 0)
    else if (action === 'refuse') proxy.refuse(arg?.ms)
    else if (action === 'close') {
      proxies.delete(id)
      await proxy.close()
    }
    return proxy.connections.map(({ id, fromClient, fromTarget, state }) => ({
      id,
      fromClient,
      fromTarget,
      state,
    }))
  },
}

declare module 'vitest/browser' {
  interface BrowserCommands {
    startFaultProxy(target: string): Promise<{ id: string; url: string }>
    faultProxy(
      id: string,
      action: FaultProxyAction,
      arg?: { halfOpen?: boolean; ms?: number; how?: 'reset' | 'end' },
    ): Promise<ConnectionView[]>
  }
}
