/**
 * The relay's limits, advertised in NIP-11 `limitation` and enforced on every message. These are
 * the defaults; `startRelay({ limits })` and the CLI's flags override any of them.
 *
 * @example
 * if (Buffer.byteLength(frame) > LIMITS.maxMessageLength) … // the relay answers `invalid: message too large`
 */
export const LIMITS = {
  /** Bytes (UTF-8) of one client frame. */
  maxMessageLength: 131_072,
  /** Open subscriptions per connection. */
  maxSubscriptions: 50,
  /** Filters per REQ. */
  maxFilters: 10,
  /** The largest `limit` a filter gets; larger ones are lowered to it. */
  maxLimit: 500,
  /** The `limit` of a filter that names none. */
  defaultLimit: 500,
  /** Characters of a subscription id. */
  maxSubidLength: 64,
  /** Tags of one event. */
  maxEventTags: 2_000,
  /** Characters of one event's content. */
  maxContentLength: 65_536,
  /** Values per filter list (`ids`, `authors`, `kinds`, each `#x`). */
  maxFilterValues: 1_000,
  /**
   * Query cost one connection may hold open: the sum, over its subscriptions' filters, of each
   * filter's values plus one. Bounds the work of matching one event against its subscriptions.
   */
  maxQueryCost: 20_000,
  /** AUTH events older or newer than this are refused, seconds. */
  authWindow: 600,
  /** Keys one connection may authenticate. */
  maxAuthKeys: 16,
  /** Open WebSocket connections, in total. */
  maxConnections: 2_000,
  /** Open WebSocket connections from one IP address. */
  maxConnectionsPerIp: 100,
  /** Events dated more than this many seconds ahead are refused, whatever their kind. */
  maxFutureSeconds: 900,
  /** Stored results are sent in pages of this many events, yielding to other clients between pages. */
  pageSize: 100,
  /**
   * Stored rows one REQ may examine (matching or not, visible to its reader or not) before it is
   * refused with CLOSED `blocked:`: a backstop for filters that walk far to find little. A COUNT
   * (NIP-45) examines at most this many per filter, matching or not, or is refused the same way.
   */
  maxQueryScan: 100_000,
  /** A REQ's next page waits while the connection's unsent output is above this (bytes). */
  pacingBytes: 1024 * 1024,
  /** A connection whose unsent output exceeds this is closed (bytes): bounds what one slow reader holds. */
  maxBufferedBytes: 4 * 1024 * 1024,
  /** A paced REQ whose reader has not drained for this long is dropped with its connection (ms). */
  stallMs: 30_000,
  /** Records one NIP-77 session may reconcile: past it, NEG-ERR `blocked: too many records`. */
  maxNegRecords: 100_000,
  /** NIP-77 sessions one connection may hold open at once. */
  maxNegSessions: 8,
  /** Records all open NIP-77 sessions together may hold (72 bytes each): past it, NEG-ERR `blocked:`. */
  maxNegRecordsHeld: 1_000_000,
  /** A NIP-77 session without a message for this long is ended with NEG-ERR `closed:` (seconds). */
  negIdleSeconds: 60,
  /**
   * Join requests one group keeps waiting for its admins: past it, a new requester is refused with
   * `blocked:` until admins answer some (a flood of fresh keys cannot grow the group's record without end).
   */
  maxPendingJoins: 1_000,
} as const

/** The tunable limits (see {@link LIMITS} for each field). */
export type RelayLimits = { -readonly [K in keyof typeof LIMITS]: number }
