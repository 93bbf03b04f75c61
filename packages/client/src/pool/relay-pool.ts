import { normalizeRelayUrl } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { Filter } from 'nostr-tools/filter'
import { ClosedError } from '../errors'
import type { Signer } from '../signers'
import { defaultWebSocket, heardErrors } from '../socket/websocket'
import { createVerifier, type Verifier } from '../verify'
import type { BackoffOptions } from './backoff'
import {
  type AuthPolicy,
  type AuthState,
  Connection,
  type PublishResult,
  type SubscriptionHandlers,
} from './connection'
import type { LivenessOptions } from './liveness'
import type { ReconcileItem, ReconcileResult } from './negentropy'
import { fetchRelayInfo, type RelayInfo } from './nip11'
import { RelayClocks } from './relay-clock'

export type { AuthPolicy, AuthState, PublishResult, SubscriptionHandlers } from './connection'

/**
 * How a {@link RelayPool} connects: the WebSocket constructor, verification, NIP-42 signing and
 * policy, timeouts and reconnect backoff. All optional; `createRoost` takes them as `pool`.
 *
 * @example
 * const pool = new RelayPool({ websocket: WebSocket, signer, publishTimeout: 10_000 })
 */
export interface RelayPoolOptions {
  /** WebSocket constructor; default the global one, else `ws` (loaded lazily, Node only). */
  websocket?: typeof WebSocket
  /** Verifies id and signature of every event from a relay, once; default `createVerifier()`. */
  verifier?: Verifier
  /** Signs NIP-42 AUTH events. Without one, the pool never authenticates. */
  signer?: Signer
  /** NIP-42 policy per relay (default `always`: authenticate when a relay asks for it). */
  authPolicy?: (relay: string) => AuthPolicy
  /** Asked when the policy for a relay is `ask`; resolve true to authenticate. */
  askAuth?: (relay: string) => Promise<boolean>
  /** Deadline for every publish, in ms (default 10 000). */
  publishTimeout?: number
  /** Unix seconds (default the system clock). */
  clock?: () => number
  /** Reconnect backoff (default 500 ms doubling to 30 s, with jitter). */
  backoff?: BackoffOptions
  /** Randomness for backoff jitter (default `Math.random`). */
  random?: () => number
  /** Seconds of overlap when a subscription resumes after a reconnect (default 60). */
  resumeSlack?: number
  /** fetch() for NIP-11 documents (default the global fetch). */
  fetch?: typeof fetch
  /** Connect timeout in ms (default 7 000). */
  connectTimeout?: number
  /** How long a subscription waits for EOSE before it counts as settled, in ms (default 8 000). */
  eoseTimeout?: number
  /** One-shot queries (`fetch`) in flight per relay; more wait their turn (default 8). */
  maxConcurrentFetches?: number
  /** Called when a relay's NIP-42 state changes. */
  onAuthState?: (relay: string, state: AuthState) => void
  /**
   * How a dead socket is noticed (a network that black-holed, then came back, leaves one open and
   * silent): a send or REQ unanswered for `quietMs` (3 s) with nothing heard from the relay, or a
   * link quiet for `idleMs` (29 s), sends a probe REQ for no events; no answer within
   * `probeTimeoutMs` (5 s) drops the socket and the pool reconnects with its backoff, resuming
   * every subscription. Inject `now` and `timers` to move its clock in tests. `false`: no probe,
   * only nostr-tools' ping (29 s, 20 s to answer, then a graceful close that can take 30 s more).
   */
  liveness?: LivenessOptions | false
}

/**
 * The relay pool: one connection per relay (nostr-tools' `AbstractRelay` underneath), opened on
 * demand, reconnected with backoff and jitter, with subscriptions that resume from the newest
 * event seen (minus a slack) so nothing sent during an outage is missed. Every event is verified
 * once and delivered once per subscription; every publish resolves with the relay's verdict or a
 * timeout. NIP-42 is answered per the relay's policy, retrying the refused REQ or EVENT once.
 *
 * @example
 * const pool = new RelayPool({ signer })
 * const sub = pool.subscribe('wss://groups.example.com', [{ '#h': ['general'], limit: 50 }], {
 *   onevent: (e) => console.log(e.content),
 * }, { id: 'grp-1a2b3c4d' })
 * const [result] = await pool.publish(['wss://groups.example.com'], signedEvent)
 * if (!result.ok) console.warn(result.message)
 * sub.close()
 * pool.close()
 */
export class RelayPool {
  private readonly connections = new Map<string, Connection>()
  private readonly infos = new Map<string, Promise<RelayInfo | undefined>>()
  /** Relays whose NIP-11 fetch failed: asked again once a socket to them opens. */
  private readonly infoFailed = new Set<string>()
  private verifier: Promise<Verifier> | undefined
  private wsCtor: Promise<typeof WebSocket> | undefined
  private closed = false
  /** Milliseconds a publish waits for the relay's OK (the `publishTimeout` option). */
  readonly publishTimeout: number
  /** Unix seconds: the `clock` option, or the system clock. */
  readonly clock: () => number
  /** How far our clock runs ahead of each relay's (from its NIP-11 `Date` and what it signs). */
  readonly relayClocks = new RelayClocks()

