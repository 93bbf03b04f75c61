import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Filter, NostrEvent } from 'nostr-tools'
import type { WebSocket } from 'ws'
import type { Admission, Peer, RelayContext, Subscription } from './context'
import type { NegMessage } from './negentropy/wire'
import { authProblem } from './nip42'
import { RateLimiter } from './rate-limit'
import { parseMessage } from './wire'

/** Frames queued before the socket is paused, and the mark below which it is read again. */
const QUEUE_HIGH = 256
const QUEUE_LOW = 64
/** How long one connection's frames may run before other connections get a turn, ms. */
const SLICE_MS = 4
/** Frames shorter than this are gathered into one write per turn of the event loop. */
const CORK_BELOW = 4096
/** The CLOSED reason of subscriptions a closing relay ends (and of REQs it no longer runs). */
export const SHUTTING_DOWN = 'error: shutting down'

/** What a connection hands on once a frame is understood (the query and intake parts). */
export interface MessageHandlers {
  /** At arrival, ahead of the messages still queued: the rate-limit token and the signature check. */
  admit(conn: Connection, event: NostrEvent, frame?: string): Admission
  /** In order; resolves once the event is queued for storage (its OK is sent later, through {@link Connection.reply}). */
  event(conn: Connection, event: NostrEvent, admission: Admission): Promise<void>
  req(conn: Connection, subId: string, filters: Filter[]): Promise<void>
  close(conn: Connection, subId: string): void
  /** NIP-45 COUNT: resolves once answered (COUNT or CLOSED). */
  count(conn: Connection, subId: string, filters: Filter[]): Promise<void>
  /** NIP-77: `NEG-OPEN` (resolves once answered), `NEG-MSG`, `NEG-CLOSE`. */
  neg(conn: Connection, message: NegMessage): Promise<void>
}

/**
 * One client's WebSocket: frames in and out, the output limit, NIP-42 state, the EVENT rate limit
 * and the heartbeat flag. Messages are handled one at a time in the order they arrived, so a
 * client's REQ after its EVENT sees that event; an EVENT's signature check starts on arrival, so a
 * burst is checked in parallel, and its handling ends once it is queued for storage. Output leaves
 * in order: an OK waiting for its commit holds back what the client would otherwise see first.
 */
export class Connection implements Peer {
  readonly challenge = bytesToHex(randomBytes(16))
  readonly authed = new Set<string>()
  /** Open subscriptions by id (managed by the query side). */
  readonly subs = new Map<string, Subscription>()
  readonly limiter: RateLimiter
  /** Answered the last heartbeat ping. */
  alive = true
  readonly remote: string
  /** Frames received and not yet handled, oldest first, parsed (an EVENT's check already started). */
  private readonly pending: { parsed: ReturnType<typeof parseMessage>; admission?: Admission }[] = []
  /** The drain loop under way, if any. */
  private running: Promise<void> | undefined
  /** The relay is closing: nothing more is read, REQs are refused, the socket closes after the answers. */
  private closing = false
  /** While closing, EVENTs still queued past this moment (`performance.now()`) are refused, not stored. */
  private closeBy = Number.POSITIVE_INFINITY
  /** This turn of the event loop wrote a frame already (`'corked'`: and the socket is corked till its end). */
  private turn: false | 'wrote' | 'corked' = false
  /** Output waiting behind a reply not yet ready; undefined when output can go at once. */
  private outTail: Promise<void> | undefined
  /** True while the reply at the head of the output line runs: its frames go straight out. */
  private replying = false

