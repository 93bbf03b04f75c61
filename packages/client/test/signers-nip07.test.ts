import type { EventTemplate, VerifiedEvent } from 'nostr-tools/core'
import { verifyEvent } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import {
  InvalidTemplateError,
  LocalSigner,
  Nip07Signer,
  SignerRefusedError,
  SignerUnavailableError,
  SignerUnsupportedError,
  type WindowNostr,
} from '../src/signers'

const template = {
  kind: 9,
  tags: [['h', 'general']],
  content: 'hi from an extension',
  created_at: 1_700_000_000,
}

/** A `window.nostr` the way extensions expose it, backed by a real key. */
function extension(signer: LocalSigner, overrides: Partial<WindowNostr> = {}): WindowNostr {
  return {
    getPublicKey: () => signer.getPublicKey(),
    signEvent: (t: EventTemplate) => signer.signEvent(t),
    nip44: { encrypt: signer.nip44.encrypt, decrypt: signer.nip44.decrypt },
    ...overrides,
  }
}

const g = globalThis as { window?: { nostr?: WindowNostr } }

afterEach(() => {
  delete g.window
})

describe('Nip07Signer', () => {
  it('signs through the extension and returns an event that verifies', async () => {
    const key = LocalSigner.generate()
    const signer = new Nip07Signer(extension(key))
    expect(await signer.getPublicKey()).toBe(key.publicKey)
    const event = await signer.signEvent(template)
    expect(event).toMatchObject({ ...template, pubkey: key.publicKey })
    expect(verifyEvent(JSON.parse(JSON.stringify(event)))).toBe(true)
  })

  it('does NIP-44 through the extension, interoperating with a local key', async () => {
    const key = LocalSigner.generate()
    const peer = LocalSigner.generate()
    const signer = new Nip07Signer(extension(key))
    const payload = await signer.nip44.encrypt(peer.publicKey, 'secret')
    expect(await peer.nip44.decrypt(key.publicKey, payload)).toBe('secret')
    expect(await signer.nip44.decrypt(peer.publicKey, await peer.nip44.encrypt(key.publicKey, 'back'))).toBe(
      'back',
    )
  })

  it('finds window.nostr injected after construction', async () => {
    const key = LocalSigner.generate()
    const signer = new Nip07Signer()
    expect(signer.available()).toBe(false)
    g.window = { nostr: extension(key) }
    expect(signer.available()).toBe(true)
    expect(await signer.getPublicKey()).toBe(key.publicKey)
  })

  it('throws SignerUnavailableError when there is no extension', async () => {
    const signer = new Nip07Signer()
    const error = await signer.getPublicKey().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SignerUnavailableError)
    expect((error as SignerUnavailableError).code).toBe('signer-unavailable')
    await expect(signer.signEvent(template)).rejects.toBeInstanceOf(SignerUnavailableError)
    await expect(signer.nip44.encrypt('a'.repeat(64), 'x')).rejects.toBeInstanceOf(SignerUnavailableError)
  })

  it('throws SignerUnsupportedError naming nip44 when the extension lacks it', async () => {
    const key = LocalSigner.generate()
    const ext = extension(key)
    delete ext.nip44
    const signer = new Nip07Signer(ext)
    expect(await signer.getPublicKey()).toBe(key.publicKey) // the rest still works
    const error = await signer.nip44.decrypt(key.publicKey, 'x').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SignerUnsupportedError)
    expect((error as SignerUnsupportedError).method).toBe('nip44')
    expect((error as SignerUnsupportedError).code).toBe('signer-unsupported')
  })

  it('turns a user rejection (bare string or Error) into SignerRefusedError with the text', async () => {
    const key = LocalSigner.generate()
    const signer = new Nip07Signer(
      extension(key, {
        signEvent: () => Promise.reject('User rejected the request'),
        nip44: {
          encrypt: () => Promise.reject(new Error('Permission denied')),
          decrypt: () => Promise.reject(new Error('Permission denied')),
        },
      }),
    )
    const error = await signer.signEvent(template).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SignerRefusedError)
    expect((error as SignerRefusedError).reason).toContain('User rejected the request')
    await expect(signer.nip44.encrypt(key.publicKey, 'x')).rejects.toThrow(/Permission denied/)
  })

  it('refuses an extension that signs something else, with another key, or a bad signature', async () => {
    const key = LocalSigner.generate()
    const other = LocalSigner.generate()
    const altered = new Nip07Signer(
      extension(key, { signEvent: (t) => key.signEvent({ ...t, content: 'something else' }) }),
    )
    await expect(altered.signEvent(template)).rejects.toThrow(/changed the event/)
    const wrongKey = new Nip07Signer(extension(key, { signEvent: (t) => other.signEvent(t) }))
    await expect(wrongKey.signEvent(template)).rejects.toThrow(/another key/)
    const badSig = new Nip07Signer(
      extension(key, {
        signEvent: async (t) => {
          const e = await key.signEvent(t)
          return { ...e, sig: e.sig.replace(/^./, e.sig[0] === 'a' ? 'b' : 'a') } as VerifiedEvent
        },
      }),
    )
    await expect(badSig.signEvent(template)).rejects.toThrow(/does not verify/)
  })

  it('refuses a bad template before asking the extension', async () => {
    const key = LocalSigner.generate()
    let asked = 0
    const signer = new Nip07Signer(
      extension(key, {
        signEvent: (t) => {
          asked++
          return key.signEvent(t)
        },
      }),
    )
    await expect(signer.signEvent({ ...template, created_at: 1.5 })).rejects.toBeInstanceOf(
      InvalidTemplateError,
    )
    expect(asked).toBe(0)
  })

  it('refuses an invalid public key from the extension', async () => {
    const key = LocalSigner.generate()
    const signer = new Nip07Signer(extension(key, { getPublicKey: async () => 'npub1nope' }))
    await expect(signer.getPublicKey()).rejects.toBeInstanceOf(SignerRefusedError)
  })
})
