import type { Filter } from 'nostr-tools'
import type { Peer, RelayContext } from '../context'
import { checkRead, type Reader } from '../groups/visibility'
import { loadGroups, QueryTooCostlyError } from '../query'
import { fromHex, NegentropyProtocolError, toHex } from './codec'
import { ItemSet } from './item-set'
import { TooManyRecordsError, visibleRecords } from './item-source'
import { MIN_FRAME_SIZE, respond } from './responder'
import type { NegMessage } from './wire'

/** A connection as the NIP-77 side sees it. */
export interface NegPeer extends Peer {
  /** Still open. */
  readonly open: boolean
}

interface Session {
  readonly set: ItemSet
  timer: ReturnType<typeof setTimeout>
}

/**
 * NIP-77 on the relay: `NEG-OPEN` builds the set of records the reader may see for the filter
 * (through the REQ's visibility path, {@link visibleRecords}) and answers its first message;
 * `NEG-MSG` answers the next ones; `NEG-CLOSE` (or the connection's end, or `negIdleSeconds`
 * without a message) releases the set. Caps: `maxNegRecords` per session (NEG-ERR `blocked: too
 * many records`, with the cap as a fourth element as strfry sends it), `maxNegSessions` per
 * connection, `maxNegRecordsHeld` over every session of the relay. Any protocol error ends its
 * session with NEG-ERR `invalid:`; a NEG-MSG for no open session gets NEG-ERR `closed:`.
 *
 * @example
 * const neg = new NegentropySide(ctx)
 * await neg.handle(conn, { type: 'NEG-OPEN', subId: 'n1', filter: { '#h': ['general'] }, message: hex })
 * neg.release(conn) // on disconnect
 */
export class NegentropySide {
  private readonly sessions = new Map<NegPeer, Map<string, Session>>()
  /** Records held by every open session. */
  private held = 0

  constructor(private readonly ctx: RelayContext) {}

  /** The frame budget of one answer (bytes before hex): a client frame's cap, halved by the hex. */
  private get frameSize(): number {
    return Math.max(MIN_FRAME_SIZE, Math.floor((this.ctx.limits.maxMessageLength - 256) / 2))
  }

  /** Records held by open sessions (for tests and metrics). */
  get heldRecords(): number {
    return this.held
  }

  async handle(conn: NegPeer, m: NegMessage): Promise<void> {
    if (m.type === 'NEG-OPEN') await this.open(conn, m.subId, m.filter, m.message)
    else if (m.type === 'NEG-MSG') this.message(conn, m.subId, m.message)
    else this.drop(conn, m.subId)
  }

  private async open(conn: NegPeer, subId: string, filter: Filter, hex: string): Promise<void> {
    const { limits, store, policy } = this.ctx
    this.drop(conn, subId) // NIP-77: a NEG-OPEN for an open id closes that session first
    const mine = this.sessions.get(conn)
    if (mine && mine.size >= limits.maxNegSessions) {
      conn.send([
        'NEG-ERR',
        subId,
        `blocked: too many negentropy sessions (at most ${limits.maxNegSessions})`,
      ])
      return
    }
    const first = fromHex(hex)
    if (!first) {
      conn.send(['NEG-ERR', subId, 'invalid: the message is not hex'])
      return
    }
    const reader: Reader = { authed: conn.authed, relayKey: this.ctx.pubkey }
    const groups = await loadGroups(store, [...(filter['#h'] ?? []), ...(filter['#d'] ?? [])])
    const refusal = checkRead([filter], reader, (id) => groups.get(id), policy)
    if (refusal) {
      conn.send(['NEG-ERR', subId, refusal.reason])
      if (refusal.auth) conn.requestAuth()
      return
    }
    let set: ItemSet
    try {
      const records = await visibleRecords(this.ctx, filter, reader, limits.maxNegRecords, () => conn.open)
      if (!conn.open) return
      if (this.held + records.length > limits.maxNegRecordsHeld) {
        conn.send(['NEG-ERR', subId, 'blocked: the relay is reconciling too much at once, try again later'])
        return
      }
      set = ItemSet.build(records)
    } catch (err) {
      if (err instanceof TooManyRecordsError) conn.send(['NEG-ERR', subId, err.message, err.cap])
      else if (err instanceof QueryTooCostlyError) conn.send(['NEG-ERR', subId, err.message])
      else {
        this.ctx.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
        conn.send(['NEG-ERR', subId, 'error: the query failed'])
      }
      return
    }
    // A NEG-OPEN with this id may have been answered meanwhile (another frame cannot, but be sure).
    this.drop(conn, subId)
    const session: Session = { set, timer: this.idleTimer(conn, subId) }
    const map = this.sessions.get(conn) ?? new Map<string, Session>()
    map.set(subId, session)
    this.sessions.set(conn, map)
    this.held += set.size
    this.answer(conn, subId, session, first)
  }

  private message(conn: NegPeer, subId: string, hex: string): void {
    const session = this.sessions.get(conn)?.get(subId)
    if (!session) {
      conn.send(['NEG-ERR', subId, 'closed: no open negentropy session with this id'])
      return
    }
    const bytes = fromHex(hex)
    if (!bytes) {
      this.drop(conn, subId)
      conn.send(['NEG-ERR', subId, 'invalid: the message is not hex'])
      return
    }
    clearTimeout(session.timer)
    session.timer = this.idleTimer(conn, subId)
    this.answer(conn, subId, session, bytes)
  }

  private answer(conn: NegPeer, subId: string, session: Session, message: Uint8Array): void {
    let out: Uint8Array
    try {
      out = respond(session.set, message, this.frameSize)
    } catch (err) {
      this.drop(conn, subId)
      if (err instanceof NegentropyProtocolError)
        conn.send(['NEG-ERR', subId, `invalid: bad negentropy message (${err.message})`])
      else {
        this.ctx.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
        conn.send(['NEG-ERR', subId, 'error: internal error'])
      }
      return
    }
    conn.send(['NEG-MSG', subId, toHex(out)])
  }

  private idleTimer(conn: NegPeer, subId: string): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      if (this.sessions.get(conn)?.get(subId)?.timer !== timer) return
      this.drop(conn, subId)
      conn.send(['NEG-ERR', subId, `closed: no message for ${this.ctx.limits.negIdleSeconds} s`])
    }, this.ctx.limits.negIdleSeconds * 1000)
    timer.unref?.()
    return timer
  }

  /** Ends one session (NEG-CLOSE, a new NEG-OPEN with its id, an error), silently. */
  private drop(conn: NegPeer, subId: string): void {
    const map = this.sessions.get(conn)
    const session = map?.get(subId)
    if (!map || !session) return
    clearTimeout(session.timer)
    map.delete(subId)
    this.held -= session.set.size
    if (map.size === 0) this.sessions.delete(conn)
  }

  /** Ends every session of a connection that went away. */
  release(conn: NegPeer): void {
    for (const subId of [...(this.sessions.get(conn)?.keys() ?? [])]) this.drop(conn, subId)
  }
}
