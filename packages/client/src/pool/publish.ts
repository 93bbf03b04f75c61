import type { NostrEvent } from 'nostr-tools/core'
import type { PolicyRelay } from './policy-relay'

/**
 * One relay's answer to a publish: publishing never rejects, it resolves with one of these per
 * relay, so a caller checks `ok` (and `failure` for why not).
 *
 * @example
 * const [result] = await pool.publish(['wss://groups.example.com'], event)
 * if (!result.ok) console.warn(result.relay, result.failure, result.message)
 */
export interface PublishResult {
  /** True when the relay stored the event (its OK said true). */
  ok: boolean
  /** The relay's URL. */
  relay: string
  /** The relay's OK text, or what went wrong ('timed out …', 'connection failed …'). */
  message: string
  /** True when the relay did not answer in time (`failure` is then `'timeout'`). */
  timedOut?: boolean
  /** Why `ok` is false: the relay said no, it never answered, or we could not reach it. */
  failure?: 'refused' | 'timeout' | 'unreachable' | 'auth'
}

/** What a publish needs from its connection. */
export interface PublishLink {
  readonly url: string
  /** The open socket, connecting if need be. */
  ensure(): Promise<PolicyRelay>
  /** A connection attempt is under way (one `ensure` would join rather than begin). */
  attempting(): boolean
  /** NIP-42 by the connection's policy; true when authenticated. */
  authenticate(): Promise<boolean>
  /** The newest NOTICE the relay sent since `ms` (epoch milliseconds). */
  noticeSince(ms: number): string | undefined
  /** Resolves once `relay`'s socket has closed (at once when it has). */
  gone(relay: PolicyRelay): Promise<void>
}

/**
 * The publishes of one connection: each gets the relay's verdict or a timeout, an AUTH and one
 * retry on `auth-required:`, and the same signed event once more when the socket dies under it or
 * the relay refuses it because it is shutting down (then on its next connection).
 *
 * @example
 * const publisher = new Publisher({ url, ensure, attempting, authenticate, noticeSince, gone })
 * const result = await publisher.publish(event, 10_000) // { ok, relay, message, failure? }
 */
export class Publisher {
  /** Publishes waiting for the relay's OK on the current socket. */
  inFlight = 0

  constructor(private readonly link: PublishLink) {}

  /** Sends an event and resolves with the relay's verdict; never rejects, never hangs. */
  async publish(event: NostrEvent, timeoutMs: number): Promise<PublishResult> {
    const started = Date.now()
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<PublishResult>((resolve) => {
      timer = setTimeout(() => {
        const notice = this.link.noticeSince(started)
        resolve({
          ok: false,
          relay: this.link.url,
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
    // An attempt joined may have begun before the relay was back (a reconnect under backoff, while
    // it restarted): when it fails, one attempt of this send's own decides.
    const joined = this.link.attempting()
    try {
      relay = await this.link.ensure()
    } catch (err) {
      if (joined && !retried.connection) return this.send(event, timeoutMs, { ...retried, connection: true })
      return { ok: false, relay: this.link.url, failure: 'unreachable', message: errorText(err) }
    }
    // Our own deadline fires first; the base class's timer only cleans up after it.
    relay.publishTimeout = timeoutMs + 1000
    this.inFlight++
    try {
      const message = await relay.publish(event)
      return { ok: true, relay: this.link.url, message: message ?? '' }
    } catch (err) {
      const message = errorText(err)
      if (message.startsWith('auth-required:') && !retried.auth) {
        if (await this.link.authenticate()) return this.send(event, timeoutMs, { ...retried, auth: true })
        return { ok: false, relay: this.link.url, failure: 'auth', message }
      }
      if (message === 'publish timed out') return new Promise(() => {}) // the deadline answers
      if (message.startsWith('error: shutting down') && !retried.connection) {
        // The relay is going away (a restart, a rolling deploy): once its socket has closed, the
        // same signed event goes on the next connection.
        await this.link.gone(relay)
        return this.send(event, timeoutMs, { ...retried, connection: true })
      }
      if (/^relay connection|^Tried to send message/.test(message)) {
        // The socket died under the event. Sending the same signed event again is harmless.
        if (!retried.connection) return this.send(event, timeoutMs, { ...retried, connection: true })
        return { ok: false, relay: this.link.url, failure: 'unreachable', message }
      }
      if (retried.connection && message.startsWith('duplicate:'))
        return { ok: true, relay: this.link.url, message }
      return { ok: false, relay: this.link.url, failure: 'refused', message }
    } finally {
      this.inFlight--
    }
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}
