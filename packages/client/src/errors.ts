/**
 * Typed errors of the client runtime. Every one extends `RoostError` from `@roost/nip29`, carries a
 * stable `code` to branch on, and keeps the relay's own text where a relay said something.
 *
 * @example
 * try {
 *   await group.sendMessage('hi')
 * } catch (err) {
 *   if (err instanceof PublishRefusedError) showToast(err.relayMessage) // e.g. 'restricted: not a member'
 *   else if (err instanceof PublishTimeoutError) showToast('The relay did not answer')
 * }
 */
import { RoostError } from '@roost/nip29'

/** The machine-readable prefix of a relay message (`restricted: …` → `'restricted'`), if it has one. */
export function relayPrefix(message: string): string | undefined {
  const m = /^([a-z-]+):/.exec(message)
  return m?.[1]
}

/**
 * A relay answered `OK false` to one of our events. `relayMessage` is its text as sent
 * (it usually starts with `invalid:`, `restricted:`, `blocked:`, `duplicate:`, …).
 *
 * @example
 * if (err instanceof PublishRefusedError && err.prefix === 'restricted') askToJoin()
 */
export class PublishRefusedError extends RoostError {
  /** The machine-readable prefix of the relay's text (`blocked`, `restricted`, …), if it has one. */
  readonly prefix: string | undefined
  constructor(
    /** The relay that refused. */
    readonly relay: string,
    /** The relay's OK text, as sent. */
    readonly relayMessage: string,
  ) {
    super('publish-refused', relayMessage || `${relay} refused the event`)
    this.prefix = relayPrefix(relayMessage)
  }
}

/**
 * A relay did not answer our event with `OK` in time (it may have sent a NOTICE instead, which is
 * kept in `notice`).
 *
 * @example
 * if (err instanceof PublishTimeoutError) console.warn(err.relay, err.notice ?? 'no answer')
 */
export class PublishTimeoutError extends RoostError {
  constructor(
    /** The relay that did not answer. */
    readonly relay: string,
    /** How long we waited, in milliseconds. */
    readonly timeoutMs: number,
    /** The relay's last NOTICE while we waited, which often says why. */
    readonly notice?: string,
  ) {
    super(
      'publish-timeout',
      `${relay} did not answer within ${timeoutMs} ms${notice ? ` (NOTICE: ${notice})` : ''}`,
    )
  }
}

/**
 * The relay requires NIP-42 authentication and we could not (or were not allowed to) authenticate:
 * the policy for that relay is `never`, `ask` was declined, there is no signer, or AUTH failed.
 *
 * @example
 * if (err instanceof AuthRequiredError) showAuthPrompt(err.relay, err.relayMessage)
 */
export class AuthRequiredError extends RoostError {
  constructor(
    /** The relay that asked for NIP-42 authentication. */
    readonly relay: string,
    /** The relay's OK text (`auth-required: …`). */
    readonly relayMessage: string,
  ) {
    super('auth-required', relayMessage || `${relay} requires authentication`)
  }
}

/**
 * We could not reach the relay (connection refused, closed before answering).
 *
 * @example
 * if (err instanceof RelayUnreachableError) showOffline(err.relay)
 */
export class RelayUnreachableError extends RoostError {
  constructor(
    /** The relay we could not reach. */
    readonly relay: string,
    detail: string,
  ) {
    super('relay-unreachable', `${relay}: ${detail}`)
  }
}

/** Why a group cannot take a message right now (see `Group.canSend`). */
export type CannotSendReason =
  | 'unsupported-kind'
  | 'not-member'
  | 'pending'
  | 'refused'
  | 'removed'
  | 'no-signer'

/**
 * `Group.sendMessage` (or another write) was called while `canSend()` says no.
 *
 * @example
 * if (err instanceof CannotSendError && err.reason === 'not-member') openJoinDialog()
 */
export class CannotSendError extends RoostError {
  constructor(
    /** Why, for a composer's hint (see {@link CannotSendReason}). */
    readonly reason: CannotSendReason,
    detail: string,
  ) {
    super('cannot-send', detail)
  }
}

/**
 * An operation named a group the registry does not hold.
 *
 * @example
 * try { await roost.groups.leave(key) } catch (err) { if (err instanceof UnknownGroupError) … }
 */
export class UnknownGroupError extends RoostError {
  constructor(
    /** The group key asked for (`<relay>'<id>`). */
    readonly key: string,
  ) {
    super('unknown-group', `no such group: ${key}`)
  }
}

/**
 * Used after `close()`: the pool, registry or Roost instance no longer does I/O.
 *
 * @example
 * if (err instanceof ClosedError) return // shutting down
 */
export class ClosedError extends RoostError {
  constructor(what: string) {
    super('closed', `${what} is closed`)
  }
}

/**
 * A relays option is not `string[]` or `{ read, write }` of relay URLs; `option` names the part
 * that is wrong (`relays`, `relays.write`, `relays.read[2]`, …).
 *
 * @example
 * try { createRoost({ signer, relays }) } catch (err) { if (err instanceof InvalidRelaysError) show(err.option) }
 */
export class InvalidRelaysError extends RoostError {
  constructor(
    /** The option that was wrong (e.g. `relays`). */
    readonly option: string,
    detail: string,
  ) {
    super('invalid-relays', `${option}: ${detail}`)
  }
}
