import type { PolicyRelay } from './policy-relay'

/**
 * Timer functions, injectable so a test moves time itself.
 *
 * @example
 * const timers: LivenessTimers = { setTimeout: fake.set, clearTimeout: fake.clear }
 */
export interface LivenessTimers {
  /** Calls `fn` once after `ms` milliseconds; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown
  /** Cancels a timer `setTimeout` returned. */
  clearTimeout(handle: unknown): void
}

/**
 * How a dead relay connection is noticed. A socket whose network died (a black hole, a changed
 * network, a NAT that forgot the flow) stays open and silent: nothing tells the client. So when
 * something sent goes unanswered for `quietMs` with nothing at all heard from the relay, or the
 * link has been quiet for `idleMs`, the connection sends a probe, a REQ for no events whose
 * EOSE (or any other frame) must come back within `probeTimeoutMs`; if none does, the socket is
 * dropped and the pool reconnects with its backoff. A live relay costs one probe per quiet
 * spell, never one per send.
 *
 * @example
 * new RelayPool({ liveness: { quietMs: 3_000, probeTimeoutMs: 5_000, idleMs: 29_000 } })
 */
export interface LivenessOptions {
  /** How long a send or REQ may go unanswered, with nothing heard from the relay, before a probe (default 3 000 ms). */
  quietMs?: number
  /** How long a probe may wait for an answer before the socket counts as dead (default 5 000 ms). */
  probeTimeoutMs?: number
  /** A link with nothing heard for this long is probed even when nothing awaits an answer (default 29 000 ms). */
  idleMs?: number
  /** Milliseconds (default `Date.now`). */
  now?: () => number
  /** Default the global `setTimeout`/`clearTimeout`. */
  timers?: LivenessTimers
}

/** The socket a {@link Liveness} watches. */
export interface LivenessLink {
  /** Whether something sent still awaits its answer (a publish, a REQ before its EOSE, an AUTH). */
  awaiting(): boolean
  /** Sends one frame (the probe and its CLOSE). */
  send(frame: string): void
  /** No answer to the probe: the socket is dead. */
  dead(): void
}

/** The probe's subscription id: one per socket, so a probe never holds more than one of the relay's slots. */
export const PROBE_ID = 'roost-probe'
const PROBE = JSON.stringify(['REQ', PROBE_ID, { ids: ['0'.repeat(64)], limit: 0 }])

/**
 * The liveness watch of one socket (see {@link LivenessOptions}). `sent()` on every frame that
 * expects an answer, `heard()` on every frame received; one timer at a time.
 *
 * @example
 * const watch = new Liveness({ awaiting: () => pending > 0, send: (f) => ws.send(f), dead: () => ws.close() })
 * ws.onmessage = (e) => watch.heard(e.data)
 */
export class Liveness {
  private readonly quietMs: number
  private readonly probeTimeoutMs: number
  private readonly idleMs: number
  private readonly now: () => number
  private readonly timers: LivenessTimers
  private lastHeard: number
  /** The first frame sent since `lastHeard` that expects an answer. */
  private pendingSince: number | undefined
  private probeSentAt: number | undefined
  /** Our probe REQ may still be open on the relay: CLOSE it when its EOSE comes. */
  private probeOpen = false
  private timer: unknown
  private due = Number.POSITIVE_INFINITY
  private stopped = false

  constructor(
    private readonly link: LivenessLink,
    opts: LivenessOptions = {},
  ) {
    this.quietMs = opts.quietMs ?? 3_000
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 5_000
    this.idleMs = opts.idleMs ?? 29_000
    this.now = opts.now ?? Date.now
    this.timers = opts.timers ?? {
      setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
      clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
    }
    this.lastHeard = this.now()
    this.schedule()
  }

  /** A frame that expects an answer went out. */
  sent(): void {
    if (this.stopped) return
    this.pendingSince ??= this.now()
    if (this.probeSentAt === undefined) this.arm(this.pendingSince + this.quietMs, true)
  }

  /** A frame came in: the link is alive. */
  heard(frame: unknown): void {
    this.lastHeard = this.now()
    this.pendingSince = undefined
    if (this.probeOpen && typeof frame === 'string' && frame.includes(`"${PROBE_ID}"`))
      this.probeAnswered(frame)
    if (this.probeSentAt !== undefined && !this.stopped) {
      this.probeSentAt = undefined
      this.schedule()
    }
  }

  stop(): void {
    this.stopped = true
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer)
    this.timer = undefined
  }

  private probeAnswered(frame: string): void {
    let verb: unknown
    try {
      ;[verb] = JSON.parse(frame) as unknown[]
    } catch {
      return
    }
    if (verb !== 'EOSE' && verb !== 'CLOSED') return
    this.probeOpen = false
    if (verb === 'EOSE' && !this.stopped) this.link.send(JSON.stringify(['CLOSE', PROBE_ID]))
  }

  /** Sets the timer for the next moment something may need doing. */
  private schedule(): void {
    if (this.probeSentAt !== undefined) {
      this.arm(this.probeSentAt + this.probeTimeoutMs)
      return
    }
    let due = this.lastHeard + this.idleMs
    if (this.pendingSince !== undefined) due = Math.min(due, this.pendingSince + this.quietMs)
    else if (this.link.awaiting()) due = Math.min(due, this.lastHeard + this.quietMs)
    this.arm(due)
  }

  /** One timer, at `due` (or only moved earlier, with `earlierOnly`). */
  private arm(due: number, earlierOnly = false): void {
    if (this.stopped || (earlierOnly && this.timer !== undefined && this.due <= due)) return
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer)
    this.due = due
    this.timer = this.timers.setTimeout(() => this.fire(), Math.max(0, due - this.now()))
  }

  private fire(): void {
    this.timer = undefined
    if (this.stopped) return
    const now = this.now()
    if (this.probeSentAt !== undefined) {
      if (now - this.probeSentAt >= this.probeTimeoutMs) {
        this.stop()
        this.link.dead()
      } else this.schedule()
      return
    }
    const quiet = now - this.lastHeard
    const unanswered = quiet >= this.quietMs && (this.pendingSince !== undefined || this.link.awaiting())
    if (unanswered || quiet >= this.idleMs) {
      this.probeSentAt = now
      this.probeOpen = true
      this.link.send(PROBE)
    }
    this.schedule()
  }
}

/**
 * Puts a liveness watch on a socket: every frame in and out feeds it, and a probe left unanswered
 * abandons the socket (its `onclose` runs, so the connection's usual reconnect follows).
 *
 * @example
 * watchLiveness(relay, () => publishesInFlight > 0, { quietMs: 3_000 })
 */
export function watchLiveness(relay: PolicyRelay, awaiting: () => boolean, opts: LivenessOptions): void {
  const liveness = new Liveness(
    {
      awaiting,
      send: (frame) => relay.sendQuietly(frame),
      dead: () => relay.abandon('relay connection lost: no answer to a probe'),
    },
    opts,
  )
  relay.onframe = (data) => liveness.heard(data)
  relay.onsend = (message) => {
    if (!message.startsWith('["CLOSE"')) liveness.sent() // every other frame expects an answer
  }
  relay.unwatch = () => liveness.stop()
}
