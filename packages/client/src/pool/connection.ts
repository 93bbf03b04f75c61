import { AbstractRelay, type Subscription } from 'nostr-tools/abstract-relay'
import type { NostrEvent, VerifiedEvent } from 'nostr-tools/core'
import { type Filter, matchFilter } from 'nostr-tools/filter'
import { type BackoffOptions, backoffDelay } from './backoff'

/** NIP-42 state of one relay connection, as `RelayPool.authState` reports it. */
export type AuthState = 'none' | 'challenged' | 'authenticating' | 'authenticated' | 'failed'

/** What a relay's NIP-42 challenge may be answered with. */
export type AuthPolicy = 'always' | 'ask' | 'never'

/** Handlers of one subscription. Events arrive verified and once per subscription. */
export interface SubscriptionHandlers {
  onevent(event: NostrEvent): void
  oneose?(): void
  /** The relay ended the subscription (CLOSED) with this text; it will not be resumed. */
  onclosed?(reason: string): void
}

export interface PublishResult {
  ok: boolean
  relay: string
  /** The relay's OK text, or what went wrong ('timed out …', 'connection failed …'). */
  message: string
  timedOut?: boolean
  /** Why `ok` is false: the relay said no, it never answered, or we could not reach it. */
  failure?: 'refused' | 'timeout' | 'unreachable' | 'auth'
}

/** Everything a connection needs from its pool. */
export interface ConnectionDeps {
  websocket: () => Promise<typeof WebSocket>
  verify: () => Promise<(event: NostrEvent) => boolean>
  sign?: (template: {
    kind: number
    created_at: number
    tags: string[][]
    content: string
  }) => Promise<VerifiedEvent>
  authPolicy: AuthPolicy
  askAuth?: (relay: string) => Promise<boolean>
  backoff: BackoffOptions
  random: () => number
  /** Seconds subtracted from the newest `created_at` seen when a subscription resumes. */
  resumeSlack: number
  connectTimeout: number
  eoseTimeout: number
  authTimeout: number
  onAuthState?: (relay: string, state: AuthState) => void
}

interface LogicalSub {
  id: string
  filters: Filter[]
  handlers: SubscriptionHandlers
  /** Newest created_at seen per filter, for `since` on resume. */
  newest: (number | undefined)[]
  seen: Set<string>
  live: Subscription | undefined
  /** True once the subscription has been sent at least once (a later send is a resume). */
  fired: boolean
  authRetried: boolean
  eosed: boolean
  done: boolean
}

/**
 * nostr-tools' relay, plus a hook when an AUTH challenge arrives (the base class keeps the
 * challenge private and only offers `onauth`, which authenticates unconditionally).
 */
class PolicyRelay extends AbstractRelay {
  onchallenge: (() => void) | undefined
  override _onmessage(ev: MessageEvent): void {
    super._onmessage(ev)
    if (typeof ev.data === 'string' && /^\s*\[\s*"AUTH"/.test(ev.data)) this.onchallenge?.()
  }
}

/**
 * One relay: a nostr-tools `AbstractRelay` underneath, and around it what the pool adds — connect
 * on demand, reconnect with backoff and jitter, resume every subscription with `since`, drop
 * duplicates before parsing, NIP-42 by policy with one retry, and a deadline on every publish.
 */
export class Connection {
  private relay: PolicyRelay | undefined
  private connecting: Promise<PolicyRelay> | undefined
  private readonly subs = new Map<string, LogicalSub>()
  private attempts = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private closed = false
  private serial = 0
  private challenged = false
  private challengeWaiters: (() => void)[] = []
  private auth: AuthState = 'none'
  private notices: { at: number; text: string }[] = []
  /** The last error of a failed AUTH, kept so callers can show it. */
  authError: string | undefined
  private oneShots = 0
  private readonly oneShotQueue: (() => void)[] = []

  constructor(
    readonly url: string,
    private readonly deps: ConnectionDeps,
  ) {}

  get authState(): AuthState {
    return this.auth
  }

  get connected(): boolean {
    return this.relay?.connected ?? false
  }

