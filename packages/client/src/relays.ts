import { InvalidRelayUrlError, normalizeRelayUrl } from '@roost/nip29'
import { InvalidRelaysError } from './errors'

/**
 * The user's relays as `createRoost({ relays })` and `setRelays()` take them: one list used to
 * read and write, or NIP-65's `{ read, write }`.
 *
 * @example
 * const relays: RelaysOption = { read: ['wss://in.example.com'], write: ['wss://out.example.com'] }
 */
export type RelaysOption =
  | readonly string[]
  | {
      /** Relays to read from (NIP-65 `read`). */
      readonly read: readonly string[]
      /** Relays to publish to (NIP-65 `write`). */
      readonly write: readonly string[]
    }

/** Normalized, deduplicated read and write relays. */
export interface UserRelays {
  /** Relays to read from (fetch and subscribe). */
  readonly read: readonly string[]
  /** Relays to publish to. */
  readonly write: readonly string[]
}

function list(value: unknown, option: string): string[] {
  if (!Array.isArray(value)) throw new InvalidRelaysError(option, 'expected an array of relay URLs')
  const out: string[] = []
  value.forEach((url, i) => {
    if (typeof url !== 'string')
      throw new InvalidRelaysError(`${option}[${i}]`, 'expected a relay URL string')
    try {
      const relay = normalizeRelayUrl(url)
      if (!out.includes(relay)) out.push(relay)
    } catch (err) {
      if (err instanceof InvalidRelayUrlError) throw new InvalidRelaysError(`${option}[${i}]`, err.message)
      throw err
    }
  })
  return out
}

/**
 * Checks and normalizes a relays option: `string[]` (read and write) or `{ read, write }`.
 * Anything else throws {@link InvalidRelaysError} naming the option (e.g. `relays.write[1]`).
 *
 * @example
 * parseRelays({ read: ['wss://a.example'], write: [] }) // { read: ['wss://a.example'], write: [] }
 * parseRelays('wss://a.example') // throws InvalidRelaysError: relays: expected …
 */
export function parseRelays(value: unknown, option = 'relays'): UserRelays {
  if (value === undefined || value === null) return { read: [], write: [] }
  if (Array.isArray(value)) {
    const both = list(value, option)
    return { read: both, write: both }
  }
  if (typeof value === 'object' && 'read' in value && 'write' in value) {
    const v = value as { read: unknown; write: unknown }
    return { read: list(v.read, `${option}.read`), write: list(v.write, `${option}.write`) }
  }
  throw new InvalidRelaysError(option, 'expected an array of relay URLs or { read, write }')
}

/** Where to fetch the user's own events from: read ∪ write (NIP-65). */
export function fetchRelays(relays: UserRelays): string[] {
  return [...new Set([...relays.read, ...relays.write])]
}
