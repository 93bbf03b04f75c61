/** Kind of a NIP-RS read-state blob (NIP-78 application data, addressable). */
export const READ_STATE_KIND = 30078

/** Prefix of the `d` tag value: `read-state:<slot-id>`. */
export const D_TAG_PREFIX = 'read-state:'

/** Value of the one `t` tag every blob carries. */
export const T_TAG_VALUE = 'read-state'

/** The only schema version this package understands. */
export const BLOB_VERSION = 1

/** A blob with more raw context keys than this is rejected whole (decision b: raw keys count). */
export const MAX_CONTEXTS = 10_000

/** A context key longer than this many UTF-8 bytes is dropped. */
export const MAX_CONTEXT_KEY_BYTES = 256

/** Largest valid context timestamp (uint32). */
export const MAX_TIMESTAMP = 4_294_967_295

/** Default plaintext budget in bytes (decision h). */
export const DEFAULT_BUDGET_BYTES = 32_768

/** The budget may never be configured above this (decision h: fits a 64 KiB relay limit). */
export const MAX_BUDGET_BYTES = 40_960

/** Default fetch horizon: 7 days, in seconds. */
export const DEFAULT_HORIZON_SECONDS = 7 * 24 * 60 * 60

/** Received events whose content is longer than this many characters are discarded by default. */
export const DEFAULT_MAX_CONTENT_LENGTH = 65_536

/** Our own coordinate holding a version further than this ahead of the clock makes us rotate (decision e). */
export const MAX_OWN_CLOCK_LEAD_SECONDS = 600

/** Trailing debounce of writes in milliseconds (decision g). */
export const DEFAULT_DEBOUNCE_MS = 5_000

/** Longest a pending write waits under continuous activity (decision g). */
export const DEFAULT_MAX_WAIT_MS = 30_000

/** Kind of a NIP-09 deletion request. */
export const DELETION_KIND = 5