  private setAuth(state: AuthState): void {
    if (this.auth === state) return
    this.auth = state
    this.deps.onAuthState?.(this.url, state)
  }

  /** Opens the socket if it is not open (or opening) and resolves when it is. */
  ensure(): Promise<PolicyRelay> {
    if (this.closed) return Promise.reject(new Error('connection closed'))
    if (this.relay?.connected) return Promise.resolve(this.relay)
    if (this.connecting) return this.connecting
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
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
      enablePing: true,
    })
    relay.onnotice = (text) => {
      this.notices.push({ at: Date.now(), text })
      if (this.notices.length > 20) this.notices.shift()
    }
    relay.onchallenge = () => {
      this.challenged = true
      if (this.auth === 'none') this.setAuth('challenged')
      for (const w of this.challengeWaiters.splice(0)) w()
    }
    relay.onclose = () => this.lost(relay)
    this.challenged = false
    this.setAuth('none')
    try {
      await relay.connect({ timeout: this.deps.connectTimeout })
    } catch (err) {
      this.lost(relay)
      throw new Error(`connection failed: ${String(err instanceof Error ? err.message : err)}`)
    }
    if (this.closed) {
      relay.close()
      throw new Error('connection closed')
    }
    this.relay = relay
    this.attempts = 0
    for (const sub of this.subs.values()) {
      if (sub.done) continue
      sub.authRetried = false // a new socket needs a new AUTH, and may retry once again
      this.fire(relay, sub)
    }
    return relay
  }

  /** The socket went away (or never opened): forget it, and come back later if anyone listens. */
  private lost(relay: PolicyRelay): void {
    if (this.relay !== relay && this.relay !== undefined) return
    const wasCurrent = this.relay === relay
    this.relay = undefined
    for (const sub of this.subs.values()) sub.live = undefined
    this.challenged = false
    if (this.auth !== 'none') this.setAuth('none')
    if (wasCurrent) this.scheduleReconnect()
  }

  private scheduleReconnect(): void {
    if (this.closed || this.timer || this.connecting || this.relay?.connected) return
    if (![...this.subs.values()].some((s) => !s.done)) return
    const delay = backoffDelay(this.attempts++, this.deps.backoff, this.deps.random)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.ensure().catch(() => {})
    }, delay)
  }

  private fire(relay: PolicyRelay, sub: LogicalSub): void {
    const resume = sub.fired
    sub.fired = true
    sub.eosed = false
    const filters = sub.filters.map((f, i) => {
      const newest = sub.newest[i]
      if (!resume || newest === undefined) return f
      // Resume from just before the newest event seen, without the limit, so a burst sent while
      // we were away is not cut to the newest `limit`. Duplicates are dropped by `seen`.
      const { limit: _limit, ...rest } = f
      return { ...rest, since: Math.max(f.since ?? 0, newest - this.deps.resumeSlack) }
    })
    const live: Subscription = relay.subscribe(filters, {
      id: sub.id,
      eoseTimeout: this.deps.eoseTimeout,
      alreadyHaveEvent: (id) => sub.seen.has(id),
      onevent: (event) => this.deliver(sub, event),
      oneose: () => {
        if (sub.live !== live || sub.eosed) return
        sub.eosed = true
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

  private deliver(sub: LogicalSub, event: NostrEvent): void {
    if (sub.done || sub.seen.has(event.id)) return
    sub.seen.add(event.id)
    for (let i = 0; i < sub.filters.length; i++) {
      const f = sub.filters[i]!
      if (matchFilter(f, event)) {
        const n = sub.newest[i]
        if (n === undefined || event.created_at > n) sub.newest[i] = event.created_at
      }
    }
    sub.handlers.onevent(event)
  }

  private async relayClosed(sub: LogicalSub, reason: string): Promise<void> {
    if (sub.done) return
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
    const sub: LogicalSub = {
      id: subId,
      filters,
      handlers,
      newest: filters.map(() => undefined),
      seen: new Set(),
      live: undefined,
      fired: false,
      authRetried: false,
      eosed: false,
      done: false,
    }
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
  async oneShot(limit: number): Promise<() => void> {
    if (this.oneShots >= limit) await new Promise<void>((resolve) => this.oneShotQueue.push(resolve))
    this.oneShots++
    let released = false
    return () => {
      if (released) return
      released = true
      this.oneShots--
      this.oneShotQueue.shift()?.()
    }
  }

  /** Answers the relay's NIP-42 challenge if the policy allows; true when authenticated. */
  async authenticate(): Promise<boolean> {
    const relay = this.relay
    if (!relay || !this.deps.sign) return false
    if (this.auth === 'authenticated') return true
    const policy = this.deps.authPolicy
    if (policy === 'never') return false
    if (policy === 'ask' && !(await this.deps.askAuth?.(this.url))) return false
    if (!this.challenged) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.deps.authTimeout)
        this.challengeWaiters.push(() => {
          clearTimeout(t)
          resolve()
        })
      })
      if (!this.challenged || this.relay !== relay) return false
    }
    this.setAuth('authenticating')
    const sign = this.deps.sign
    relay.publishTimeout = this.deps.authTimeout
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      // nostr-tools' auth() never settles if signing throws, hence the race with a deadline.
      await Promise.race([
        relay.auth((t) => sign(t)),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('auth timed out')), this.deps.authTimeout + 50)
        }),
      ])
      this.authError = undefined
      this.setAuth('authenticated')
      return true
    } catch (err) {
      this.authError = err instanceof Error ? err.message : String(err)
      this.setAuth('failed')
      return false
    } finally {
      clearTimeout(timer)
    }
  }

  /** Sends an event and resolves with the relay's verdict; never rejects, never hangs. */
  async publish(event: NostrEvent, timeoutMs: number): Promise<PublishResult> {
    const started = Date.now()
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<PublishResult>((resolve) => {
      timer = setTimeout(() => {
        const notice = this.notices.filter((n) => n.at >= started).pop()?.text
        resolve({
          ok: false,
          relay: this.url,
          timedOut: true,
          failure: 'timeout',
          message: `timed out after ${timeoutMs} ms${notice ? `; NOTICE: ${notice}` : ''}`,
        })
      }, timeoutMs)
    })
    try {
      return await Promise.race([deadline, this.send(event, timeoutMs, {})])
    } finally {
      clearTimeout(timer)
    }
  }

  private async send(
    event: NostrEvent,
    timeoutMs: number,
    retried: { auth?: boolean; connection?: boolean },
  ): Promise<PublishResult> {
    let relay: PolicyRelay
    try {
      relay = await this.ensure()
    } catch (err) {
      return { ok: false, relay: this.url, failure: 'unreachable', message: errorText(err) }
    }
    // Our own deadline fires first; the base class's timer only cleans up after it.
    relay.publishTimeout = timeoutMs + 1000
    try {
      const message = await relay.publish(event)
      return { ok: true, relay: this.url, message: message ?? '' }
    } catch (err) {
      const message = errorText(err)
      if (message.startsWith('auth-required:') && !retried.auth) {
        if (await this.authenticate()) return this.send(event, timeoutMs, { ...retried, auth: true })
        return { ok: false, relay: this.url, failure: 'auth', message }
      }
      if (message === 'publish timed out') return new Promise(() => {}) // the deadline answers
      if (/^relay connection|^Tried to send message/.test(message)) {
        // The socket died under the event. Sending the same signed event again is harmless.
        if (!retried.connection) return this.send(event, timeoutMs, { ...retried, connection: true })
        return { ok: false, relay: this.url, failure: 'unreachable', message }
      }
      if (retried.connection && message.startsWith('duplicate:'))
        return { ok: true, relay: this.url, message }
      return { ok: false, relay: this.url, failure: 'refused', message }
    }
  }

  /** Drops the socket without closing subscriptions (they resume on reconnect). For fault tests. */
  drop(): void {
    ;(this.relay as unknown as { ws?: { close(): void } } | undefined)?.ws?.close()
  }

  close(): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    for (const sub of this.subs.values()) sub.done = true
    this.subs.clear()
    const relay = this.relay
    this.relay = undefined
    relay?.close()
    for (const w of this.challengeWaiters.splice(0)) w()
    for (const w of this.oneShotQueue.splice(0)) w()
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}
