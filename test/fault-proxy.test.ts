import { once } from 'node:events'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { startRelay } from '../packages/relay/src/index'
import { type FaultProxy, type ProxyTimers, startFaultProxy } from './support/fault-proxy'

/** A peer's socket with everything it has read so far, and a way to wait for more. */
class Peer {
  text = ''
  ended = false
  error: string | undefined
  closed = false
  constructor(readonly socket: Socket) {
    socket.setEncoding('utf8')
    socket.on('data', (d: string) => {
      this.text += d
    })
    socket.on('end', () => {
      this.ended = true
    })
    socket.on('error', (e: NodeJS.ErrnoException) => {
      this.error = e.code ?? e.message
    })
    socket.on('close', () => {
      this.closed = true
    })
  }
  /** Resolves once `text` holds `expected` (rejects if the socket closes first). */
  async read(expected: string): Promise<void> {
    while (!this.text.includes(expected)) {
      if (this.closed)
        throw new Error(`closed before ${JSON.stringify(expected)}; got ${JSON.stringify(this.text)}`)
      await Promise.race([on(this.socket, 'data'), on(this.socket, 'close')])
    }
  }
  async gone(): Promise<void> {
    if (!this.closed) await on(this.socket, 'close')
  }
}

/** The next `event` (unlike `events.once`, an 'error' does not reject: the peer records it). */
function on(socket: Socket, event: string): Promise<void> {
  return new Promise((resolve) => socket.once(event, () => resolve()))
}

