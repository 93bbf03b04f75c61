import type { EventTemplate, VerifiedEvent } from 'nostr-tools/core'

/**
 * What Roost needs from a key holder: its public key, event signing, and NIP-44 encryption (the
 * read-state blob is NIP-44 encrypted to oneself). Implemented by {@link LocalSigner},
 * {@link Nip07Signer} and {@link Nip46Signer}; any object of this shape works.
 *
 * @example
 * async function post(signer: Signer, template: EventTemplate) {
 *   const event = await signer.signEvent(template) // id, pubkey and sig filled in, verified
 *   return pool.publish([relay], event)
 * }
 */
export interface Signer {
  /** The signing key's public key, 64 lowercase hex. */
  getPublicKey(): Promise<string>
  /** Signs a template; the result carries `id`, `pubkey` and `sig` and is branded verified. */
  signEvent(template: EventTemplate): Promise<VerifiedEvent>
  /** NIP-44 v2 with the conversation key between this signer's key and `pubkey`. */
  nip44: {
    /** Encrypts `plaintext` to `pubkey`: a NIP-44 v2 payload (base64). */
    encrypt(pubkey: string, plaintext: string): Promise<string>
    /** Decrypts a NIP-44 v2 payload `pubkey` sent; rejects when it does not decrypt. */
    decrypt(pubkey: string, ciphertext: string): Promise<string>
  }
}

/**
 * The NIP-07 `window.nostr` shape (the parts Roost uses). Any object of this shape can back a
 * {@link Nip07Signer}.
 *
 * @example
 * const ext: WindowNostr | undefined = (window as { nostr?: WindowNostr }).nostr
 * const signer = new Nip07Signer(ext)
 */
export interface WindowNostr {
  /** The extension's public key, 64 lowercase hex (may prompt the user). */
  getPublicKey(): Promise<string>
  /** Signs a template with the extension's key (may prompt the user). */
  signEvent(event: EventTemplate): Promise<VerifiedEvent>
  /** NIP-44 v2, when the extension supports it. */
  nip44?: {
    /** Encrypts `plaintext` to `pubkey`: a NIP-44 v2 payload (base64). */
    encrypt(pubkey: string, plaintext: string): Promise<string>
    /** Decrypts a NIP-44 v2 payload `pubkey` sent. */
    decrypt(pubkey: string, ciphertext: string): Promise<string>
  }
}
