/** The machine-readable prefixes of NIP-01 (OK/CLOSED) and NIP-42. */
export const PREFIXES = [
  'duplicate',
  'pow',
  'blocked',
  'rate-limited',
  'invalid',
  'restricted',
  'mute',
  'error',
  'auth-required',
] as const

/**
 * Gives a refusal reason a NIP-01 prefix, the way khatru does: a text whose part before the first
 * `": "` is missing or contains a space gets `blocked: ` in front.
 *
 * @example
 * prefixed('unknown member') // 'blocked: unknown member'
 * prefixed('restricted: insufficient permissions') // unchanged
 */
export function prefixed(reason: string): string {
  const at = reason.indexOf(': ')
  if (at <= 0 || reason.slice(0, at).includes(' ')) return `blocked: ${reason}`
  return reason
}

/** The prefix of a reason (`'blocked'` for `'blocked: x'`), or undefined when it has none. */
export function prefixOf(reason: string): string | undefined {
  const at = reason.indexOf(':')
  return at > 0 ? reason.slice(0, at) : undefined
}
