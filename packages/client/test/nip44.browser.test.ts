import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import fc from 'fast-check'
import * as nt from 'nostr-tools/nip44'
import { getPublicKey } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { DecryptError, LocalSigner } from '../src/signers'
import {
  base64,
  base64Codecs,
  decodeBase64,
  getConversationKey,
  nip44Decrypt,
  nip44Encrypt,
} from '../src/signers/nip44'
import vectors from './fixtures/nip44.vectors.json'

/**
 * NIP-44 in a real Chromium: the browser's own base64 (`Uint8Array.prototype.toBase64` /
 * `setFromBase64`) is the one in use, and it passes the official vectors and interoperates with
 * nostr-tools as the Node path does.
 */
const v = vectors.v2
const utf8 = new TextEncoder()

describe('NIP-44 in the browser', () => {
  it("uses the browser's native base64, not Buffer", () => {
    expect((globalThis as { Buffer?: unknown }).Buffer).toBeUndefined()
    // Chromium has had toBase64/setFromBase64 since 140; an older browser falls back to atob.
    const native = typeof (Uint8Array.prototype as { toBase64?: unknown }).toBase64 === 'function'
    expect(base64.name).toBe(native ? 'native' : 'atob')
    expect(base64Codecs.map((c) => c.name)).toEqual(native ? ['native', 'atob'] : ['atob'])
    expect(navigator.userAgent).toMatch(/Chrome\/(1[4-9]\d|[2-9]\d\d)\./) // the Chromium these tests run in has it
  })

  it('passes valid.encrypt_decrypt, encrypt_decrypt_long_msg and invalid.decrypt', () => {
    for (const x of v.valid.encrypt_decrypt) {
      const key = getConversationKey(hexToBytes(x.sec1), getPublicKey(hexToBytes(x.sec2)))
      expect(bytesToHex(key)).toBe(x.conversation_key)
      expect(nip44Encrypt(x.plaintext, key, hexToBytes(x.nonce))).toBe(x.payload)
      expect(nip44Decrypt(x.payload, key)).toBe(x.plaintext)
    }
    for (const x of v.valid.encrypt_decrypt_long_msg) {
      const plaintext = x.pattern.repeat(x.repeat)
      const payload = nip44Encrypt(plaintext, hexToBytes(x.conversation_key), hexToBytes(x.nonce))
      expect(bytesToHex(sha256(utf8.encode(payload)))).toBe(x.payload_sha256)
      expect(nip44Decrypt(payload, hexToBytes(x.conversation_key))).toBe(plaintext)
    }
    for (const x of v.invalid.decrypt) {
      let error: unknown
      try {
        nip44Decrypt(x.payload, hexToBytes(x.conversation_key))
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(DecryptError)
      expect((error as Error).message).toBe(x.note)
    }
  })

  it('property: each decrypts what nostr-tools encrypts and the reverse, with identical payloads for one nonce', () => {
    const key = getConversationKey(hexToBytes('11'.repeat(32)), getPublicKey(hexToBytes('22'.repeat(32))))
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 2_000 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (plaintext, nonce) => {
          expect(nip44Encrypt(plaintext, key, nonce)).toBe(nt.encrypt(plaintext, key, nonce))
          expect(nip44Decrypt(nt.encrypt(plaintext, key), key)).toBe(plaintext)
          expect(nt.decrypt(nip44Encrypt(plaintext, key), key)).toBe(plaintext.replace(/^\uFEFF/, ''))
        },
      ),
      { numRuns: 40 },
    )
    const big = '{"v":1,"contexts":{"é":1}}'.repeat(2_400) // about 65 KB
    expect(nip44Decrypt(nt.encrypt(big, key), key)).toBe(big)
  })

  it('property: the atob fallback agrees with the native codec, accepting and refusing the same strings', () => {
    const native = base64Codecs[0]
    const atob = base64Codecs.at(-1)
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 500 }),
        fc.nat(),
        fc.constantFrom('A', 'Q', '+', '/', '=', '-', ' ', '\n'),
        (bytes, where, char) => {
          const text = native!.encode(bytes)
          expect(atob!.encode(bytes)).toBe(text)
          const at = where % (text.length + 1)
          const mutated = text.slice(0, at) + char + text.slice(at + 1)
          const outcome = (codec: typeof native) => {
            try {
              return bytesToHex(decodeBase64(mutated, codec))
            } catch (e) {
              expect(e).toBeInstanceOf(DecryptError)
              return 'refused'
            }
          }
          expect(outcome(atob)).toBe(outcome(native))
        },
      ),
      { numRuns: 200 },
    )
  })

  it('LocalSigner encrypts to self and reads back in the page', async () => {
    const me = LocalSigner.generate()
    const plaintext = '{"v":1,"client_id":"browser","contexts":{"g":1700000000}}'
    const payload = await me.nip44.encrypt(me.publicKey, plaintext)
    expect(await me.nip44.decrypt(me.publicKey, payload)).toBe(plaintext)
    expect(nt.decrypt(payload, nt.getConversationKey(me.secretKey, me.publicKey))).toBe(plaintext)
  })
})
