/**
 * NIP-44 v2 encryption, written here rather than taken from nostr-tools for one reason: speed of
 * base64. nostr-tools decodes payloads with @scure/base's pure-JS base64 (a few MB/s), which is
 * most of the time spent opening a 32 KiB read-state blob; here base64 is the platform's native
 * codec (`Uint8Array.fromBase64`/`toBase64`, `Buffer` in Node, `atob`/`btoa` otherwise). The
 * cryptography is the same primitives nostr-tools uses: @noble/curves secp256k1 ECDH,
 * @noble/hashes HKDF/HMAC-SHA256, @noble/ciphers ChaCha20, and a constant-time MAC comparison.
 * It passes every official vector (nip44.vectors.json, sha256 269ed0f6…5040) and is checked
 * against nostr-tools in both directions (test/nip44*.test.ts).
 *
 * Plaintexts are limited to 1–65,535 bytes when encrypting, so every peer can read what we send
 * (the extended length prefix of newer NIP-44 text is not understood everywhere yet); payloads
 * with the extended prefix are still decrypted, so we can read what newer peers send.
 */
import { chacha20 } from '@noble/ciphers/chacha.js'
import { equalBytes } from '@noble/ciphers/utils.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { expand, extract } from '@noble/hashes/hkdf.js'
import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { hexToBytes, randomBytes } from '@noble/hashes/utils.js'
import { DecryptError, EncryptError, InvalidPublicKeyError, InvalidSecretKeyError } from './errors'

/**
 * Largest plaintext, in UTF-8 bytes, that {@link nip44Encrypt} accepts.
 *
 * @example
 * new TextEncoder().encode(text).length <= NIP44_MAX_PLAINTEXT_BYTES
 */
export const NIP44_MAX_PLAINTEXT_BYTES = 65_535

const VERSION = 2
const SALT = new TextEncoder().encode('nip44-v2')
const HEX64 = /^[0-9a-fA-F]{64}$/
const MIN_PAYLOAD_CHARS = 132
const MIN_DATA_BYTES = 99
const EXTENDED_PREFIX_THRESHOLD = 65_536
// Decoded payloads are written at this offset so that the ciphertext (33 bytes into the payload)
// starts on a 4-byte boundary: noble's ChaCha20 then runs on 32-bit words, in place.
const SHIFT = 3
const utf8Encoder = new TextEncoder()
// ignoreBOM: a leading U+FEFF is part of the plaintext (nostr-tools' decoder drops it).
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true })

/**
 * The NIP-44 v2 conversation key between `secretKey` and the x-only public key `pubkey` (hex):
 * HKDF-extract(sha256, x(secretKey·lift_x(pubkey)), "nip44-v2"). Symmetric between the two peers.
 * A secret key outside [1, n−1] throws {@link InvalidSecretKeyError}; a public key that is not
 * 64 hex characters of a point on secp256k1 throws {@link InvalidPublicKeyError}.
 *
 * @example
 * const key = getConversationKey(alice.secretKey, bob.publicKey)
 * // equals getConversationKey(bob.secretKey, alice.publicKey)
 */
export function getConversationKey(secretKey: Uint8Array, pubkey: string): Uint8Array {
  if (!(secretKey instanceof Uint8Array) || !secp256k1.utils.isValidSecretKey(secretKey)) {
    throw new InvalidSecretKeyError('not a valid secp256k1 secret key (zero or out of range)')
  }
  if (typeof pubkey !== 'string' || !HEX64.test(pubkey)) {
    throw new InvalidPublicKeyError(`not a 64-hex public key: ${String(pubkey).slice(0, 80)}`)
  }
  let shared: Uint8Array
  try {
    shared = secp256k1.getSharedSecret(secretKey, hexToBytes(`02${pubkey}`))
  } catch {
    throw new InvalidPublicKeyError(`not a point on secp256k1: ${pubkey}`)
  }
  return extract(sha256, shared.subarray(1, 33), SALT)
}

/**
 * The per-message keys: HKDF-expand(conversationKey, info = nonce, 76 bytes), split 32/12/32.
 *
 * @example
 * const { chachaKey, chachaNonce, hmacKey } = getMessageKeys(conversationKey, nonce)
 */
export function getMessageKeys(
  conversationKey: Uint8Array,
  nonce: Uint8Array,
): { chachaKey: Uint8Array; chachaNonce: Uint8Array; hmacKey: Uint8Array } {
  const keys = expand(sha256, conversationKey, nonce, 76)
  return {
    chachaKey: keys.subarray(0, 32),
    chachaNonce: keys.subarray(32, 44),
    hmacKey: keys.subarray(44, 76),
  }
}

/**
 * Padded length of an `unpadded`-byte plaintext: 32 up to 32 bytes, then multiples of 32 up to
 * 256, then of one eighth of the next power of two.
 *
 * @example
 * calcPaddedLen(33) // 64
 * calcPaddedLen(32_768) // 32768
 */
