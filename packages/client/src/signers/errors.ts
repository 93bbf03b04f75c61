import { RoostError } from '@roost/nip29'

/**
 * The secret key given to {@link LocalSigner.fromSecret} is not an `nsec1…` string or 64 hex
 * characters, or is not a valid secp256k1 scalar.
 *
 * @example
 * try { LocalSigner.fromSecret('npub1…') } catch (e) { if (e instanceof InvalidSecretKeyError) show(e.message) }
 */
export class InvalidSecretKeyError extends RoostError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid-secret-key', message, options)
  }
}

/**
 * A peer public key handed to `nip44.encrypt/decrypt` is not 64 lowercase hex characters of a
 * point on the curve.
 *
 * @example
 * await signer.nip44.encrypt('not-a-key', 'hi') // throws InvalidPublicKeyError
 */
export class InvalidPublicKeyError extends RoostError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid-pubkey', message, options)
  }
}

/**
 * No signer is there to ask: no `window.nostr` extension is installed (or it has not been injected
 * yet).
 *
 * @example
 * try { await new Nip07Signer().getPublicKey() } catch (e) { if (e instanceof SignerUnavailableError) askToInstall() }
 */
export class SignerUnavailableError extends RoostError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('signer-unavailable', message, options)
  }
}

/**
 * The signer exists but cannot do what was asked, e.g. an extension without `nip44`.
 * `method` names the missing capability.
 *
 * @example
 * catch (e) { if (e instanceof SignerUnsupportedError && e.method === 'nip44') disableReadStateSync() }
 */
export class SignerUnsupportedError extends RoostError {
  constructor(
    /** The signer method that is missing (e.g. `nip44`). */
    readonly method: string,
    message = `the signer does not support ${method}`,
  ) {
    super('signer-unsupported', message)
  }
}

/**
 * The signer answered with an error (the user declined, the bunker refused) or with something that
 * is not what was asked for (an event that does not verify or does not match the template).
 * `reason` carries the signer's own text.
 *
 * @example
 * catch (e) { if (e instanceof SignerRefusedError) toast(`Signer said: ${e.reason}`) }
 */
export class SignerRefusedError extends RoostError {
  constructor(
    /** The signer's own text (the extension's or the remote signer's). */
    readonly reason: string,
  ) {
    super('signer-refused', `the signer refused: ${reason}`)
  }
}

/**
 * A remote signer (NIP-46 bunker) did not answer within the timeout.
 *
 * @example
 * catch (e) { if (e instanceof SignerTimeoutError) toast('Your bunker is not answering') }
 */
export class SignerTimeoutError extends RoostError {
  constructor(
    /** The signer method that did not answer. */
    readonly method: string,
    /** How long we waited, in milliseconds. */
    readonly timeoutMs: number,
  ) {
    super('signer-timeout', `the signer did not answer ${method} within ${timeoutMs} ms`)
  }
}

/**
 * A `bunker://` URL could not be parsed: wrong scheme, a remote key that is not 64 hex, or no
 * `relay` parameter (there would be nowhere to send requests).
 *
 * @example
 * catch (e) { if (e instanceof InvalidBunkerUrlError) form.error = e.message }
 */
export class InvalidBunkerUrlError extends RoostError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid-bunker-url', message, options)
  }
}

/**
 * A NIP-44 payload could not be decrypted: bad base64, unknown version, wrong MAC (wrong key or
 * tampered payload), or bad padding.
 *
 * @example
 * catch (e) { if (e instanceof DecryptError) ignoreThisBlob() }
 */
export class DecryptError extends RoostError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('decrypt-failed', message, options)
  }
}

/**
 * A plaintext could not be NIP-44 encrypted, e.g. it is empty or longer than 65,535 bytes.
 *
 * @example
 * catch (e) { if (e instanceof EncryptError) shrinkPayload() }
 */
export class EncryptError extends RoostError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('encrypt-failed', message, options)
  }
}

/**
 * The template handed to `signEvent` is not a NIP-01 event template: `kind` must be an integer in
 * 0–65535, `created_at` a non-negative integer, `content` a string, `tags` an array of string
 * arrays. Thrown before any signer (extension, bunker) is asked.
 *
 * @example
 * await signer.signEvent({ kind: 9, tags: [], content: 'hi', created_at: Date.now() / 1000 }) // fractional: rejects
 */
export class InvalidTemplateError extends RoostError {
  constructor(message: string) {
    super('invalid-template', message)
  }
}
