/**
 * Typed errors of `@roost/read-state`. Each has a stable `code` so callers branch on it rather than
 * on message text. The shape (`code`, `name`) matches `RoostError` of `@roost/nip29`; this package
 * stays free of that dependency so it can be used on its own.
 *
 * @example
 * try {
 *   engine.markRead('', 10)
 * } catch (err) {
 *   if (err instanceof ReadStateError && err.code === 'invalid-context') console.warn(err.message)
 * }
 */
export class ReadStateError extends Error {
  /** Stable machine-readable code: `'invalid-context' | 'invalid-timestamp' | 'invalid-option' | 'invalid-event-id'`. */
  readonly code: string

  constructor(code: string, message: string) {
    super(message)
    this.code = code
    this.name = new.target.name
  }
}

/**
 * A context key that is empty, not a string, or longer than 256 UTF-8 bytes.
 *
 * @example
 * new InvalidContextError('x'.repeat(300)).code // 'invalid-context'
 */
export class InvalidContextError extends ReadStateError {
  /** The context that was refused. */
  readonly context: unknown
  constructor(context: unknown, why = 'must be a non-empty string of at most 256 UTF-8 bytes') {
    super(
      'invalid-context',
      `invalid read-state context ${JSON.stringify(String(context)).slice(0, 80)}: ${why}`,
    )
    this.context = context
  }
}

/**
 * A read timestamp that is not an integer in 0–4294967295.
 *
 * @example
 * new InvalidTimestampError(1.5).code // 'invalid-timestamp'
 */
export class InvalidTimestampError extends ReadStateError {
  /** The timestamp that was refused. */
  readonly value: unknown
  constructor(value: unknown) {
    super('invalid-timestamp', `invalid read timestamp ${String(value)}: must be an integer in 0..4294967295`)
    this.value = value
  }
}

/**
 * A constructor or function option out of range (e.g. a budget above 40,960 bytes).
 *
 * @example
 * new InvalidOptionError('budget', 'must be at most 40960').code // 'invalid-option'
 */
export class InvalidOptionError extends ReadStateError {
  /** The option that was wrong. */
  readonly option: string
  constructor(option: string, why: string) {
    super('invalid-option', `invalid option ${option}: ${why}`)
    this.option = option
  }
}

/**
 * An event id that is not 64 lowercase hex characters, given to `threadContext`/`messageContext`.
 *
 * @example
 * new InvalidEventIdError('abc').code // 'invalid-event-id'
 */
export class InvalidEventIdError extends ReadStateError {
  /** The value that is not an event id. */
  readonly input: unknown
  constructor(input: unknown) {
    super(
      'invalid-event-id',
      `invalid event id ${JSON.stringify(String(input)).slice(0, 80)}: must be 64 lowercase hex`,
    )
    this.input = input
  }
}
