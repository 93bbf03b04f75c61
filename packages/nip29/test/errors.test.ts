import { describe, expect, it } from 'vitest'
import {
  InvalidArgumentError,
  InvalidEventError,
  InvalidGroupIdError,
  InvalidReferenceError,
  InvalidRelayUrlError,
  RoostError,
} from '../src/index'

describe('typed errors', () => {
  it('carry a stable code, their class name and the RoostError base', () => {
    const cases: [RoostError, string, string][] = [
      [new InvalidGroupIdError(' ', 'empty'), 'invalid-group-id', 'InvalidGroupIdError'],
      [new InvalidRelayUrlError('x', 'bad'), 'invalid-relay-url', 'InvalidRelayUrlError'],
      [new InvalidReferenceError('wrong-kind', 'kind'), 'invalid-reference', 'InvalidReferenceError'],
      [new InvalidEventError('missing-d', 39000, 'd'), 'invalid-event', 'InvalidEventError'],
      [new InvalidArgumentError('pubkey', 'hex'), 'invalid-argument', 'InvalidArgumentError'],
    ]
    for (const [err, code, name] of cases) {
      expect(err).toBeInstanceOf(RoostError)
      expect(err).toBeInstanceOf(Error)
      expect(err.code).toBe(code)
      expect(err.name).toBe(name)
    }
  })

  it('keep what went wrong for the caller to branch on', () => {
    expect(new InvalidReferenceError('missing-relay', 'm').reason).toBe('missing-relay')
    const e = new InvalidEventError('wrong-kind', 39001, 'm')
    expect([e.reason, e.expectedKind]).toEqual(['wrong-kind', 39001])
    expect(new InvalidArgumentError('roles', 'm').argument).toBe('roles')
    expect(new InvalidRelayUrlError('ftp://x', 'm').input).toBe('ftp://x')
  })

  it('let other packages subclass the base with their own code and a cause', () => {
    class AuthRequiredError extends RoostError {
      constructor(message: string, cause?: unknown) {
        super('auth-required', message, { cause })
      }
    }
    const err = new AuthRequiredError('auth-required: sign in', 'socket')
    expect(err.code).toBe('auth-required')
    expect(err.name).toBe('AuthRequiredError')
    expect(err.cause).toBe('socket')
    expect(err.message).toBe('auth-required: sign in')
  })
})
