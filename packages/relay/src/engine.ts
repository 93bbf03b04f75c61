import type { IncomingMessage } from 'node:http'
import type { EventTemplate, Filter, NostrEvent } from 'nostr-tools'
import { getPublicKey } from 'nostr-tools/pure'
import type { WebSocket } from 'ws'
import { enforceBans } from './ban-enforcement'
import { Bans, followLists } from './bans'
import { clientAddress } from './client-address'
import { Connection, heartbeat } from './connection'
import type { Admission, RelayContext } from './context'
import { answerCount } from './count'
import { RelayOptionError } from './errors'
import { groupOf } from './groups/intake'
import type { GroupRecord } from './groups/record'
import { Intake, type IntakeOutcome } from './intake'
import { keptKey, secretKeyBytes } from './keys'
import { checkLiveKitConfig } from './livekit/config'
import { Metrics } from './metrics'
import { NegentropySide } from './negentropy/sessions'
import type { RelayOptions } from './options'
import { PROFILES } from './profiles'
import { QuerySide } from './query'
import { prefixed } from './reasons'
import { publicUrl, settleLimits, settleOperators } from './settle-options'
import { BANNED_SQLSTATE } from './store/lists-pg'
import { openStore } from './store/open'
import type { EventStore } from './store/store'
import { defaultVerifier } from './verify'
import { VerifyPool } from './verify-pool'

/** EVENTs one connection may have queued for storage and not yet committed before it waits. */
const UNITS_PER_CONNECTION = 64

/** Profiles, contacts, deletions, relay and group lists, DM relays, NIP-46 signer traffic, app data (NIP-RS). */
const DEFAULT_NON_GROUP_KINDS = [0, 3, 5, 10002, 10009, 10050, 24133, 30078]

/**
 * The relay engine: wires connections to the query side and the intake pipeline over one store.
 * Its public surface (`own`, `trusted`, `group`, `state`, `now`) is what the admin API and the demo
 * seed build on. One instance per `startRelay`.
 */
export class Engine {
  readonly connections = new Set<Connection>()
  /** Open connections per client address. */
  private readonly perIp = new Map<string, number>()
  /** Each connection's client address. */
  private readonly ips = new Map<Connection, string>()
  /** Counters for `/metrics`. */
  readonly metrics = new Metrics()
  /** Set when the relay starts closing: new WebSockets are turned away. */
  closing = false
  readonly query: QuerySide
  readonly intake: Intake
  /** NIP-77 sessions. */
  readonly negentropy: NegentropySide
  /** The relay's public URL (AUTH `relay` tags name it). */
  url = ''

  private constructor(
    readonly ctx: RelayContext,
    readonly opts: RelayOptions,
    /** The signature-check workers (stopped by {@link Engine.close}). */
    readonly verifier: VerifyPool,
    /** The operators' keys (`--admin`), who may call NIP-86. */
    readonly admins: ReadonlySet<string>,
    /** Load balancers whose X-Forwarded-For names the client (`--trusted-proxy`). */
    private readonly proxies: ReadonlySet<string>,
  ) {
    this.query = new QuerySide(ctx)
    this.intake = new Intake(ctx)
    ctx.bans.onChange(() => enforceBans(this.connections, (c) => this.ips.get(c), ctx.bans, ctx.log))
    this.negentropy = new NegentropySide(ctx)
  }

