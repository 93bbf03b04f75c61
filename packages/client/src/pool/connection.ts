import type { Subscription } from 'nostr-tools/abstract-relay'
import type { NostrEvent } from 'nostr-tools/core'
import type { Filter } from 'nostr-tools/filter'
import { type AuthDeps, type AuthState, Nip42 } from './auth'
import { type BackoffOptions, Reconnector } from './backoff'
import { type LivenessOptions, watchLiveness } from './liveness'
import { NegentropyError, negentropySession, type ReconcileItem, type ReconcileResult } from './negentropy'
import { PolicyRelay } from './policy-relay'
import { Publisher, type PublishResult } from './publish'
import { Slots } from './slots'
import {
  type LogicalSub,
  logicalSub,
  record,
  requestFilters,
  type SubscriptionHandlers,
} from './subscription'

export type { AuthPolicy, AuthState } from './auth'
export type { PublishResult } from './publish'
export type { SubscriptionHandlers } from './subscription'

/** Everything a connection needs from its pool. */
export interface ConnectionDeps extends AuthDeps {
  websocket: () => Promise<typeof WebSocket>
  verify: () => Promise<(event: NostrEvent) => boolean>
  backoff: BackoffOptions
  random: () => number
  /** Seconds subtracted from the newest `created_at` seen when a subscription resumes. */
  resumeSlack: number
  connectTimeout: number
  eoseTimeout: number
  /** The dead-link probe, or `false` for nostr-tools' own ping alone. */
  liveness: LivenessOptions | false
  /** A socket to the relay opened: it is reachable now. */
  opened?: () => void
}

/**
 * One relay: a nostr-tools `AbstractRelay` underneath, and around it what the pool adds — connect
 * on demand, reconnect with backoff and jitter, resume every subscription with `since`, drop
 * duplicates before parsing, NIP-42 by policy with one retry (`auth.ts`), a deadline on every
 * publish, and a probe that drops a dead socket (`liveness.ts`).
 */
export class Connection {
  private relay: PolicyRelay | undefined
  private connecting: Promise<PolicyRelay> | undefined
  private readonly subs = new Map<string, LogicalSub>()
  private readonly again: Reconnector
  private readonly auth: Nip42
  private closed = false
  private serial = 0
  private notices: { at: number; text: string }[] = []
  private readonly publisher: Publisher
  /** Publishes waiting for a closing socket to be gone, by socket. */
  private readonly goneWaiters = new WeakMap<PolicyRelay, (() => void)[]>()
  private readonly slots = new Slots()

  constructor(
    readonly url: string,
    private readonly deps: ConnectionDeps,
  ) {
    this.again = new Reconnector(deps.backoff, deps.random)
    this.auth = new Nip42(url, deps)
    this.publisher = new Publisher({
      url,
      ensure: () => this.ensure(),
      attempting: () => this.connecting !== undefined,
      authenticate: () => this.authenticate(),
      noticeSince: (ms) => this.notices.filter((n) => n.at >= ms).pop()?.text,
      gone: (relay) => this.gone(relay),
    })
  }

  get authState(): AuthState {
    return this.auth.authState
  }

  /** The last error of a failed AUTH, kept so callers can show it. */
  get authError(): string | undefined {
    return this.auth.error
  }

  get connected(): boolean {
    return this.relay?.connected ?? false
  }

  /** Opens the socket if it is not open (or opening) and resolves when it is. */
  ensure(): Promise<PolicyRelay> {
    if (this.closed) return Promise.reject(new Error('connection closed'))
    if (this.relay?.connected) return Promise.resolve(this.relay)
    if (this.connecting) return this.connecting
    this.again.cancel()
    const attempt = this.open()
    this.connecting = attempt
    attempt.then(
      () => {
        if (this.connecting === attempt) this.connecting = undefined
      },
      () => {
        if (this.connecting === attempt) this.connecting = undefined
        this.scheduleReconnect()
      },
    )
    return attempt
  }