/** A TCP server that keeps every connection it accepted as a {@link Peer}. */
async function target(): Promise<{ server: Server; url: string; peers: Peer[]; next(): Promise<Peer> }> {
  const peers: Peer[] = []
  let taken = 0
  const server = createServer((s) => {
    peers.push(new Peer(s))
    server.emit('peer')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  closers.push(() => {
    for (const p of peers) p.socket.destroy()
  })
  return {
    server,
    url: `ws://127.0.0.1:${port}/some/path`,
    peers,
    /** The next connection the target accepted that no earlier call returned. */
    async next() {
      while (peers.length <= taken) await once(server, 'peer')
      return peers[taken++]!
    },
  }
}

async function client(proxy: FaultProxy): Promise<Peer> {
  const s = connect({ host: '127.0.0.1', port: proxy.port })
  const peer = new Peer(s)
  closers.push(() => {
    s.destroy()
  })
  await once(s, 'connect')
  return peer
}

/** A round trip through a second, healthy connection: every byte the proxy read before it has been handled. */
async function settle(proxy: FaultProxy, t: Awaited<ReturnType<typeof target>>): Promise<void> {
  const probe = await client(proxy)
  const far = await t.next()
  probe.socket.write('ping')
  await far.read('ping')
  far.socket.write('pong')
  await probe.read('pong')
  probe.socket.destroy()
}

/** A round trip to the target that bypasses the proxy: every byte the proxy wrote before it has arrived. */
async function direct(t: Awaited<ReturnType<typeof target>>): Promise<void> {
  const s = connect({ host: '127.0.0.1', port: Number(new URL(t.url).port) })
  const me = new Peer(s)
  const far = await t.next()
  s.write('ping')
  await far.read('ping')
  far.socket.write('pong')
  await me.read('pong')
  s.destroy()
  far.socket.destroy()
}

/** Until the proxy has read `n` bytes from connection `id`'s client (and `m` from its target). */
async function received(proxy: FaultProxy, id: number, n: number, m = 0): Promise<void> {
  const c = () => proxy.connections[id - 1]
  while ((c()?.fromClient ?? 0) < n || (c()?.fromTarget ?? 0) < m) await new Promise((r) => setImmediate(r))
}

/** A hand-moved clock for the proxy's latency and stalls. */
class FakeTimers implements ProxyTimers {
  t = 0
  private tasks: { at: number; fn: () => void; id: number }[] = []
  private seq = 0
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.seq
    this.tasks.push({ at: this.t + ms, fn, id })
    return id
  }
  clearTimeout = (h: unknown) => {
    this.tasks = this.tasks.filter((t) => t.id !== h)
  }
  now = () => this.t
  advance(ms: number): void {
    this.t += ms
    for (;;) {
      const due = this.tasks.filter((t) => t.at <= this.t).sort((a, b) => a.at - b.at)[0]
      if (!due) return
      this.tasks = this.tasks.filter((t) => t !== due)
      due.fn()
    }
  }
}

const closers: (() => unknown)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

async function proxyTo(url: string | (() => string), timers?: ProxyTimers): Promise<FaultProxy> {
  const proxy = await startFaultProxy(url, timers ? { timers } : {})
  closers.push(() => proxy.close())
  return proxy
}

describe('the fault proxy', () => {
  it('passes bytes both ways and names itself with the target’s scheme and path', async () => {
    const t = await target()
    const proxy = await proxyTo(t.url)
    expect(proxy.url).toBe(`ws://127.0.0.1:${proxy.port}/some/path`)
    const c = await client(proxy)
    const far = await t.next()
    c.socket.write('hello')
    await far.read('hello')
    far.socket.write('world')
    await c.read('world')
    far.socket.end()
    await c.gone()
    expect(c.ended).toBe(true)
    expect(await proxy.connections[0]!.closed).toBe('target')
    expect(proxy.connections[0]).toMatchObject({ fromClient: 5, fromTarget: 5, state: 'closed' })
  })

  it('cuts every connection with a reset, or with a FIN', async () => {
    const t = await target()
    const proxy = await proxyTo(t.url)
    const a = await client(proxy)
    const farA = await t.next()
    proxy.cut()
    await Promise.all([a.gone(), farA.gone()])
    expect(a.error).toBe('ECONNRESET')
    expect(farA.error).toBe('ECONNRESET')

    const b = await client(proxy) // the proxy still accepts after a cut
    const farB = await t.next()
    proxy.cut('end')
    await Promise.all([b.gone(), farB.gone()])
    expect(b.error).toBeUndefined()
    expect(b.ended).toBe(true)
    expect(await proxy.connections[0]!.closed).toBe('proxy')
  })

  it('black-holes both ways without closing, then delivers what it held, in order', async () => {
    const t = await target()
    const proxy = await proxyTo(t.url)
    const c = await client(proxy)
    const far = await t.next()
    proxy.blackhole()
    c.socket.write('one ')
    c.socket.write('two')
    far.socket.write('back')
    await received(proxy, 1, 7, 4)
    const late = await client(proxy) // opened during the black hole: it reaches nobody yet
    late.socket.write('late')
    await received(proxy, 2, 4)
    await direct(t)
    expect(t.peers).toHaveLength(2) // the two connections, and the direct one
    expect([far.text, c.text]).toEqual(['', ''])
    expect(proxy.connections.map((x) => x.state)).toEqual(['held', 'held'])
    expect(c.closed || far.closed).toBe(false)
    proxy.restore()
    await far.read('one two')
    await c.read('back')
    const lateFar = await t.next()
    await lateFar.read('late')
    expect([far.text, c.text, lateFar.text]).toEqual(['one two', 'back', 'late'])
  })

  it('restore({ halfOpen: true }): the flows from before stay silent for good; new ones flow', async () => {
    const t = await target()
    const proxy = await proxyTo(t.url)
    const old = await client(proxy)
    const oldFar = await t.next()
    proxy.blackhole()
    old.socket.write('lost')
    oldFar.socket.write('lost too')
    await received(proxy, 1, 4)
    proxy.restore({ halfOpen: true })
    old.socket.write(' and after')
    await received(proxy, 1, 14)
    await settle(proxy, t) // a new connection works both ways meanwhile
    await direct(t)
    expect([oldFar.text, old.text]).toEqual(['', ''])
    expect(proxy.connections[0]!.state).toBe('dead')
    expect(old.closed).toBe(false) // nothing tells the client
    old.socket.destroy() // until it gives up itself
    expect(await proxy.connections[0]!.closed).toBe('client')
  })

  it('a target that went away during the black hole is heard of once the network is back', async () => {
    const t = await target()
    const proxy = await proxyTo(t.url)
    const [ended, reset] = [await client(proxy), await client(proxy)]
    const [farEnded, farReset] = [await t.next(), await t.next()]
    proxy.blackhole()
    farEnded.socket.end('bye') // a FIN after its last bytes
    farReset.socket.resetAndDestroy() // an RST
    await received(proxy, 1, 0, 3)
    await farReset.gone()
    await direct(t)
    expect([ended.closed, reset.closed]).toEqual([false, false])
    proxy.restore()
    await Promise.all([ended.gone(), reset.gone()])
    expect([ended.text, ended.ended, ended.error]).toEqual(['bye', true, undefined])
    expect(reset.error).toBe('ECONNRESET')
    expect(await proxy.connections[0]!.closed).toBe('target')
    expect(await proxy.connections[1]!.closed).toBe('target')
  })

  it('stalls for a while and adds latency, on its own clock, keeping order', async () => {
    const t = await target()
    const clock = new FakeTimers()
    const proxy = await proxyTo(t.url, clock)
    const c = await client(proxy)
    const far = await t.next()

    const stalled = proxy.stall(2_000)
    c.socket.write('a')
    await received(proxy, 1, 1)
    expect(proxy.connections[0]!.state).toBe('held')
    clock.advance(2_000)
    await stalled
    await far.read('a')

    proxy.latency(500)
    c.socket.write('b')
    await received(proxy, 1, 2)
    proxy.latency(100) // lowered: 'c' still arrives after 'b'
    c.socket.write('c')
    await received(proxy, 1, 3)
    clock.advance(499)
    await direct(t)
    expect(far.text).toBe('a') // not due yet

    clock.advance(1)
    await far.read('abc')
  })

  it('refuses new connections for a while with a reset, and accepts them again after', async () => {
    const t = await target()
    const clock = new FakeTimers()
    const proxy = await proxyTo(t.url, clock)
    proxy.refuse(1_000)
    const s = connect({ host: '127.0.0.1', port: proxy.port })
    const refused = new Peer(s)
    await refused.gone()
    expect(refused.error).toBe('ECONNRESET')
    expect(proxy.refused).toBe(1)
    expect(t.peers).toHaveLength(0)
    clock.advance(1_000)
    await settle(proxy, t)
  })

  it('carries a real relay’s WebSockets, and can be started before the relay it fronts', async () => {
    let relayUrl = ''
    const proxy = await proxyTo(() => relayUrl)
    const relay = await startRelay({ port: 0, db: ':memory:', urls: [proxy.url] })
    closers.push(() => relay.close())
    relayUrl = relay.url
    const ws = new WebSocket(proxy.url)
    closers.push(() => ws.terminate())
    await once(ws, 'open')
    const answer = once(ws, 'message')
    ws.send(JSON.stringify(['REQ', 'x', { kinds: [1], limit: 1 }]))
    expect(JSON.parse(String((await answer)[0]))).toEqual(['EOSE', 'x'])
  })
})
