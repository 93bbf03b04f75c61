import { BLOB_VERSION, MAX_CONTEXT_KEY_BYTES, MAX_CONTEXTS, MAX_TIMESTAMP } from './constants'
import { utf8Length } from './utf8'

/**
 * A flat map of context id → unix timestamp (seconds): "read at or before this time".
 *
 * @example
 * const contexts: Contexts = { "wss://groups.example.com'general": 1700000100 }
 */
export type Contexts = Readonly<Record<string, number>>

/**
 * A decoded, validated read-state blob (`client_id` is exposed as `clientId`).
 *
 * @example
 * const r = parseBlob(text)
 * if (r.ok) console.log(r.blob.clientId, Object.keys(r.blob.contexts).length)
 */
export interface Blob {
  /** The blob format's version. */
  readonly v: 1
  /** The `client_id` of the installation that wrote it. */
  readonly clientId: string
  /** Each context's frontier (Unix seconds). */
  readonly contexts: Contexts
}

/**
 * Why a plaintext is not a usable blob. `'unknown-version'` means ignored (a future schema).
 *
 * @example
 * const r = parseBlob('{"v":2}')
 * if (!r.ok && r.reason === 'unknown-version') skip()
 */
export type BlobRejection =
  | 'not-json'
  | 'not-object'
  | 'bad-version'
  | 'unknown-version'
  | 'missing-client-id'
  | 'bad-client-id'
  | 'missing-contexts'
  | 'bad-contexts'
  | 'too-many-contexts'

/**
 * One entry dropped while the rest of the blob was kept.
 *
 * @example
 * parseBlob(text).dropped // [{ key: 'ctx:AAA', reason: 'bad-timestamp' }]
 */
export interface DroppedEntry {
  /** The context key that was dropped. */
  readonly key: string
  /** Why: a timestamp that is not a valid one, or a key over 256 bytes. */
  readonly reason: 'bad-timestamp' | 'key-too-long'
}

/**
 * Result of {@link parseBlob}.
 *
 * @example
 * const r: ParseResult = parseBlob(plaintext)
 * if (!r.ok) console.warn('discarded', r.reason)
 */
export type ParseResult =
  | {
      /** The blob was read. */
      ok: true
      /** The blob, without the dropped entries. */
      blob: Blob
      /** Entries left out while the rest was kept; `[]` when none. */
      dropped: DroppedEntry[]
    }
  | {
      /** The whole blob was discarded. */
      ok: false
      /** Why it was discarded. */
      reason: BlobRejection
    }

/**
 * Creates an empty context map without a prototype, so keys such as `__proto__` are plain data.
 *
 * @example
 * const m = emptyContexts()
 * m['__proto__'] = 1 // a plain key, not the prototype
 */
export function emptyContexts(): Record<string, number> {
  return Object.create(null) as Record<string, number>
}

/**
 * `true` for an integer in 0–4294967295 (decision c: `Number.isInteger`, so `1.0` counts).
 *
 * @example
 * isValidTimestamp(1.5) // false
 */
export function isValidTimestamp(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TIMESTAMP
}

/**
 * `true` for a context key of 1–256 UTF-8 bytes.
 *
 * @example
 * isValidContextKey('é'.repeat(129)) // false (258 bytes)
 */
export function isValidContextKey(key: unknown): key is string {
  return typeof key === 'string' && key.length > 0 && utf8Length(key) <= MAX_CONTEXT_KEY_BYTES
}

const LONE_SURROGATE = /\p{Cs}/u

/**
 * `true` for a `client_id`: a well-formed string of 1–64 Unicode code points (decision a).
 *
 * @example
 * isValidClientId('😀'.repeat(64)) // true (64 code points, 128 UTF-16 units)
 */
