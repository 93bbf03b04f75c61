import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import type { EventTemplate, VerifiedEvent } from 'nostr-tools/core'
import { decode, nsecEncode } from 'nostr-tools/nip19'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { brandVerified } from '../verify'
import { checkTemplate } from './check-signed'
import { InvalidSecretKeyError } from './errors'
import { nip44Decrypt, nip44Encrypt } from './nip44'
import { ConversationKeys } from './nip44-keys'
import type { Signer } from './signer'

const HEX64 = /^[0-9a-fA-F]{64}$/

/**
 * A signer holding the secret key in memory: for tests, bots, the relay's demo users, or a user
 * who pasted an nsec. NIP-44 conversation keys are cached per peer.
 *
 * @example
 * const signer = LocalSigner.generate()
 * const event = await signer.signEvent({ kind: 9, tags: [['h', 'general']], content: 'hi', created_at: now })
 * const again = LocalSigner.fromSecret(signer.nsec()) // same key
 */
export class LocalSigner implements Signer {
  /** The 32-byte secret key. Treat as sensitive. */
  readonly secretKey: Uint8Array
  /** The public key, 64 lowercase hex (also what {@link getPublicKey} resolves to). */
  readonly publicKey: string
  private readonly conversations: ConversationKeys

  private constructor(secretKey: Uint8Array) {
    this.secretKey = secretKey
    this.publicKey = getPublicKey(secretKey)
    this.conversations = new ConversationKeys(secretKey)
  }

  /**
   * A fresh random key (from the platform CSPRNG, or from `random` when given: tests pass a seeded
   * source; it must return 32 bytes of a valid scalar).
   *
   * @example
   * const alice = LocalSigner.generate()
   */
  static generate(random: () => Uint8Array = generateSecretKey): LocalSigner {
    return LocalSigner.fromBytes(random())
  }

  /**
   * From an `nsec1…` string or 64 hex characters (surrounding whitespace ignored), or 32 raw bytes.
   * Anything else throws {@link InvalidSecretKeyError} saying what is wrong.
   *
   * @example
   * LocalSigner.fromSecret('nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5')
   * LocalSigner.fromSecret('67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa')
   */
  static fromSecret(nsecOrHex: string | Uint8Array): LocalSigner {
    if (nsecOrHex instanceof Uint8Array) return LocalSigner.fromBytes(nsecOrHex)
    if (typeof nsecOrHex !== 'string')
      throw new InvalidSecretKeyError('expected an nsec or 64 hex characters')
    const input = nsecOrHex.trim()
    if (HEX64.test(input)) return LocalSigner.fromBytes(hexToBytes(input.toLowerCase()))
    if (/^nsec1/i.test(input)) {
      let decoded: ReturnType<typeof decode>
      try {
        decoded = decode(input.toLowerCase())
      } catch (e) {
        throw new InvalidSecretKeyError(`not a valid nsec: ${(e as Error).message}`)
      }
      if (decoded.type !== 'nsec') throw new InvalidSecretKeyError('not a valid nsec')
      return LocalSigner.fromBytes(decoded.data)
    }
    if (/^npub1/i.test(input)) {
      throw new InvalidSecretKeyError('that is a public key (npub); a secret key (nsec) is needed')
    }
    if (/^[0-9a-fA-F]+$/.test(input)) {
      throw new InvalidSecretKeyError(`a hex secret key has 64 characters, this one has ${input.length}`)
    }
    throw new InvalidSecretKeyError('expected an nsec1… string or 64 hex characters')
  }

  private static fromBytes(bytes: Uint8Array): LocalSigner {
    if (!(bytes instanceof Uint8Array) || bytes.length !== 32) {
      throw new InvalidSecretKeyError('a secret key is 32 bytes')
    }
    try {
      return new LocalSigner(Uint8Array.from(bytes))
    } catch {
      // zero or ≥ the curve order: noble refuses it
      throw new InvalidSecretKeyError('not a valid secp256k1 secret key (zero or out of range)')
    }
  }

  /** The secret key as `nsec1…`, for backup or export. */
  nsec(): string {
    return nsecEncode(this.secretKey)
  }

  /** The secret key as 64 lowercase hex. */
  hex(): string {
    return bytesToHex(this.secretKey)
  }

  async getPublicKey(): Promise<string> {
    return this.publicKey
  }

  /**
   * Signs a copy of `template` (the template itself is left untouched); a malformed template throws
   * {@link InvalidTemplateError}.
   */
  async signEvent(template: EventTemplate): Promise<VerifiedEvent> {
    const event = finalizeEvent(checkTemplate(template), this.secretKey)
    return brandVerified(event) // finalizeEvent brands with nostr-tools/pure's symbol only
  }

  /**
   * NIP-44 v2 with this key, through our own implementation (./nip44: native base64, checked
   * against the official vectors and nostr-tools). Plaintexts are 1–65,535 bytes, so every peer
   * can read them; errors are {@link EncryptError}, {@link DecryptError} and, for a bad peer key,
   * {@link InvalidPublicKeyError}. Conversation keys are cached per peer.
   *
   * @example
   * const payload = await signer.nip44.encrypt(signer.publicKey, '{"v":1,…}') // to self
   * const plaintext = await signer.nip44.decrypt(signer.publicKey, payload)
   */
  readonly nip44 = {
    /** Encrypts `plaintext` to `pubkey`: a NIP-44 v2 payload (base64). */
    encrypt: async (pubkey: string, plaintext: string): Promise<string> =>
      nip44Encrypt(plaintext, this.conversations.get(pubkey)),
    /** Decrypts a NIP-44 v2 payload `pubkey` sent. */
    decrypt: async (pubkey: string, ciphertext: string): Promise<string> =>
      nip44Decrypt(ciphertext, this.conversations.get(pubkey)),
  }
}