export function calcPaddedLen(unpadded: number): number {
  if (!Number.isSafeInteger(unpadded) || unpadded < 1) {
    throw new RangeError(`a plaintext length is a positive integer, got ${unpadded}`)
  }
  if (unpadded <= 32) return 32
  const nextPower = 2 ** (Math.floor(Math.log2(unpadded - 1)) + 1)
  const chunk = nextPower <= 256 ? 32 : nextPower / 8
  return chunk * (Math.floor((unpadded - 1) / chunk) + 1)
}

/**
 * Encrypts `plaintext` (1–65,535 UTF-8 bytes) as a NIP-44 v2 payload (base64 of
 * `0x02 ‖ nonce ‖ ChaCha20(padded) ‖ HMAC`). `nonce` defaults to 32 fresh random bytes; pass
 * one only to reproduce a test vector. Anything out of bounds throws {@link EncryptError}.
 *
 * @example
 * const payload = nip44Encrypt('{"v":1,…}', getConversationKey(sk, getPublicKey(sk)))
 */
export function nip44Encrypt(
  plaintext: string,
  conversationKey: Uint8Array,
  nonce: Uint8Array = randomBytes(32),
): string {
  if (typeof plaintext !== 'string') throw new EncryptError('a NIP-44 plaintext is a string')
  checkKey(conversationKey, EncryptError)
  if (!(nonce instanceof Uint8Array) || nonce.length !== 32)
    throw new EncryptError('a NIP-44 nonce is 32 bytes')
  const plain = utf8Encoder.encode(plaintext)
  if (plain.length < 1) throw new EncryptError('a NIP-44 plaintext is at least 1 byte')
  if (plain.length > NIP44_MAX_PLAINTEXT_BYTES) {
    throw new EncryptError(`a NIP-44 plaintext is at most ${NIP44_MAX_PLAINTEXT_BYTES} bytes`)
  }
  const end = SHIFT + 35 + calcPaddedLen(plain.length) // end of the ciphertext
  // [SHIFT spare bytes][0x02][nonce 32][length u16 BE][plaintext][zeros][mac 32]
  const buffer = new Uint8Array(end + 32)
  buffer[SHIFT] = VERSION
  buffer.set(nonce, SHIFT + 1)
  buffer[SHIFT + 33] = plain.length >>> 8
  buffer[SHIFT + 34] = plain.length & 0xff
  buffer.set(plain, SHIFT + 35)
  const { chachaKey, chachaNonce, hmacKey } = getMessageKeys(conversationKey, nonce)
  const body = buffer.subarray(SHIFT + 33, end)
  chacha20(chachaKey, chachaNonce, body, body)
  buffer.set(hmac(sha256, hmacKey, buffer.subarray(SHIFT + 1, end)), end)
  return base64.encode(buffer.subarray(SHIFT, end + 32))
}

/**
 * Decrypts a NIP-44 v2 payload. A payload that starts with `#` or has another version byte, is
 * not canonical padded base64, is too short, fails the MAC (wrong key or tampered: compared in
 * constant time) or has bad padding throws {@link DecryptError} saying which.
 *
 * @example
 * const plaintext = nip44Decrypt(event.content, conversationKey)
 */
export function nip44Decrypt(payload: string, conversationKey: Uint8Array): string {
  checkKey(conversationKey, DecryptError)
  if (typeof payload !== 'string') throw new DecryptError('a NIP-44 payload is a string')
  if (payload.length > 0 && payload[0] === '#') throw new DecryptError('unknown encryption version')
  if (payload.length < MIN_PAYLOAD_CHARS) throw new DecryptError(`invalid payload length: ${payload.length}`)
  const data = decodeBase64Shifted(payload)
  const length = data.length - SHIFT
  if (length < MIN_DATA_BYTES) throw new DecryptError(`invalid data length: ${length}`)
  if (data[SHIFT] !== VERSION) throw new DecryptError(`unknown encryption version ${data[SHIFT]}`)
  const end = data.length - 32 // end of the ciphertext
  const nonce = data.subarray(SHIFT + 1, SHIFT + 33)
  const { chachaKey, chachaNonce, hmacKey } = getMessageKeys(conversationKey, nonce)
  const mac = hmac(sha256, hmacKey, data.subarray(SHIFT + 1, end))
  if (!equalBytes(mac, data.subarray(end))) throw new DecryptError('invalid MAC')
  const padded = data.subarray(SHIFT + 33, end)
  chacha20(chachaKey, chachaNonce, padded, padded)
  return unpad(padded)
}

function unpad(padded: Uint8Array): string {
  let unpaddedLength = (padded[0]! << 8) | padded[1]!
  let prefix = 2
  if (unpaddedLength === 0) {
    // Extended prefix: [0, 0] ‖ u32 BE, for plaintexts of 65,536 bytes or more.
    if (padded.length < 6) throw new DecryptError('invalid padding')
    unpaddedLength = ((padded[2]! << 24) | (padded[3]! << 16) | (padded[4]! << 8) | padded[5]!) >>> 0
    if (unpaddedLength < EXTENDED_PREFIX_THRESHOLD) throw new DecryptError('invalid padding')
    prefix = 6
  }
  if (padded.length !== prefix + calcPaddedLen(unpaddedLength)) throw new DecryptError('invalid padding')
  return utf8Decoder.decode(padded.subarray(prefix, prefix + unpaddedLength))
}

