import { isPreviousRefusal, refusalWantsNewEvent } from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'
import type {
  AuthRequiredError,
  PublishRefusedError,
  PublishTimeoutError,
  RelayUnreachableError,
} from '../errors'
import type { PublishResult } from '../pool'
import { publishError } from './publish-errors'

/** Why a send failed: the relay's refusal, AUTH we could not do, or the signer's error. */
export type SendFailure = PublishRefusedError | AuthRequiredError | Error

/**
 * Where one send stands. `sending`: on its way. `sent`: the relay took it (an OK, a `duplicate:`,
 * or the event found on the relay). `failed`: the relay refused it (its text in `reason`; `resign`
 * says whether {@link OutgoingSend.retry} will sign a new event) or it could not be signed or sent.
 * `unknown`: no answer came in time, or the link broke and could not be opened again (the event may
 * have left on the socket that died); either way it may well be stored. An unknown send is never
 * dropped: it turns `sent` when the relay's copy shows (its live echo, a look-up by id after a
 * delay or a reconnect), or is sent again as the same signed event when the relay has no copy.
 */
export type SendState =
  | {
      /** On its way: being signed, or sent and awaiting the relay's OK. */
      readonly status: 'sending'
      /** The signed event; undefined while it is still being signed. */
      readonly event?: NostrEvent
    }
  | {
      /** The relay has it. */
      readonly status: 'sent'
      /** The signed event the relay took. */
      readonly event: NostrEvent
    }
  | {
      /** No answer; the event may be stored (it is checked again by itself). */
      readonly status: 'unknown'
      /** The signed event that left. */
      readonly event: NostrEvent
      /** No OK in time, or the socket died under the event and no new one could be opened. */
      readonly error: PublishTimeoutError | RelayUnreachableError
    }
  | {
      /** Refused by the relay, or not signed or sent. */
      readonly status: 'failed'
      /** Absent when the event could not even be signed. */
      readonly event?: NostrEvent
      /** The refusal as a typed error, or the signer's own error. */
      readonly error: SendFailure
      /** The relay's text (`restricted: not a member`), or the error's message. */
      readonly reason: string
      /** True when a retry signs a new event (`previous` or `created_at` refusals, unsigned). */
      readonly resign: boolean
    }

/** What a send needs from its group's publisher. */
export interface SendLink {
  readonly timeout: number
  /** First wait before an unknown send is looked up on the relay, in ms (doubles up to 30 s). */
  readonly recheckMs: number
  sign(template: EventTemplate): Promise<NostrEvent>
  /** The `previous` tag to use now, less the ids the relay said it does not know. */
  previous(without?: readonly string[]): string[] | undefined
  refreshWindow(): Promise<void>
  send(event: NostrEvent): Promise<PublishResult>
  /** Asks the relay for the event: `found`, `absent` (it answered in full), or `unreachable`. */
  lookup(id: string): Promise<'found' | 'absent' | 'unreachable'>
  ingest(event: NostrEvent): void
  closed(): boolean
}

/**
 * One event on its way to a group's relay, with its {@link SendState}. Made by `group.send(…)`
 * (kept in `group.outbox` until sent or discarded) and behind every other write.
 *
 * @example
 * const send = group.send('hello')
 * const state = await send.answered() // 'sent', 'failed' or 'unknown'
 * if (state.status === 'failed') showError(state.reason, () => send.retry())
 * if (state.status === 'unknown') showNotConfirmed() // it resolves by itself: send.subscribe(…)
 */
export class OutgoingSend {
  #state: SendState = { status: 'sending' }
  #event: NostrEvent | undefined
  #watching = false
  #discarded = false
  readonly #listeners = new Set<(state: SendState) => void>()

  /** @internal Made by the group's publisher. */
  constructor(
    private readonly link: SendLink,
    private readonly build: (previous: string[] | undefined) => EventTemplate,
    /** When the user handed it over (ms since the epoch), to place it before it is signed. */
    readonly startedAt: number = Date.now(),
  ) {}

  /** Where the send stands now. */
  get state(): SendState {
    return this.#state
  }

  /** The signed event, once signed (a retry after a `previous` or `created_at` refusal signs anew). */
  get event(): NostrEvent | undefined {
    return this.#event
  }

  /** Called at every change of state; returns the stop. */
  subscribe(fn: (state: SendState) => void): () => void {
    this.#listeners.add(fn)
    return () => this.#listeners.delete(fn)
  }

  /** Resolves once the current attempt is answered: `sent`, `failed` or `unknown`. */
  answered(): Promise<SendState> {
    return this.until((s) => s.status !== 'sending')
  }

  /** Resolves once the send is `sent` or `failed` (an unknown send waits for its resolution). */
  settled(): Promise<SendState> {
    return this.until((s) => s.status === 'sent' || s.status === 'failed')
  }

  /**
   * Sends again and resolves with the new answer. The same signed event goes again (a relay that
   * has it answers `duplicate:`, which counts as sent), so a retry never makes a second copy; a new
   * event is signed only when the relay refused this one for its `previous` references or its
   * `created_at` (see `refusalWantsNewEvent`), or it was never signed. A sent send stays sent.
   */
  retry(): Promise<SendState> {
    const s = this.#state
    if (s.status === 'sent' || s.status === 'sending') return this.answered()
    this.#discarded = false
    void this.attempt(s.status === 'failed' && s.resign)
    return this.answered()
  }