  /** Opens the store, loads or makes the keys, and settles the options. */
  static async open(opts: RelayOptions): Promise<Engine> {
    const policy = PROFILES[opts.profile ?? 'roost']
    if (!policy) throw new RelayOptionError(`unknown profile '${opts.profile}'`)
    if (opts.livekit) checkLiveKitConfig(opts.livekit)
    const limits = settleLimits(opts.limits)
    const urls = (opts.urls ?? []).map(publicUrl)
    const { admins, proxies } = settleOperators(opts.admins, opts.trustedProxies)
    const given = opts.secretKey === undefined ? undefined : secretKeyBytes(opts.secretKey)
    let pubkey = ''
    const store: EventStore = await openStore(opts.db ?? ':memory:', () => pubkey, opts.log)
    const secret = given ?? (await keptKey(store, 'secret_key'))
    pubkey = getPublicKey(secret)
    const ownerPubkey = policy.separateOwnerKey ? getPublicKey(await keptKey(store, 'owner_key')) : pubkey
    const clock = opts.clock ?? (() => Math.floor(Date.now() / 1000))
    let engine: Engine
    const verify = opts.verifyEvent ?? (await defaultVerifier())
    // A custom check is a function of this thread: it runs inline.
    const pool = new VerifyPool({ workers: opts.verifyEvent ? 0 : opts.workers, inline: verify })
    const bans = new Bans((pk) => pk === pubkey || admins.has(pk))
    bans.load(await store.lists())
    const ctx: RelayContext = {
      policy,
      store,
      secret,
      pubkey,
      ownerPubkey,
      av: opts.livekit !== undefined,
      lateWindow: opts.lateWindow ?? policy.lateWindow,
      previousMinimum: opts.previousMinimum ?? policy.previous.minimum,
      tieOrder: opts.tieOrder ?? 'arrival',
      limits,
      publicUrls: () => (urls.length > 0 ? urls : [engine.url]),
      localChat: opts.localChat ?? false,
      nonGroupKinds: new Set(opts.nonGroupKinds ?? DEFAULT_NON_GROUP_KINDS),
      now: clock,
      log: opts.log ?? (() => {}),
      verify,
      check: (event, json) => pool.check(event, json),
      bans,
    }
    engine = new Engine(ctx, opts, pool, admins, proxies)
    store.onRemote((event) => engine.broadcast([event]))
    followLists(store, bans, ctx.log)
    return engine
  }

  get policy() {
    return this.ctx.policy
  }
  get pubkey(): string {
    return this.ctx.pubkey
  }
  get ownerPubkey(): string {
    return this.ctx.ownerPubkey
  }
  get store(): EventStore {
    return this.ctx.store
  }
  get bans(): Bans {
    return this.ctx.bans
  }
  /** The client's address: the peer's, or X-Forwarded-For's when the peer is a trusted proxy. */
  clientIp(req: IncomingMessage): string {
    return clientAddress(req, this.proxies)
  }
  /** Open subscriptions over every connection. */
  get subscriptions(): number {
    let n = 0
    for (const c of this.connections) n += c.subs.size
    return n
  }
  now(): number {
    return this.ctx.now()
  }

  /** Takes over a new WebSocket, or refuses it (NOTICE, then close) past the connection caps. */
  attach(ws: WebSocket, req: IncomingMessage): void {
    const { limits, log } = this.ctx
    if (this.closing) {
      ws.close(1001, 'shutting down')
      return
    }
    const ip = this.clientIp(req)
    const fromIp = this.perIp.get(ip) ?? 0
    const refusal = this.ctx.bans.ipBlocked(ip)
      ? 'blocked: your address is blocked'
      : this.connections.size >= limits.maxConnections
        ? `blocked: the relay is full (at most ${limits.maxConnections} connections)`
        : fromIp >= limits.maxConnectionsPerIp
          ? `blocked: too many connections from your address (at most ${limits.maxConnectionsPerIp})`
          : undefined
    if (refusal) {
      log(`refuse ${ip}: ${refusal}`)
      ws.send(JSON.stringify(['NOTICE', refusal]))
      ws.close(1008, refusal.slice(0, 120))
      return
    }
    const rate = this.opts.rateLimit ?? { events: 200, perSeconds: 10 }
    const conn = new Connection(
      ws,
      req,
      this.ctx,
      {
        admit: (c, e, frame) => this.intake.admit(c, e, frame),
        event: (c, e, admission) => this.onEvent(c, e, admission),
        req: (c, subId, filters: Filter[]) => this.query.req(c, subId, filters),
        close: (c, subId) => this.query.close(c, subId),
        count: (c, subId, filters) => answerCount(this.ctx, c, subId, filters),
        neg: (c, message) => this.negentropy.handle(c, message),
      },
      rate,
    )
    this.connections.add(conn)
    this.ips.set(conn, ip)
    this.perIp.set(ip, fromIp + 1)
    log(`connect ${conn.remote}${ip === req.socket.remoteAddress ? '' : ` for ${ip}`}`)
    ws.on('close', () => {
      this.connections.delete(conn)
      this.ips.delete(conn)
      this.negentropy.release(conn)
      const left = (this.perIp.get(ip) ?? 1) - 1
      if (left > 0) this.perIp.set(ip, left)
      else this.perIp.delete(ip)
      log(`disconnect ${conn.remote}`)
    })
  }

