import { InvalidArgumentError } from './errors'

const HEX64 = /^[0-9a-f]{64}$/

/**
 * True when `value` is 64 lowercase hex characters (a pubkey or event id).
 * @example isHex64(event.pubkey) // true
 */
export function isHex64(value: unknown): value is string {
  return typeof value === 'string' && HEX64.test(value)
}

/** Returns `value` when it is 64 lowercase hex, else throws {@link InvalidArgumentError}. */
export function assertHex64(value: unknown, argument: string): string {
  if (!isHex64(value)) {
    throw new InvalidArgumentError(argument, `${argument} must be 64 lowercase hex characters`)
  }
  return value
}
