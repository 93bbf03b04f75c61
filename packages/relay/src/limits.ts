/**
 * The relay's limits, advertised in NIP-11 `limitation` and enforced on every message.
 *
 * @example
 * if (frame.length > LIMITS.maxMessageLength) … // the relay answers `invalid: message too large`
 */
export const LIMITS = {
  maxMessageLength: 131_072,
  maxSubscriptions: 50,
  maxFilters: 10,
  maxLimit: 500,
  defaultLimit: 500,
  maxSubidLength: 64,
  maxEventTags: 2_000,
  maxContentLength: 65_536,
  /** Values per filter list (`ids`, `authors`, `kinds`, each `#x`). */
  maxFilterValues: 1_000,
  /** AUTH events older or newer than this are refused, seconds. */
  authWindow: 600,
  /** A connection whose unsent output exceeds this is closed. */
  maxBufferedBytes: 16 * 1024 * 1024,
} as const
