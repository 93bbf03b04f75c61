/**
 * Typed errors. Every error this package throws is a {@link RoostError} subclass with a stable
 * `code`, so callers branch on `err.code` (or `instanceof`) instead of matching message text.
 * Other Roost packages extend {@link RoostError} for their own errors.
 *
 * @example
 * try {
 *   GroupReference.parse(pasted)
 * } catch (err) {
 *   if (err instanceof InvalidReferenceError) showHint(err.reason)
 *   else throw err
 * }
 */
export class RoostError extends Error {
  /** A stable, machine-readable code such as `'invalid-group-id'`. */
  readonly code: string

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }
}

/**
 * A group id that is not a non-empty string without control characters (after trimming).
 *
 * @example
 * GroupId.parse('   ') // throws InvalidGroupIdError, code 'invalid-group-id'
 */
export class InvalidGroupIdError extends RoostError {
  /** The rejected input, as given. */
  readonly input: unknown

  constructor(input: unknown, message: string) {
    super('invalid-group-id', message)
    this.input = input
  }
}

/**
 * A relay URL that is not a usable `ws://` or `wss://` URL.
 *
 * @example
 * normalizeRelayUrl('https://relay.example') // throws InvalidRelayUrlError, code 'invalid-relay-url'
 */
export class InvalidRelayUrlError extends RoostError {
  /** The rejected input, as given. */
  readonly input: unknown

  constructor(input: unknown, message: string, options?: { cause?: unknown }) {
    super('invalid-relay-url', message, options)
    this.input = input
  }
}

/** Why {@link GroupReference.parse} rejected an input. @example if (err.reason === 'missing-relay') … */
export type InvalidReferenceReason =
  | 'empty'
  | 'bad-bech32'
  | 'not-naddr'
  | 'wrong-kind'
  | 'missing-relay'
  | 'bad-relay'
  | 'bad-id'
  | 'bad-group-code'

/**
 * A pasted group reference (naddr or group code) that cannot be used, with the `reason`.
 *
 * @example
 * try { GroupReference.parse('naddr1…') } catch (err) {
 *   if (err instanceof InvalidReferenceError && err.reason === 'missing-relay') askForRelay()
 * }
 */
export class InvalidReferenceError extends RoostError {
  /** What was wrong with the reference. */
  readonly reason: InvalidReferenceReason

  constructor(reason: InvalidReferenceReason, message: string, options?: { cause?: unknown }) {
    super('invalid-reference', message, options)
    this.reason = reason
  }
}

/** Why an event parser rejected an event. @example if (err.reason === 'wrong-kind') … */
export type InvalidEventReason = 'malformed' | 'wrong-kind' | 'wrong-author' | 'missing-d' | 'bad-d'

/**
 * An event handed to a parser that is not the kind it parses, lacks its `d` tag, is not by the
 * expected relay key, or is not an event at all.
 *
 * @example
 * GroupMetadata.parse(kind9Event) // throws InvalidEventError, reason 'wrong-kind'
 */
export class InvalidEventError extends RoostError {
  /** What was wrong with the event. */
  readonly reason: InvalidEventReason
  /** The kind the parser expected. */
  readonly expectedKind: number

  constructor(reason: InvalidEventReason, expectedKind: number, message: string) {
    super('invalid-event', message)
    this.reason = reason
    this.expectedKind = expectedKind
  }
}

/**
 * A builder or encoder argument that cannot produce a valid event or code (a pubkey that is not
 * 64 lowercase hex, an empty invite code, an id too long for an naddr, …).
 *
 * @example
 * GroupId.parse('g').putUser('not-a-pubkey') // throws InvalidArgumentError, code 'invalid-argument'
 */
export class InvalidArgumentError extends RoostError {
  /** The name of the offending argument. */
  readonly argument: string

  constructor(argument: string, message: string) {
    super('invalid-argument', message)
    this.argument = argument
  }
}
