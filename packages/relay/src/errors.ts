/**
 * Base class of the relay's typed errors; `code` is stable for callers that branch.
 *
 * @example
 * try { await relay.createGroup({ id: 'general' }) } catch (e) { if (e instanceof RelayError && e.code === 'group-exists') … }
 */
export class RelayError extends Error {
  constructor(
    /** A stable code to branch on (e.g. `group-exists`, `missing-package`). */
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'RelayError'
  }
}

/**
 * A bad option passed to `startRelay` (`code: 'invalid-option'`).
 *
 * @example
 * await startRelay({ secretKey: 'nope' }) // rejects with RelayOptionError
 */
export class RelayOptionError extends RelayError {
  constructor(message: string) {
    super('invalid-option', message)
    this.name = 'RelayOptionError'
  }
}