  constructor(private readonly opts: RelayPoolOptions = {}) {
    this.publishTimeout = opts.publishTimeout ?? 10_000
    this.clock = opts.clock ?? (() => Math.floor(Date.now() / 1000))
    if (opts.verifier) this.verifier = Promise.resolve(opts.verifier)
    if (opts.websocket) this.wsCtor = Promise.resolve(heardErrors(opts.websocket))
  }

  private websocket(): Promise<typeof WebSocket> {
    this.wsCtor ??= defaultWebSocket().then(heardErrors)
    return this.wsCtor
  }

  private verify(): Promise<Verifier> {
    this.verifier ??= createVerifier()
    return this.verifier
  }

  /** The connection for a relay (normalized URL), created on first use. */
  private connection(relay: string): Connection {
    if (this.closed) throw new ClosedError('RelayPool')
    const url = normalizeRelayUrl(relay)
    let conn = this.connections.get(url)
    if (!conn) {
      const signer = this.opts.signer
      conn = new Connection(url, {
        websocket: () => this.websocket(),
        verify: async () => {
          const v = await this.verify()
          return (e) => v.verify(e)
        },
        sign: signer ? (t) => signer.signEvent(t) : undefined,
        authPolicy: this.opts.authPolicy?.(url) ?? 'always',
        askAuth: this.opts.askAuth,
        backoff: this.opts.backoff ?? {},
        random: this.opts.random ?? Math.random,
        resumeSlack: this.opts.resumeSlack ?? 60,
        connectTimeout: this.opts.connectTimeout ?? 7_000,
        eoseTimeout: this.opts.eoseTimeout ?? 8_000,
        authTimeout: Math.min(this.publishTimeout, 10_000),
        onAuthState: this.opts.onAuthState,
        liveness: this.opts.liveness ?? {},
        opened: () => this.reachable(url),
      })
      this.connections.set(url, conn)
    }
    return conn
  }

  /**
   * A standing subscription on one relay. It survives reconnects (resuming with `since`) until
   * `close()` or until the relay ends it with CLOSED (then `onclosed` gets the relay's text, after
   * one AUTH-and-retry when the text starts with `auth-required:`; a CLOSED `error: shutting down`
   * is a relay going away and resumes on the next connection instead).
   *
   * @example
   * const sub = pool.subscribe(relay, [group.id.timelineFilter(100)], { onevent, oneose }, { id: 'grp-00ff00ff' })
   */
  subscribe(
    relay: string,
    filters: Filter[],
    handlers: SubscriptionHandlers,
    opts: { id?: string } = {},
  ): {
    /** Ends the subscription (sends CLOSE); no handler is called after this. */
    close(): void
  } {
    return this.connection(relay).subscribe(filters, handlers, opts.id)
  }

