import { InvalidPublicKeyError } from './errors'
import { getConversationKey } from './nip44'

const HEX64 = /^[0-9a-f]{64}$/

/**
 * Caches NIP-44 conversation keys per peer (an ECDH plus HKDF each, worth keeping), evicting the
 * oldest once `capacity` peers are held. Internal to the signers.
 */
export class ConversationKeys {
  private readonly keys = new Map<string, Uint8Array>()

  constructor(
    private readonly secretKey: Uint8Array,
    private readonly capacity = 1024,
  ) {}

  get(pubkey: string): Uint8Array {
    const cached = this.keys.get(pubkey)
    if (cached) return cached
    if (typeof pubkey !== 'string' || !HEX64.test(pubkey)) {
      throw new InvalidPublicKeyError(`not a 64-hex public key: ${String(pubkey).slice(0, 80)}`)
    }
    const key = getConversationKey(this.secretKey, pubkey) // InvalidPublicKeyError off the curve
    if (this.keys.size >= this.capacity) {
      const oldest = this.keys.keys().next().value
      if (oldest !== undefined) this.keys.delete(oldest)
    }
    this.keys.set(pubkey, key)
    return key
  }

  /** How many peers are cached (for tests and diagnostics). */
  get size(): number {
    return this.keys.size
  }
}
