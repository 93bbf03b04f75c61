/**
 * Kind of a NIP-RS read-state blob (NIP-78 application data, addressable).
 *
 * @example
 * const filter = { kinds: [READ_STATE_KIND], authors: [pk] }
 */
export const READ_STATE_KIND = 30078

/**
 * Prefix of the `d` tag value: `read-state:<slot-id>`.
 *
 * @example
 * ['d', D_TAG_PREFIX + slotId] // ['d', 'read-state:<slot>']
 */
export const D_TAG_PREFIX = 'read-state:'

/**
 * Value of the one `t` tag every blob carries.
 *
 * @example
 * ['t', T_TAG_VALUE] // ['t', 'read-state']
 */
export const T_TAG_VALUE = 'read-state'

/**
 * The only schema version this package understands.
 *
 * @example
 * JSON.parse(plaintext).v === BLOB_VERSION
 */
export const BLOB_VERSION = 1

/**
 * A blob with more raw context keys than this is rejected whole (decision b: raw keys count).
 *
 * @example
 * Object.keys(raw.contexts).length > MAX_CONTEXTS // rejected
 */
export const MAX_CONTEXTS = 10_000

/**
 * A context key longer than this many UTF-8 bytes is dropped.
 *
 * @example
 * utf8Length(key) > MAX_CONTEXT_KEY_BYTES // entry dropped
 */
export const MAX_CONTEXT_KEY_BYTES = 256

/**
 * Largest valid context timestamp (uint32).
 *
 * @example
 * isValidTimestamp(MAX_TIMESTAMP) // true; MAX_TIMESTAMP + 1 is not
 */
export const MAX_TIMESTAMP = 4_294_967_295

/**
 * Default plaintext budget in bytes (decision h).
 *
 * @example
 * fitToBudget(merged, { clientId, budget: DEFAULT_BUDGET_BYTES })
 */
export const DEFAULT_BUDGET_BYTES = 32_768

/**
 * The budget may never be configured above this (decision h: fits a 64 KiB relay limit).
 *
 * @example
 * new ReadStateEngine({ ...opts, budget: MAX_BUDGET_BYTES }) // the largest allowed
 */
export const MAX_BUDGET_BYTES = 40_960

/**
 * Default fetch horizon: 7 days, in seconds.
 *
 * @example
 * loadFilter(pk, now, DEFAULT_HORIZON_SECONDS).since // now - 604800
 */
export const DEFAULT_HORIZON_SECONDS = 7 * 24 * 60 * 60

/**
 * Received events whose content is longer than this many characters are discarded by default: the
 * length of the largest NIP-44 v2 payload with the 2-byte length prefix, 65,535 bytes of plaintext
 * (padded to 65,536, plus version, nonce, prefix and MAC, in base64). Other clients may publish
 * blobs well over our own budget (no budget, or a count-only trim); every one of them is read.
 *
 * @example
 * readSlot(event, { maxContentLength: DEFAULT_MAX_CONTENT_LENGTH })
 */
export const DEFAULT_MAX_CONTENT_LENGTH = 87_472

/**
 * Our own coordinate holding a version further than this ahead of the clock makes us rotate (decision e).
 *
 * @example
 * ownVersion.created_at > now + MAX_OWN_CLOCK_LEAD_SECONDS // rotate the slot
 */
export const MAX_OWN_CLOCK_LEAD_SECONDS = 600

/**
 * Trailing debounce of writes in milliseconds (decision g).
 *
 * @example
 * new ReadStateEngine({ ...opts, debounceMs: DEFAULT_DEBOUNCE_MS })
 */
export const DEFAULT_DEBOUNCE_MS = 5_000

/**
 * Longest a pending write waits under continuous activity (decision g).
 *
 * @example
 * new ReadStateEngine({ ...opts, maxWaitMs: DEFAULT_MAX_WAIT_MS })
 */
export const DEFAULT_MAX_WAIT_MS = 30_000

/**
 * Kind of a NIP-09 deletion request.
 *
 * @example
 * deletionTemplate(pk, ['old'], now).kind === DELETION_KIND
 */
export const DELETION_KIND = 5