  private async open(): Promise<PolicyRelay> {
    const [WS, verify] = await Promise.all([this.deps.websocket(), this.deps.verify()])
    if (this.closed) throw new Error('connection closed')
    const relay = new PolicyRelay(this.url, {
      verifyEvent: (event) => verify(event),
      websocketImplementation: WS,
      enablePing: this.deps.liveness === false, // nostr-tools' ping, only when our probe is off
    })
    relay.onnotice = (text) => {
      this.notices.push({ at: Date.now(), text })
      if (this.notices.length > 20) this.notices.shift()
    }
    relay.onchallenge = () => this.auth.challenge()
    relay.onclose = () => this.lost(relay)
    this.auth.reset()
    try {
      await relay.connect({ timeout: this.deps.connectTimeout })
    } catch (err) {
      this.lost(relay)
      // nostr-tools rejects with the bare text 'connection failed': say it once
      const detail = String(err instanceof Error ? err.message : err).replace(/^connection failed:? ?/, '')
      throw new Error(detail ? `connection failed: ${detail}` : 'connection failed')
    }
    if (this.closed) {
      relay.close()
      throw new Error('connection closed')
    }
    this.relay = relay
    this.again.succeeded()
    this.deps.opened?.()
    if (this.deps.liveness !== false) watchLiveness(relay, () => this.awaiting(), this.deps.liveness)
    for (const sub of this.subs.values()) {
      if (sub.done) continue
      sub.authRetried = false // a new socket needs a new AUTH, and may retry once again
      this.fire(relay, sub)
    }
    return relay
  }

  /** Whether something sent on the current socket still awaits its answer (for the liveness watch). */
  private awaiting(): boolean {
    if (this.publisher.inFlight > 0 || this.auth.authState === 'authenticating') return true
    for (const sub of this.subs.values()) if (sub.live !== undefined && !sub.eosed) return true
    return false
  }

  /** Resolves once `relay`'s socket has closed (at once when it has). */
  private gone(relay: PolicyRelay): Promise<void> {
    if (!relay.connected) return Promise.resolve()
    return new Promise((resolve) => {
      const waiting = this.goneWaiters.get(relay) ?? []
      waiting.push(resolve)
      this.goneWaiters.set(relay, waiting)
    })
  }

  /** The socket went away (or never opened): forget it, and come back later if anyone listens. */
  private lost(relay: PolicyRelay): void {
    for (const resolve of this.goneWaiters.get(relay) ?? []) resolve()
    this.goneWaiters.delete(relay)
    relay.unwatch?.()
    if (this.relay !== relay && this.relay !== undefined) return
    const wasCurrent = this.relay === relay
    this.relay = undefined
    for (const sub of this.subs.values()) sub.live = undefined
    this.auth.reset()
    if (wasCurrent) this.scheduleReconnect()
  }

  private scheduleReconnect(): void {
    if (this.closed || this.again.pending || this.connecting || this.relay?.connected) return
    if (![...this.subs.values()].some((s) => !s.done)) return
    this.again.schedule(() => this.ensure().catch(() => {}))
  }

  private fire(relay: PolicyRelay, sub: LogicalSub): void {
    const filters = requestFilters(sub, this.deps.resumeSlack)
    if (sub.fired) sub.handlers.onresume?.()
    sub.fired = true
    sub.eosed = false
    const live: Subscription = relay.subscribe(filters, {
      id: sub.id,
      eoseTimeout: this.deps.eoseTimeout,
      alreadyHaveEvent: (id) => {
        const createdAt = sub.seen.get(id)
        if (createdAt === undefined) return false
        if (!sub.done) sub.handlers.onrepeat?.(id, createdAt)
        return true
      },
      onevent: (event) => {
        if (!sub.done && record(sub, event)) sub.handlers.onevent(event)
      },
      oneose: () => {
        if (sub.live !== live || sub.eosed) return
        sub.eosed = true
        if (!relay.answeringEose) sub.handlers.oneoseTimeout?.()
        sub.handlers.oneose?.()
      },
      onclose: (reason) => {
        if (sub.live !== live) return // a reconnect or our own close
        sub.live = undefined
        void this.relayClosed(sub, reason)
      },
    })
    sub.live = live
  }

