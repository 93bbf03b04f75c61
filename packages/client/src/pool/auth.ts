import type { VerifiedEvent } from 'nostr-tools/core'
import type { PolicyRelay } from './policy-relay'

/** NIP-42 state of one relay connection, as `RelayPool.authState` reports it. */
export type AuthState = 'none' | 'challenged' | 'authenticating' | 'authenticated' | 'failed'

/** What a relay's NIP-42 challenge may be answered with. */
export type AuthPolicy = 'always' | 'ask' | 'never'

/** What NIP-42 needs from the pool. */
export interface AuthDeps {
  sign?: (template: {
    kind: number
    created_at: number
    tags: string[][]
    content: string
  }) => Promise<VerifiedEvent>
  authPolicy: AuthPolicy
  askAuth?: (relay: string) => Promise<boolean>
  authTimeout: number
  onAuthState?: (relay: string, state: AuthState) => void
}

/**
 * NIP-42 for one connection: the relay's challenge on the current socket, the policy, and one
 * AUTH at a time with a deadline. A new socket starts again from `none`.
 *
 * @example
 * const auth = new Nip42(url, { sign, authPolicy: 'always', authTimeout: 10_000 })
 * relay.onchallenge = () => auth.challenge()
 * if (await auth.authenticate(relay, () => currentRelay)) retry()
 */
export class Nip42 {
  private challenged = false
  private waiters: (() => void)[] = []
  private state: AuthState = 'none'
  /** The last error of a failed AUTH, kept so callers can show it. */
  error: string | undefined

  constructor(
    private readonly url: string,
    private readonly deps: AuthDeps,
  ) {}

  get authState(): AuthState {
    return this.state
  }

  private set(state: AuthState): void {
    if (this.state === state) return
    this.state = state
    this.deps.onAuthState?.(this.url, state)
  }

  /** A new socket, or none: no challenge yet. */
  reset(): void {
    this.challenged = false
    this.set('none')
  }

  /** The relay sent its AUTH challenge. */
  challenge(): void {
    this.challenged = true
    if (this.state === 'none') this.set('challenged')
    this.wake()
  }

  /** Wakes whoever waits for a challenge (the connection is closing). */
  wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  /**
   * Answers the challenge on `relay` if the policy allows, waiting for one if it has not come
   * yet; true when authenticated. `current()` tells whether `relay` is still the live socket.
   */
  async authenticate(
    relay: PolicyRelay | undefined,
    current: () => PolicyRelay | undefined,
  ): Promise<boolean> {
    if (!relay || !this.deps.sign) return false
    if (this.state === 'authenticated') return true
    const { authPolicy: policy, authTimeout } = this.deps
    if (policy === 'never') return false
    if (policy === 'ask' && !(await this.deps.askAuth?.(this.url))) return false
    if (!this.challenged) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, authTimeout)
        this.waiters.push(() => {
          clearTimeout(t)
          resolve()
        })
      })
      if (!this.challenged || current() !== relay) return false
    }
    this.set('authenticating')
    const sign = this.deps.sign
    relay.publishTimeout = authTimeout
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      // nostr-tools' auth() never settles if signing throws, hence the race with a deadline.
      await Promise.race([
        relay.auth((t) => sign(t)),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('auth timed out')), authTimeout + 50)
        }),
      ])
      this.error = undefined
      this.set('authenticated')
      return true
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err)
      this.set('failed')
      return false
    } finally {
      clearTimeout(timer)
    }
  }
}