export function isValidClientId(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 128) return false
  if (LONE_SURROGATE.test(value)) return false
  let points = 0
  for (const _ of value) if (++points > 64) return false
  return true
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Decodes and validates a decrypted blob per the spec's Content Validation rules: non-JSON, a
 * non-object, a missing or non-integer `v`, a bad `client_id`, missing or non-object `contexts`,
 * or more than 10,000 raw keys reject the blob; an unknown `v` is ignored; entries with a bad
 * timestamp or a key over 256 bytes are dropped and reported. Unknown top-level keys are ignored;
 * duplicate keys keep the last value (as `JSON.parse` does). Never throws.
 *
 * @example
 * parseBlob('{"v":1,"client_id":"a","contexts":{"x":5,"y":"yesterday"}}')
 * // { ok: true, blob: { v: 1, clientId: 'a', contexts: { x: 5 } }, dropped: [{ key: 'y', reason: 'bad-timestamp' }] }
 */
export function parseBlob(plaintext: string): ParseResult {
  let raw: unknown
  try {
    raw = JSON.parse(plaintext)
  } catch {
    return { ok: false, reason: 'not-json' }
  }
  if (!isPlainObject(raw)) return { ok: false, reason: 'not-object' }
  const v = raw.v
  if (typeof v !== 'number' || !Number.isInteger(v)) return { ok: false, reason: 'bad-version' }
  if (v !== BLOB_VERSION) return { ok: false, reason: 'unknown-version' }
  if (!('client_id' in raw)) return { ok: false, reason: 'missing-client-id' }
  if (!isValidClientId(raw.client_id)) return { ok: false, reason: 'bad-client-id' }
  if (!('contexts' in raw)) return { ok: false, reason: 'missing-contexts' }
  const rawContexts = raw.contexts
  if (!isPlainObject(rawContexts)) return { ok: false, reason: 'bad-contexts' }
  const keys = Object.keys(rawContexts)
  if (keys.length > MAX_CONTEXTS) return { ok: false, reason: 'too-many-contexts' }
  const contexts = emptyContexts()
  const dropped: DroppedEntry[] = []
  for (const key of keys) {
    const value = rawContexts[key]
    if (utf8Length(key) > MAX_CONTEXT_KEY_BYTES) dropped.push({ key, reason: 'key-too-long' })
    else if (!isValidTimestamp(value)) dropped.push({ key, reason: 'bad-timestamp' })
    else contexts[key] = value
  }
  return { ok: true, blob: { v: 1, clientId: raw.client_id, contexts }, dropped }
}

/**
 * Encodes a blob as the spec's plaintext JSON: `{"v":1,"client_id":…,"contexts":{…}}`, nothing else
 * (the parent relation of `thread:`/`msg:` keys is never serialized).
 *
 * @example
 * serializeBlob({ v: 1, clientId: 'a', contexts: { x: 5 } }) // '{"v":1,"client_id":"a","contexts":{"x":5}}'
 */
export function serializeBlob(blob: Pick<Blob, 'clientId' | 'contexts'>): string {
  let out = `{"v":1,"client_id":${JSON.stringify(blob.clientId)},"contexts":{`
  let first = true
  for (const key of Object.keys(blob.contexts)) {
    out += `${first ? '' : ','}${JSON.stringify(key)}:${blob.contexts[key]}`
    first = false
  }
  return out + '}}'
}

/**
 * The UTF-8 size in bytes of `serializeBlob(blob)`, without building the string.
 *
 * @example
 * blobSize({ clientId: 'a', contexts: { x: 5 } }) // 42
 */
export function blobSize(blob: Pick<Blob, 'clientId' | 'contexts'>): number {
  let n = blobOverhead(blob.clientId)
  let count = 0
  for (const key of Object.keys(blob.contexts)) {
    n += entrySize(key, blob.contexts[key]!)
    count++
  }
  return n + Math.max(0, count - 1)
}

/**
 * Bytes of the blob without any entry: `{"v":1,"client_id":"…","contexts":{}}`.
 *
 * @example
 * blobOverhead('a') // 37
 */
export function blobOverhead(clientId: string): number {
  return utf8Length(`{"v":1,"client_id":${JSON.stringify(clientId)},"contexts":{}}`)
}

/**
 * Bytes of one `"key":value` entry, without its separating comma.
 *
 * @example
 * entrySize('x', 5) // 5: "x":5
 */
export function entrySize(key: string, value: number): number {
  return utf8Length(JSON.stringify(key)) + 1 + String(value).length
}