  /** Gives up on the send (a Delete of a failed message): no more look-ups, out of the outbox. */
  discard(): void {
    this.#discarded = true
    this.set(this.#state)
  }

  /** True after {@link discard}. */
  get discarded(): boolean {
    return this.#discarded
  }

  /** @internal The relay's live copy of our event arrived: it is stored. */
  seen(event: NostrEvent): void {
    if (event.id === this.#event?.id && this.#state.status !== 'sent') this.set({ status: 'sent', event })
  }

  /** @internal The first attempt, or a retry; `fresh` signs a new event. */
  async attempt(fresh: boolean): Promise<void> {
    const { link } = this
    this.set({ status: 'sending', ...(this.#event && !fresh ? { event: this.#event } : {}) })
    try {
      if (fresh || !this.#event) this.#event = await link.sign(this.build(link.previous()))
      let result = await link.send(this.#event)
      if (!result.ok && !result.timedOut && isPreviousRefusal(result.message)) {
        // The relay does not know a reference: read its newest events and sign once more without it.
        const named = [...result.message.matchAll(/'([0-9a-f]{1,64})'/g)].map((m) => m[1]!)
        await link.refreshWindow()
        const fresh = link.previous(named)
        this.#event = await link.sign(this.build(fresh && fresh.length > 1 ? fresh : undefined))
        result = await link.send(this.#event)
      }
      this.answer(result)
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err))
      this.set({
        status: 'failed',
        ...(this.#event ? { event: this.#event } : {}),
        error,
        reason: error.message,
        resign: !this.#event,
      })
    }
  }

  private answer(result: PublishResult): void {
    const event = this.#event!
    if (this.#state.status === 'sent') return // its echo came first
    if (result.ok || result.message.startsWith('duplicate:')) {
      this.link.ingest(event)
      this.set({ status: 'sent', event })
    } else if (result.timedOut || result.failure === 'unreachable') {
      // No answer, or the socket died under the event and no new one opened: it may be stored.
      const error = publishError(result, this.link.timeout) as PublishTimeoutError | RelayUnreachableError
      this.set({ status: 'unknown', event, error })
      void this.watch()
    } else {
      this.set({
        status: 'failed',
        event,
        error: publishError(result, this.link.timeout),
        reason: result.message,
        resign: result.failure === 'refused' && refusalWantsNewEvent(result.message),
      })
    }
  }

  /** Resolves an unknown send: looks the event up after a delay, again and again, until answered. */
  private async watch(): Promise<void> {
    if (this.#watching) return
    this.#watching = true
    let delay = this.link.recheckMs
    try {
      while (this.#state.status === 'unknown' && !this.#discarded && !this.link.closed()) {
        await new Promise((r) => setTimeout(r, delay))
        delay = Math.min(delay * 2, 30_000)
        const event = this.#event!
        if (this.#state.status !== 'unknown' || this.#discarded || this.link.closed()) return
        const found = await this.link.lookup(event.id)
        if (this.#state.status !== 'unknown') return
        if (found === 'found') {
          this.link.ingest(event)
          this.set({ status: 'sent', event })
        } else if (found === 'absent') {
          // The relay answered and has no copy: the same signed event goes again.
          this.answer(await this.link.send(event))
        }
      }
    } finally {
      this.#watching = false
    }
  }

  private until(done: (s: SendState) => boolean): Promise<SendState> {
    if (done(this.#state)) return Promise.resolve(this.#state)
    return new Promise((resolve) => {
      const stop = this.subscribe((s) => {
        if (!done(s)) return
        stop()
        resolve(s)
      })
    })
  }

  private set(state: SendState): void {
    this.#state = state
    for (const l of [...this.#listeners]) l(state)
  }
}

/**
 * A group's own messages sent with `group.send(…)` that are not known to be stored: sending,
 * unknown (no answer yet) and failed ones, oldest first. A send leaves the outbox when it is sent or
 * discarded; a failed one stays until the user retries or discards it, so it is never lost.
 *
 * @example
 * const stop = group.outbox.subscribe(() => render(group.outbox.list()))
 * for (const s of group.outbox.list()) if (s.state.status === 'failed') console.log(s.state.reason)
 */
export class GroupOutbox {
  #sends: OutgoingSend[] = []
  #list: readonly OutgoingSend[] = []
  readonly #listeners = new Set<() => void>()

  /** The sends not sent and not discarded, oldest first (the same array until one changes). */
  list(): readonly OutgoingSend[] {
    return this.#list
  }

  /** Called whenever a send in the outbox changes state, joins or leaves; returns the stop. */
  subscribe(fn: () => void): () => void {
    this.#listeners.add(fn)
    return () => this.#listeners.delete(fn)
  }

  /** @internal */
  add(send: OutgoingSend): void {
    this.#sends.push(send)
    send.subscribe(() => this.changed())
    this.changed()
  }

  private changed(): void {
    this.#sends = this.#sends.filter((s) => s.state.status !== 'sent' && !s.discarded)
    this.#list = [...this.#sends]
    for (const l of [...this.#listeners]) l()
  }
}