  private async relayClosed(sub: LogicalSub, reason: string): Promise<void> {
    if (sub.done) return
    // A relay shutting down ends its subscriptions before its socket (a restart, a rolling deploy
    // behind a load balancer): this one resumes on the next connection, like any dropped socket.
    if (reason.startsWith('error: shutting down')) return
    if (reason.startsWith('auth-required:') && !sub.authRetried) {
      sub.authRetried = true
      if (await this.authenticate()) {
        const relay = this.relay
        if (relay?.connected && !sub.done) {
          // Re-issue as a fresh request, not a resume: nothing was delivered before the refusal.
          sub.fired = false
          this.fire(relay, sub)
          return
        }
      }
    }
    sub.done = true
    this.subs.delete(sub.id)
    sub.handlers.onclosed?.(reason)
  }

  /** Subscribes (connecting on demand); the subscription survives reconnects until closed. */
  subscribe(filters: Filter[], handlers: SubscriptionHandlers, id?: string): { close(): void; id: string } {
    const subId = id ?? `sub:${++this.serial}`
    this.subs.get(subId)?.live?.close()
    const sub = logicalSub(subId, filters, handlers)
    this.subs.set(subId, sub)
    if (this.relay?.connected) this.fire(this.relay, sub)
    else
      this.ensure().catch(() => {
        // The reconnect timer keeps trying; the caller sees events once the relay is back.
      })
    return {
      id: subId,
      close: () => {
        if (sub.done) return
        sub.done = true
        if (this.subs.get(subId) === sub) this.subs.delete(subId)
        const live = sub.live
        sub.live = undefined
        live?.close()
      },
    }
  }

  /**
   * A slot for a one-shot query. Relays cap subscriptions per connection (50 here, 20 on strfry),
   * and a start with many groups would otherwise open two REQs per group at once; standing
   * subscriptions are not queued. Resolves with the release function.
   */
  oneShot(limit: number): Promise<() => void> {
    return this.slots.take(limit)
  }

  /**
   * One NIP-77 reconciliation of `items` against the relay's events for `filter` (connecting on
   * demand); on `auth-required:` it authenticates per the policy and tries once more.
   */
  async reconcile(
    filter: Filter,
    items: readonly ReconcileItem[],
    timeoutMs: number,
  ): Promise<ReconcileResult> {
    for (let attempt = 0; ; attempt++) {
      const relay = await this.ensure()
      try {
        return await negentropySession(relay, `neg:${++this.serial}`, filter, items, timeoutMs)
      } catch (err) {
        const retry =
          attempt === 0 && err instanceof NegentropyError && err.reason.startsWith('auth-required:')
        if (!retry || !(await this.authenticate())) throw err
      }
    }
  }

  /** Answers the relay's NIP-42 challenge if the policy allows; true when authenticated. */
  authenticate(): Promise<boolean> {
    return this.auth.authenticate(this.relay, () => this.relay)
  }

  /** Sends an event and resolves with the relay's verdict; never rejects, never hangs. */
  publish(event: NostrEvent, timeoutMs: number): Promise<PublishResult> {
    return this.publisher.publish(event, timeoutMs)
  }

  /**
   * Drops the socket at once, without closing subscriptions (they resume on reconnect) and
   * without a closing handshake. For fault tests and "reconnect now".
   */
  drop(): void {
    this.relay?.abandon('relay connection dropped')
  }

  close(): void {
    this.closed = true
    this.again.cancel()
    for (const sub of this.subs.values()) sub.done = true
    this.subs.clear()
    const relay = this.relay
    this.relay = undefined
    relay?.unwatch?.()
    relay?.close()
    this.auth.wake()
    this.slots.openAll()
  }
}
