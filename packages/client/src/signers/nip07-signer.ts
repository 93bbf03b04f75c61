import type { EventTemplate, VerifiedEvent } from 'nostr-tools/core'
import { nobleVerifier, type Verifier } from '../verify'
import { checkSigned, checkTemplate } from './check-signed'
import { SignerRefusedError, SignerUnavailableError, SignerUnsupportedError } from './errors'
import type { Signer, WindowNostr } from './signer'

/**
 * A signer backed by a NIP-07 browser extension (`window.nostr`: Alby, nos2x, Flamingo, …).
 *
 * Without an argument it looks up `window.nostr` on every call, so an extension injected after
 * page load is still found. Throws {@link SignerUnavailableError} when there is none and
 * {@link SignerUnsupportedError} (`method: 'nip44'`) when the extension lacks NIP-44. A user's
 * "deny" or any extension failure becomes {@link SignerRefusedError} with the extension's text;
 * signed events are verified and checked against the template before they are returned.
 *
 * @example
 * const signer = new Nip07Signer()
 * if (!signer.available()) showInstallHint()
 * const me = await signer.getPublicKey()
 */
export class Nip07Signer implements Signer {
  private cachedPubkey: string | undefined

  constructor(
    private readonly ext?: WindowNostr,
    private readonly opts: { verifier?: Verifier } = {},
  ) {}

  /** True when an extension is there to ask. */
  available(): boolean {
    return this.lookup() !== undefined
  }

  private lookup(): WindowNostr | undefined {
    if (this.ext) return this.ext
    const w = (globalThis as { window?: { nostr?: WindowNostr } }).window
    return w?.nostr
  }

  private extension(): WindowNostr {
    const ext = this.lookup()
    if (!ext) throw new SignerUnavailableError('no NIP-07 extension (window.nostr) is installed')
    return ext
  }

  async getPublicKey(): Promise<string> {
    if (this.cachedPubkey) return this.cachedPubkey
    const pubkey = await call('getPublicKey', () => this.extension().getPublicKey())
    if (typeof pubkey !== 'string' || !/^[0-9a-f]{64}$/.test(pubkey)) {
      throw new SignerRefusedError(
        `the extension returned an invalid public key: ${String(pubkey).slice(0, 80)}`,
      )
    }
    this.cachedPubkey = pubkey
    return pubkey
  }

  async signEvent(template: EventTemplate): Promise<VerifiedEvent> {
    const copy = checkTemplate(template)
    const ext = this.extension()
    const pubkey = await this.getPublicKey()
    const signed = await call('signEvent', () => ext.signEvent(copy))
    return checkSigned(signed, template, pubkey, this.opts.verifier ?? nobleVerifier)
  }

  readonly nip44 = {
    /** Encrypts `plaintext` to `pubkey`: a NIP-44 v2 payload (base64). */
    encrypt: (pubkey: string, plaintext: string): Promise<string> =>
      call('nip44.encrypt', () => this.nip44Of(this.extension()).encrypt(pubkey, plaintext)),
    /** Decrypts a NIP-44 v2 payload `pubkey` sent. */
    decrypt: (pubkey: string, ciphertext: string): Promise<string> =>
      call('nip44.decrypt', () => this.nip44Of(this.extension()).decrypt(pubkey, ciphertext)),
  }

  private nip44Of(ext: WindowNostr): NonNullable<WindowNostr['nip44']> {
    if (!ext.nip44 || typeof ext.nip44.encrypt !== 'function' || typeof ext.nip44.decrypt !== 'function') {
      throw new SignerUnsupportedError('nip44', 'the NIP-07 extension does not support NIP-44')
    }
    return ext.nip44
  }
}

/** Runs an extension call; our typed errors pass through, anything the extension throws is wrapped. */
async function call<T>(method: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    if (e instanceof SignerUnavailableError || e instanceof SignerUnsupportedError) throw e
    const text = e instanceof Error ? e.message : typeof e === 'string' ? e : JSON.stringify(e)
    throw new SignerRefusedError(`${method}: ${text}`)
  }
}
