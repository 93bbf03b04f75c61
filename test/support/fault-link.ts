/** The inside of the fault proxy: one client connection, its target connection and the two lanes between them. */
import { type Socket, connect as tcpConnect } from 'node:net'
import type { ClosedBy, ProxiedConnection, ProxyTimers } from './fault-proxy.ts'

const END = Symbol('end')
type Item = Buffer | typeof END

export interface Net {
  holing: boolean
  latencyMs: number
  timers: ProxyTimers
}

/** One client connection and its connection to the target. */
export class Link implements ProxiedConnection {
  state: ProxiedConnection['state'] = 'flowing'
  readonly closed: Promise<ClosedBy>
  private target: Socket | undefined
  /** The target reset its side while the link was black-holed: the client is reset on restore. */
  private targetGone = false
  /** Open when the black hole began: `restore({ halfOpen: true })` leaves it dead. */
  private stranded = false
  private readonly up: Lane
  private readonly down: Lane
  private settle!: (by: ClosedBy) => void
  private endedBy: ClosedBy | undefined

  constructor(
    readonly id: number,
    private readonly client: Socket,
    net: Net,
    private readonly where: () => { host: string; port: number },
  ) {
    this.closed = new Promise((resolve) => {
      this.settle = resolve
    })
    this.up = new Lane(net, () => this.target)
    this.down = new Lane(
      net,
      () => this.client,
      () => {
        this.endedBy ??= 'target' // the target's FIN reached the client: the close that follows is its answer
      },
    )
    client.on('data', (chunk) => this.from('client', chunk))
    client.on('end', () => this.from('client', END))
    client.on('error', () => {})
    client.on('close', () => this.clientGone())
    if (net.holing) this.state = 'held'
    else this.dial()
  }

  get fromClient(): number {
    return this.up.bytes
  }

  get fromTarget(): number {
    return this.down.bytes
  }

  private dial(): void {
    const { host, port } = this.where()
    const target = tcpConnect({ host, port, allowHalfOpen: true })
    this.target = target
    target.on('data', (chunk) => this.from('target', chunk))
    target.on('end', () => this.from('target', END))
    target.on('error', () => this.targetReset())
  }

  private from(side: 'client' | 'target', item: Item): void {
    const lane = side === 'client' ? this.up : this.down
    lane.count(item)
    if (this.state === 'flowing') lane.send(item)
    else if (this.state === 'held') lane.hold(item)
    else if (this.state === 'dead' && item === END && side === 'client') this.client.destroy() // it gave up
    // otherwise lost
  }

  /** The target reset its side (its FIN, if any, travels in order as an item of the lane). */
  private targetReset(): void {
    if (this.state === 'flowing') this.closeClient('target', 'reset')
    else if (this.state === 'held') this.targetGone = true // the client hears of it when the network is back
  }

  private clientGone(): void {
    if (this.state === 'closed') return
    this.state = 'closed'
    this.settle(this.endedBy ?? 'client')
    this.up.clear()
    this.down.clear()
    this.target?.destroy()
  }

  private closeClient(by: ClosedBy, how: 'reset' | 'end'): void {
    if (this.state === 'closed') return
    this.state = 'closed'
    this.settle(by)
    this.up.clear()
    this.down.clear()
    if (how === 'reset') {
      for (const s of [this.client, this.target]) if (s && !s.destroyed) s.resetAndDestroy()
    } else {
      this.client.end()
      this.target?.end()
    }
  }

  /** The black hole begins: an established connection is stranded (see `resume`). */
  hold(): void {
    if (this.state !== 'flowing' && this.state !== 'held') return
    this.state = 'held'
    this.stranded ||= this.target !== undefined
  }

  resume(halfOpen: boolean): void {
    if (this.state !== 'held') return
    if (halfOpen && this.stranded) {
      this.state = 'dead'
      this.up.clear()
      this.down.clear()
      return
    }
    this.state = 'flowing'
    this.stranded = false
    if (!this.target) this.dial()
    this.up.release()
    this.down.release()
    if (this.targetGone) this.closeClient('target', 'reset')
  }

  cut(how: 'reset' | 'end'): void {
    this.closeClient('proxy', how)
  }

  /** Resets both sockets, whatever state the link is in (the proxy is closing). */
  destroy(): void {
    this.closeClient('proxy', 'reset')
    for (const s of [this.client, this.target]) if (s && !s.destroyed) s.resetAndDestroy()
  }
}

/** One direction of a link: in order, held while black-holed, delayed by the latency. */
class Lane {
  bytes = 0
  private held: Item[] = []
  private delayed: { due: number; item: Item }[] = []
  private timer: unknown

  constructor(
    private readonly net: Net,
    private readonly out: () => Socket | undefined,
    private readonly ended?: () => void,
  ) {}

  count(item: Item): void {
    if (item !== END) this.bytes += item.length
  }

  hold(item: Item): void {
    this.held.push(item)
  }

  release(): void {
    for (const item of this.held.splice(0)) this.send(item)
  }

  send(item: Item): void {
    const ms = this.net.latencyMs
    if (ms === 0 && this.delayed.length === 0) {
      this.deliver(item)
      return
    }
    // Chunks never overtake each other, even when the latency is lowered meanwhile.
    const due = Math.max(this.net.timers.now() + ms, this.delayed.at(-1)?.due ?? 0)
    this.delayed.push({ due, item })
    if (this.timer === undefined) this.arm()
  }

  private arm(): void {
    const head = this.delayed[0]
    if (!head) return
    this.timer = this.net.timers.setTimeout(
      () => {
        this.timer = undefined
        const now = this.net.timers.now()
        while (this.delayed[0] && this.delayed[0].due <= now) this.deliver(this.delayed.shift()!.item)
        this.arm()
      },
      Math.max(0, head.due - this.net.timers.now()),
    )
  }

  clear(): void {
    this.held = []
    this.delayed = []
    if (this.timer !== undefined) this.net.timers.clearTimeout(this.timer)
    this.timer = undefined
  }

  private deliver(item: Item): void {
    const socket = this.out()
    if (!socket || socket.destroyed) return
    if (item === END) {
      this.ended?.()
      socket.end()
    } else socket.write(item)
  }
}