  constructor(
    readonly ws: WebSocket,
    req: IncomingMessage,
    private readonly ctx: RelayContext,
    private readonly handlers: MessageHandlers,
    rate: { events: number; perSeconds: number },
  ) {
    this.limiter = new RateLimiter(rate.events, rate.perSeconds)
    this.remote = `${req.socket.remoteAddress}:${req.socket.remotePort}`
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        this.send(['NOTICE', 'invalid: binary frames are not supported'])
        return
      }
      const text = data.toString()
      const parsed = parseMessage(text, this.ctx.limits)
      // An EVENT takes its rate-limit token and starts its signature check now, so a burst is
      // checked in batches on the workers while the frames ahead of it are still being handled.
      this.pending.push(
        parsed.ok && parsed.message.type === 'EVENT'
          ? { parsed, admission: this.handlers.admit(this, parsed.message.event, text) }
          : { parsed },
      )
      // Backpressure: past the queue's high mark, stop reading the socket until it drains.
      if (this.pending.length >= QUEUE_HIGH && !this.ws.isPaused) this.ws.pause()
      this.running ??= this.drain().finally(() => {
        this.running = undefined
      })
    })
    ws.on('error', () => ws.terminate())
    ws.on('pong', () => {
      this.alive = true
    })
    this.send(['AUTH', this.challenge])
  }

  /**
   * Handles queued frames one at a time, in order. After a few milliseconds of work it yields to
   * the event loop so other connections are served between one client's frames.
   */
  private async drain(): Promise<void> {
    let slice = performance.now()
    while (this.pending.length > 0) {
      // Frames still queued when the client leaves are dropped unanswered.
      if (!this.open) {
        this.pending.length = 0
        break
      }
      const { parsed, admission } = this.pending.shift() as (typeof this.pending)[number]
      try {
        await this.onMessage(parsed, admission)
      } catch (err) {
        this.ctx.log(`error ${this.remote} ${(err as Error).stack ?? err}`)
        this.send(['NOTICE', 'error: internal error'])
      }
      if (this.ws.isPaused && this.pending.length <= QUEUE_LOW && this.open && !this.closing) this.ws.resume()
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve))
        slice = performance.now()
      }
    }
  }

  /**
   * The relay is closing: stops reading the socket and resolves once every frame already received
   * is handled and its answer written (an EVENT's OK after its commit). A REQ among them is refused;
   * an EVENT not stored `budgetMs` from now (still queued here, or waiting for its turn in the store)
   * gets `OK false "error: shutting down"`, so a flood cannot hold the close for longer than that
   * and the units already running.
   */
  async settle(budgetMs: number): Promise<void> {
    this.closing = true
    this.closeBy = performance.now() + budgetMs
    this.ws.pause()
    while (this.open) {
      if (this.running) await this.running
      else if (this.pending.length > 0)
        this.running ??= this.drain().finally(() => {
          this.running = undefined
        })
      else if (this.outTail) await this.outTail
      else return
    }
  }

  /** Closing, and past the time EVENTs still go to storage: what is not stored yet is refused. */
  get shuttingDown(): boolean {
    return this.closing && performance.now() > this.closeBy
  }

  /**
   * After {@link settle}: ends every subscription with a CLOSED, then closes the socket (1001, going
   * away). Reading resumes, so the client's closing frame is heard and the socket ends with a FIN: a
   * socket closed with unread input would be reset, and what was sent last (the CLOSEDs) lost.
   */
  farewell(reason: string): void {
    for (const subId of this.subs.keys()) this.send(['CLOSED', subId, reason])
    this.subs.clear()
    if (this.open) this.ws.close(1001, reason.slice(0, 120))
    this.ws.resume()
  }

  get buffered(): number {
    return this.ws.bufferedAmount
  }

  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN
  }

  send(message: unknown[]): void {
    this.sendRaw(JSON.stringify(message))
  }

  sendRaw(text: string): void {
    if (this.outTail && !this.replying) this.reply(Promise.resolve(() => this.write(text)))
    else this.write(text)
  }

  /**
   * Sends what `ready` resolves to (a function that sends) once it resolves, after every reply queued
   * before it; output sent meanwhile waits behind it. An EVENT's OK goes this way: after its commit,
   * yet in the order the client sent its messages.
   */
  reply(ready: Promise<() => void>): void {
    const run = (fn: () => void) => {
      this.replying = true
      try {
        fn()
      } catch (err) {
        this.ctx.log(`error ${this.remote} ${(err as Error).stack ?? err}`)
      } finally {
        this.replying = false
      }
    }
    const mine = (this.outTail ?? Promise.resolve())
      .then(() => ready)
      .then(run, (err) => {
        this.ctx.log(`error ${this.remote} ${(err as Error).stack ?? err}`)
      })
    this.outTail = mine
    mine.then(() => {
      if (this.outTail === mine) this.outTail = undefined
    })
  }

  /** The turn ended: what it corked leaves. */
  private readonly endTurn = (): void => {
    const corked = this.turn === 'corked'
    this.turn = false
    if (corked) (this.ws as unknown as { _socket?: { uncork(): void } })._socket?.uncork()
  }

  /** Writes one frame now. */
  private write(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return
    if (this.ws.bufferedAmount > this.ctx.limits.maxBufferedBytes) {
      this.ctx.log(`slow ${this.remote}: closing`)
      this.ws.close(1008, 'too slow to read')
      return
    }
    // The first frame of a turn leaves at once (a live event reaches the first of many subscribers
    // without waiting for the others); small frames that follow in the same turn (OKs, live events
    // of one batch) are corked and leave together at its end.
    if (this.turn === false) {
      this.turn = 'wrote'
      setImmediate(this.endTurn)
    } else if (this.turn === 'wrote' && text.length < CORK_BELOW) {
      const socket = (this.ws as unknown as { _socket?: { cork(): void } })._socket
      if (socket) {
        this.turn = 'corked'
        socket.cork()
      }
    }
    this.ws.send(text)
  }

  /**
   * Resolves once the unsent output is at most `pacingBytes` (true), or false when the connection
   * closed or did not drain within `stallMs` (then it is closed: a reader that stopped reading).
   */
  async drained(): Promise<boolean> {
    const { pacingBytes, stallMs } = this.ctx.limits
    const start = Date.now()
    let wait = 2
    while (this.open && this.ws.bufferedAmount > pacingBytes) {
      if (Date.now() - start > stallMs) {
        this.ctx.log(`stalled ${this.remote}: closing`)
        this.ws.close(1008, 'too slow to read')
        return false
      }
      await new Promise((resolve) => setTimeout(resolve, wait))
      wait = Math.min(wait * 2, 100)
    }
    return this.open
  }

  requestAuth(): void {
    this.send(['AUTH', this.challenge])
  }

  private async onMessage(parsed: ReturnType<typeof parseMessage>, admission?: Admission): Promise<void> {
    if (!parsed.ok) {
      const e = parsed.error
      if (e.answer === 'OK') this.send(['OK', e.eventId, false, e.reason])
      else if (e.answer === 'CLOSED') this.send(['CLOSED', e.subId, e.reason])
      else if (e.answer === 'NEG-ERR') this.send(['NEG-ERR', e.subId, e.reason])
      else this.send(['NOTICE', e.reason])
      return
    }
    const m = parsed.message
    if (m.type === 'EVENT') {
      if (this.shuttingDown) this.send(['OK', m.event.id, false, SHUTTING_DOWN])
      else await this.handlers.event(this, m.event, admission ?? this.handlers.admit(this, m.event))
    } else if (m.type === 'REQ') {
      if (this.closing) this.send(['CLOSED', m.subId, SHUTTING_DOWN])
      else await this.handlers.req(this, m.subId, m.filters)
    } else if (m.type === 'COUNT') {
      if (this.closing) this.send(['CLOSED', m.subId, SHUTTING_DOWN])
      else await this.handlers.count(this, m.subId, m.filters)
    } else if (m.type === 'CLOSE') this.handlers.close(this, m.subId)
    else if (m.type === 'AUTH') this.onAuth(m.event)
    else if (this.closing) this.send(['NEG-ERR', m.subId, SHUTTING_DOWN])
    else await this.handlers.neg(this, m)
  }

  private onAuth(event: NostrEvent): void {
    const problem = authProblem(event, this.challenge, this.ctx)
    if (problem) {
      this.send(['OK', event.id, false, problem])
      return
    }
    if (!this.authed.has(event.pubkey) && this.authed.size >= this.ctx.limits.maxAuthKeys) {
      this.send([
        'OK',
        event.id,
        false,
        `blocked: too many authenticated keys (at most ${this.ctx.limits.maxAuthKeys})`,
      ])
      return
    }
    this.authed.add(event.pubkey)
    this.ctx.log(`auth ${this.remote} ${event.pubkey}`)
    this.send(['OK', event.id, true, ''])
  }
}

/** Drops connections that did not answer the previous ping (dead TCP peers), pings the rest. */
export function heartbeat(connections: Iterable<Connection>, log: (line: string) => void): void {
  for (const conn of connections) {
    if (!conn.alive) {
      log(`timeout ${conn.remote}`)
      conn.ws.terminate()
      continue
    }
    conn.alive = false
    conn.ws.ping()
  }
}