  /** Pings every connection; drops those that missed the previous ping. */
  heartbeat(): void {
    heartbeat(this.connections, this.ctx.log)
  }

  /** EVENTs of each connection queued for storage and not yet committed. */
  private readonly unsettled = new WeakMap<Connection, number>()

  /**
   * Queues an EVENT for storage (resolving once queued, so the connection moves on to its next
   * message) and answers it once its unit committed: exactly one reply per EVENT, errors included.
   */
  private async onEvent(conn: Connection, event: NostrEvent, admission: Admission): Promise<void> {
    let pending: Promise<IntakeOutcome>
    try {
      // Live subscribers hear of it at its commit, before any later read can see it; the OK keeps
      // the sender's order.
      const started = await this.intake.start(conn, event, admission, (o) => this.broadcast(o.accepted))
      pending = started.outcome
      const queued = performance.now()
      pending.then(
        (o) => {
          if (o.accepted.length > 0) this.metrics.commit((performance.now() - queued) / 1000)
        },
        () => {},
      )
    } catch (err) {
      pending = Promise.reject(err)
    }
    const failed = (err: unknown): IntakeOutcome => {
      // PostgreSQL's last word on a ban another process made moments ago (see migration 0003).
      if ((err as { code?: string }).code === BANNED_SQLSTATE)
        return { reply: { type: 'ok', ok: false, message: (err as Error).message }, accepted: [] }
      this.ctx.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
      return {
        reply: { type: 'ok', ok: false, message: 'error: internal error, the event was not stored' },
        accepted: [],
      }
    }
    conn.reply(
      pending.then(
        (o) => () => this.answer(conn, event, o),
        (err) => {
          const o = failed(err)
          return () => this.answer(conn, event, o)
        },
      ),
    )
    // A connection with many EVENTs queued for storage waits for its own commits before queueing
    // more, so a flood cannot fill a group's queue ahead of every other connection.
    const n = (this.unsettled.get(conn) ?? 0) + 1
    this.unsettled.set(conn, n)
    const settle = () => this.unsettled.set(conn, (this.unsettled.get(conn) ?? 1) - 1)
    const settled = pending.then(settle, settle)
    if (n >= UNITS_PER_CONNECTION) await settled
  }

  private answer(conn: Connection, event: NostrEvent, outcome: IntakeOutcome): void {
    const { reply } = outcome
    if (reply.type === 'notice') conn.send(['NOTICE', reply.message])
    else if (reply.type === 'ok') {
      const message = reply.ok ? reply.message : prefixed(reply.message)
      this.metrics.event(reply.ok, message)
      conn.send(['OK', event.id, reply.ok, message])
      if (!reply.ok && reply.message.startsWith('auth-required:')) conn.requestAuth()
    }
  }

  /** Stops the verification workers and closes the store (after the units under way). */
  async close(): Promise<void> {
    await this.verifier.close()
    await this.ctx.store.close()
  }

  /** Sends committed events to the matching live subscriptions, each seen through its group's current record. */
  broadcast(events: readonly NostrEvent[]): void {
    for (const event of events) {
      const gid =
        event.kind >= 39000 && event.kind <= 39005
          ? event.tags.find((t) => t[0] === 'd')?.[1]
          : groupOf(event)
      const g = gid === undefined ? undefined : this.ctx.store.peekGroup(gid)
      this.query.broadcast(this.connections, event, g)
    }
  }

  /** Signs and ingests relay-made events as one unit, broadcasting them at its commit. */
  async own(templates: EventTemplate[]): Promise<void> {
    await this.intake.own(templates, (out) => this.broadcast(out))
  }

  /** Stores events signed by others without the intake rules (demo history), broadcasting them at its commit. */
  async trusted(events: NostrEvent[]): Promise<void> {
    await this.intake.trusted(events, (out) => this.broadcast(out))
  }

  /** A group's committed record. */
  group(id: string): Promise<GroupRecord | undefined> {
    return this.ctx.store.group(id)
  }

  /** A group's committed record, synchronously (the handle's `state`). */
  state(id: string): GroupRecord | undefined {
    return this.ctx.store.peekGroup(id)
  }
}