  /**
   * One-shot query: events from every relay until each sent EOSE, ended the request, or the
   * timeout passed (default 5 s). Deduplicated by id. `eose` hears each relay that answered in full
   * (so an empty answer can be told from an unreachable relay).
   *
   * @example
   * const [meta] = await pool.fetch([relay], [{ kinds: [39000], '#d': ['general'], limit: 1 }])
   */
  async fetch(
    relays: string[],
    filters: Filter[],
    opts: { timeout?: number; eose?: (relay: string) => void } = {},
  ): Promise<NostrEvent[]> {
    const byId = new Map<string, NostrEvent>()
    const timeout = opts.timeout ?? 5_000
    await Promise.all(
      relays.map(async (relay) => {
        // An unreachable relay answers at once (nothing), instead of holding the caller until the timeout.
        let conn: Connection
        try {
          conn = this.connection(relay)
          await withTimeout(conn.ensure(), timeout)
        } catch {
          return
        }
        const release = await conn.oneShot(this.opts.maxConcurrentFetches ?? 8)
        await new Promise<void>((resolve) => {
          let sub: { close(): void } | undefined
          let settled = false
          const done = () => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            sub?.close()
            resolve()
          }
          const timer = setTimeout(done, timeout)
          let timedOut = false
          sub = conn.subscribe(filters, {
            onevent: (e) => {
              if (!byId.has(e.id)) byId.set(e.id, e)
            },
            oneoseTimeout: () => {
              timedOut = true
            },
            oneose: () => {
              if (!settled && !timedOut) opts.eose?.(relay)
              done()
            },
            onclosed: done,
          })
          if (settled) sub.close()
        }).finally(release)
      }),
    )
    return [...byId.values()]
  }

  /**
   * Whether the relay speaks NIP-77 (its NIP-11 `supported_nips` lists 77), as Flotilla decides.
   *
   * @example
   * if (await pool.supportsNegentropy(relay)) await pool.reconcile(relay, filter, items)
   */
  async supportsNegentropy(relay: string): Promise<boolean> {
    const nips = (await this.relayInfo(relay))?.supported_nips
    return Array.isArray(nips) && nips.includes(77)
  }

  /**
   * NIP-77: reconciles the items we hold with the relay's events for one filter, transferring
   * fingerprints and ids, never events. Resolves with the ids only we have and the ids only the
   * relay has; rejects with `NegentropyError` (the relay's NEG-ERR text, a timeout per answer,
   * default 10 s, or a lost connection). Authenticates and retries once on `auth-required:`.
   *
   * @example
   * const { need, have } = await pool.reconcile(relay, { '#h': ['general'], since }, cached)
   * const missing = await pool.fetch([relay], [{ ids: need }])
   */
  reconcile(
    relay: string,
    filter: Filter,
    items: readonly ReconcileItem[],
    opts: { timeout?: number } = {},
  ): Promise<ReconcileResult> {
    return this.connection(relay).reconcile(filter, items, opts.timeout ?? 10_000)
  }

  /**
   * Publishes one signed event to each relay. One result per relay, in order: `ok` with the
   * relay's text, refused with the relay's text, or `timedOut` (default 10 s). Never rejects.
   *
   * @example
   * const [r] = await pool.publish([relay], event, { timeout: 3000 })
   * if (r.timedOut) console.warn('no answer from', r.relay)
   */
  async publish(
    relays: string[],
    event: NostrEvent,
    opts: { timeout?: number } = {},
  ): Promise<PublishResult[]> {
    const timeout = opts.timeout ?? this.publishTimeout
    return Promise.all(
      relays.map(async (relay) => {
        let conn: Connection
        try {
          conn = this.connection(relay)
        } catch (err) {
          return {
            ok: false,
            relay,
            failure: 'unreachable' as const,
            message: err instanceof Error ? err.message : String(err),
          }
        }
        return conn.publish(event, timeout)
      }),
    )
  }

  /**
   * The relay's NIP-11 document, fetched once per relay (a failed fetch is remembered too, as
   * `undefined`, until a socket to the relay opens). The NIP-29 relay key is `info.self ?? info.pubkey`.
   *
   * @example
   * const info = await pool.relayInfo('wss://groups.example.com')
   */
  relayInfo(relay: string): Promise<RelayInfo | undefined> {
    const url = normalizeRelayUrl(relay)
    let info = this.infos.get(url)
    if (!info) {
      const fetched = fetchRelayInfo(url, this.opts.fetch ?? globalThis.fetch, 5_000, (relayAt) =>
        this.relayClocks.observe(url, relayAt, this.clock()),
      )
      info = fetched
      this.infos.set(url, fetched)
      void fetched.then((doc) => {
        if (doc === undefined && this.infos.get(url) === fetched) this.infoFailed.add(url)
      })
    }
    return info
  }

  /**
   * A socket to the relay opened. When its NIP-11 fetch failed (we started offline) and its clock
   * is not known, it is fetched again: a device whose clock runs ahead dates its sends by the
   * relay's clock from then on, not by its own (refused, or sorted after what others write next).
   */
  private reachable(url: string): void {
    if (!this.infoFailed.has(url) || this.relayClocks.ahead(url) !== undefined) return
    this.infoFailed.delete(url)
    this.infos.delete(url)
    void this.relayInfo(url)
  }

  /**
   * Seconds to add to our clock to date an event for this relay: negative when our clock runs
   * ahead of the relay's (as its NIP-11 answer or what it signed told), else 0.
   *
   * @example const createdAt = pool.clock() + pool.clockOffset(relay)
   */
  clockOffset(relay: string): number {
    return this.relayClocks.offset(normalizeRelayUrl(relay))
  }

  /**
   * The relay signed an event at `relayAt` (Unix seconds) that reached us live, just now: its
   * clock, against ours, for {@link clockOffset}.
   */
  observeRelayTime(relay: string, relayAt: number): void {
    this.relayClocks.observe(normalizeRelayUrl(relay), relayAt, this.clock())
  }

  /**
   * NIP-42 state of a relay's current connection: `none` until it challenges, then `challenged`,
   * `authenticating`, `authenticated` or `failed` (see `authError`).
   */
  authState(relay: string): AuthState {
    return this.connections.get(normalizeRelayUrl(relay))?.authState ?? 'none'
  }

  /** The relay's last AUTH failure text, if the last AUTH failed. */
  authError(relay: string): string | undefined {
    return this.connections.get(normalizeRelayUrl(relay))?.authError
  }

  /** Authenticates to a relay now (per its policy); true when authenticated. */
  async authenticate(relay: string): Promise<boolean> {
    const conn = this.connection(relay)
    await conn.ensure()
    return conn.authenticate()
  }

  /** Whether the pool currently holds an open socket to the relay. */
  connected(relay: string): boolean {
    return this.connections.get(normalizeRelayUrl(relay))?.connected ?? false
  }

  /**
   * Drops the socket to a relay at once, as if the network failed (no closing handshake);
   * subscriptions resume on reconnect. Meant for fault-injection tests and "reconnect now" buttons.
   */
  disconnect(relay: string): void {
    this.connections.get(normalizeRelayUrl(relay))?.drop()
  }

  /** Closes every connection and subscription; the pool cannot be used afterwards. */
  close(): void {
    this.closed = true
    for (const conn of this.connections.values()) conn.close()
    this.connections.clear()
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}