function checkKey(key: Uint8Array, E: typeof DecryptError | typeof EncryptError): void {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new E('a NIP-44 conversation key is 32 bytes')
}

// ---- base64 ---------------------------------------------------------------------------------

/**
 * A standard-alphabet base64 codec. `decodeInto` writes the decoded bytes of `text` (expected to
 * be `bytes` long) at `offset` of a fresh array and returns it, or throws; it may be lenient
 * (skip whitespace, accept URL-safe letters): {@link decodeBase64} checks canonical form.
 *
 * @example
 * base64.encode(new Uint8Array([2])) // 'Ag=='
 */
export interface Base64Codec {
  readonly name: 'native' | 'buffer' | 'atob'
  encode(bytes: Uint8Array): string
  decodeInto(text: string, bytes: number, offset: number): Uint8Array
}

interface NativeBase64Array {
  toBase64(): string
  setFromBase64(text: string, options: { lastChunkHandling: 'strict' }): { read: number; written: number }
}
interface NodeBufferClass {
  from(
    buffer: ArrayBufferLike,
    offset: number,
    length: number,
  ): {
    toString(encoding: 'base64'): string
    write(text: string, offset: number, length: number, encoding: 'base64'): number
  }
}

const nativeProto = Uint8Array.prototype as Partial<NativeBase64Array>
const nativeBase64: Base64Codec | undefined =
  typeof nativeProto.toBase64 === 'function' && typeof nativeProto.setFromBase64 === 'function'
    ? {
        name: 'native',
        encode: (bytes) => (bytes as unknown as NativeBase64Array).toBase64(),
        decodeInto(text, bytes, offset) {
          const out = new Uint8Array(offset + bytes)
          const target = out.subarray(offset) as unknown as NativeBase64Array
          const { read, written } = target.setFromBase64(text, { lastChunkHandling: 'strict' })
          if (read !== text.length || written !== bytes) throw new DecryptError('invalid base64')
          return out
        },
      }
    : undefined

const NodeBuffer = (globalThis as { Buffer?: NodeBufferClass }).Buffer
const bufferBase64: Base64Codec | undefined =
  typeof NodeBuffer?.from === 'function'
    ? {
        name: 'buffer',
        encode: (bytes) => NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64'),
        decodeInto(text, bytes, offset) {
          const out = new Uint8Array(offset + bytes)
          const written = NodeBuffer.from(out.buffer, 0, out.length).write(text, offset, bytes, 'base64')
          if (written !== bytes) throw new DecryptError('invalid base64')
          return out
        },
      }
    : undefined

const atobBase64: Base64Codec = {
  name: 'atob',
  encode(bytes) {
    let binary = ''
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[])
    }
    return btoa(binary)
  },
  decodeInto(text, bytes, offset) {
    const binary = atob(text)
    if (binary.length !== bytes) throw new DecryptError('invalid base64')
    const out = new Uint8Array(offset + bytes)
    for (let i = 0; i < bytes; i++) out[offset + i] = binary.charCodeAt(i)
    return out
  },
}

/**
 * The base64 codecs this platform offers, fastest first (`native` where `Uint8Array` has
 * `toBase64`/`setFromBase64`, `buffer` in Node, `atob` everywhere). Exposed for tests.
 *
 * @example
 * base64Codecs.map((c) => c.name) // Node 20: ['buffer', 'atob']; Chromium 140+: ['native', 'atob']
 */
export const base64Codecs: readonly Base64Codec[] = [nativeBase64, bufferBase64, atobBase64].filter(
  (c): c is Base64Codec => c !== undefined,
)

/**
 * The codec in use: the first of {@link base64Codecs}.
 *
 * @example
 * base64.name // 'buffer' in Node 20
 */
export const base64: Base64Codec = base64Codecs[0]!

/**
 * Decodes `text` at offset {@link SHIFT}, accepting canonical padded standard base64 only: the
 * platform decoders skip whitespace, take URL-safe letters or ignore stray low bits, which would
 * give one payload several spellings. Re-encoding and comparing settles all of that at once and
 * costs less than a validating regular expression over a 44 KB payload.
 */
function decodeBase64Shifted(text: string, codec: Base64Codec = base64): Uint8Array {
  if (text.length % 4 !== 0) throw new DecryptError('invalid base64')
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0
  let out: Uint8Array
  try {
    out = codec.decodeInto(text, (text.length / 4) * 3 - pad, SHIFT)
  } catch {
    throw new DecryptError('invalid base64')
  }
  if (codec.encode(out.subarray(SHIFT)) !== text) throw new DecryptError('invalid base64')
  return out
}

/**
 * Decodes canonical padded base64 as {@link nip44Decrypt} does (any other text throws
 * {@link DecryptError}), with the default codec or a given one (tests compare them).
 *
 * @example
 * decodeBase64('Ag==') // Uint8Array [2]
 */
export function decodeBase64(text: string, codec: Base64Codec = base64): Uint8Array {
  return decodeBase64Shifted(text, codec).subarray(SHIFT)
}
