/**
 * Whether the app can reach its relays: the browser's own online flag plus the pool's open
 * sockets to the relays of the user's groups. Sends check it first, so an offline send fails at
 * once with "You are offline" (no queue, decision 6) instead of waiting for a publish timeout.
 */

export type ConnectionStatus = 'online' | 'connecting' | 'offline' | 'unreachable'

export interface ConnectionState {
  status: ConnectionStatus
  /** Relays without an open socket (for `unreachable` and `connecting`). */
  down: string[]
  /** True for a few seconds after the connection came back. */
  back: boolean
}

/** The text a failed action shows while the app is offline or its relays are unreachable. */
export const OFFLINE_MESSAGE = 'You are offline'

export interface ConnectionWatchDeps {
  /** The relays that matter now (those of the user's groups). */
  relays: () => string[]
  /** Whether the pool holds an open socket to a relay. */
  connected: (relay: string) => boolean
  /** Asks the pool to connect now (the browser says the network is back: skip the backoff). */
  reconnect?: (relay: string) => void
  /** `navigator.onLine`, or true where there is no navigator. */
  browserOnline?: () => boolean
  /** Called when the state changes. */
  onChange: () => void
  /** How long a relay may take to connect before it counts as unreachable (ms, default 4000). */
  grace?: number
  /** How long "back online" shows (ms, default 4000). */
  backFor?: number
  /** How often sockets are looked at (ms, default 1000). */
  poll?: number
  now?: () => number
}

const ONLINE: ConnectionState = { status: 'online', down: [], back: false }

/** Pure step: the state for what is seen now. `downSince` is when some relay was first seen down. */
export function connectionState(input: {
  browserOnline: boolean
  down: string[]
  downFor: number
  grace: number
  everDown: boolean
  back: boolean
}): ConnectionState {
  if (!input.browserOnline) return { status: 'offline', down: input.down, back: false }
  if (input.down.length === 0) return input.back ? { ...ONLINE, back: true } : ONLINE
  const status = input.everDown || input.downFor >= input.grace ? 'unreachable' : 'connecting'
  return { status, down: input.down, back: false }
}

export class ConnectionWatch {
  private state: ConnectionState = ONLINE
  private downSince: number | undefined
  /** A relay was unreachable or the browser offline since the last time all was well. */
  private lost = false
  private backUntil = 0
  private timer: ReturnType<typeof setInterval> | undefined
  private backTimer: ReturnType<typeof setTimeout> | undefined
  private readonly now: () => number
  private readonly onOnline = () => {
    if (this.deps.browserOnline?.() ?? defaultBrowserOnline())
      for (const r of this.deps.relays()) if (!this.deps.connected(r)) this.deps.reconnect?.(r)
    this.check()
  }

  constructor(private readonly deps: ConnectionWatchDeps) {
    this.now = deps.now ?? Date.now
  }

  start(): void {
    this.check()
    this.timer = setInterval(() => this.check(), this.deps.poll ?? 1000)
    if (typeof window !== 'undefined') {
      window.addEventListener('online', this.onOnline)
      window.addEventListener('offline', this.onOnline)
    }
  }

  get current(): ConnectionState {
    return this.state
  }

  /** True when an action would fail for want of a connection: browser offline or relay unreachable. */
  get offline(): boolean {
    this.check()
    return this.state.status === 'offline' || this.state.status === 'unreachable'
  }

  /** Looks again now (also run every second and on the browser's online/offline events). */
  check(): void {
    const browserOnline = this.deps.browserOnline?.() ?? defaultBrowserOnline()
    const down = browserOnline ? this.deps.relays().filter((r) => !this.deps.connected(r)) : []
    const now = this.now()
    if (!browserOnline || down.length > 0) this.downSince ??= now
    const allWell = browserOnline && down.length === 0
    if (allWell && this.lost) {
      this.lost = false
      this.backUntil = now + (this.deps.backFor ?? 4000)
      clearTimeout(this.backTimer)
      this.backTimer = setTimeout(() => this.check(), (this.deps.backFor ?? 4000) + 10)
    }
    if (allWell) this.downSince = undefined
    const next = connectionState({
      browserOnline,
      down,
      downFor: this.downSince === undefined ? 0 : now - this.downSince,
      grace: this.deps.grace ?? 4000,
      everDown: this.lost,
      back: now < this.backUntil,
    })
    if (next.status === 'offline' || next.status === 'unreachable') this.lost = true
    if (!sameState(next, this.state)) {
      this.state = next
      this.deps.onChange()
    }
  }

  close(): void {
    clearInterval(this.timer)
    clearTimeout(this.backTimer)
    if (typeof window !== 'undefined') {
      window.removeEventListener('online', this.onOnline)
      window.removeEventListener('offline', this.onOnline)
    }
  }
}

function defaultBrowserOnline(): boolean {
  return typeof navigator === 'undefined' || navigator.onLine !== false
}

function sameState(a: ConnectionState, b: ConnectionState): boolean {
  return a.status === b.status && a.back === b.back && a.down.join() === b.down.join()
}
