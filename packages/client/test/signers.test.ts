import { hexToBytes } from '@noble/hashes/utils.js'
import fc from 'fast-check'
import { verifiedSymbol } from 'nostr-tools/core'
import { npubEncode } from 'nostr-tools/nip19'
import { v2 } from 'nostr-tools/nip44'
import { getPublicKey, verifyEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import {
  DecryptError,
  EncryptError,
  InvalidPublicKeyError,
  InvalidSecretKeyError,
  InvalidTemplateError,
  LocalSigner,
} from '../src/signers'
import { ConversationKeys } from '../src/signers/nip44-keys'
import vectors from './fixtures/nip44.vectors.json'

const template = { kind: 9, tags: [['h', 'general']], content: 'hello', created_at: 1_700_000_000 }

/** A fresh, unbranded copy, so nostr-tools checks the signature itself. */
function fresh<T extends object>(event: T): T {
  return JSON.parse(JSON.stringify(event))
}

describe('LocalSigner', () => {
  it('generates distinct keys whose public key matches the secret', async () => {
    const a = LocalSigner.generate()
    const b = LocalSigner.generate()
    expect(a.secretKey).toHaveLength(32)
    expect(a.publicKey).not.toBe(b.publicKey)
    expect(await a.getPublicKey()).toBe(getPublicKey(a.secretKey))
  })

  it('generate takes an injected randomness source', () => {
    const key = hexToBytes('67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa')
    expect(LocalSigner.generate(() => key).publicKey).toBe(
      '7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e',
    )
    expect(() => LocalSigner.generate(() => new Uint8Array(32))).toThrow(InvalidSecretKeyError)
  })

  it('signs a template into an event that nostr-tools verifies, leaving the template untouched', async () => {
    const signer = LocalSigner.generate()
    const original = structuredClone(template)
    const event = await signer.signEvent(template)
    expect(template).toEqual(original)
    expect(event).toMatchObject({ ...template, pubkey: signer.publicKey })
    expect(event[verifiedSymbol]).toBe(true)
    expect(verifyEvent(fresh(event))).toBe(true)
    expect(verifyEvent({ ...fresh(event), content: 'tampered' })).toBe(false)
  })

  it.each([
    ['a fractional created_at', { ...template, created_at: 1_700_000_000.5 }],
    ['a negative created_at', { ...template, created_at: -1 }],
    ['a kind above 65535', { ...template, kind: 70_000 }],
    ['a string kind', { ...template, kind: '9' }],
    ['non-string content', { ...template, content: 5 }],
    ['a non-string tag value', { ...template, tags: [['h', 5]] }],
    ['tags that are not arrays', { ...template, tags: 'h' }],
  ])('refuses to sign a template with %s (InvalidTemplateError)', async (_label, bad) => {
    const error = await LocalSigner.generate()
      .signEvent(bad as unknown as typeof template)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidTemplateError)
    expect((error as InvalidTemplateError).code).toBe('invalid-template')
  })

  it('signs only the four template fields', async () => {
    const event = await LocalSigner.generate().signEvent({
      ...template,
      id: 'x',
      extra: 1,
    } as typeof template)
    expect(Object.keys(event).sort()).toEqual([
      'content',
      'created_at',
      'id',
      'kind',
      'pubkey',
      'sig',
      'tags',
    ])
    expect(verifyEvent(fresh(event))).toBe(true)
  })

  it('reads the NIP-19 nsec example and its hex form to the same key', () => {
    const nsec = 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5'
    const hex = '67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa'
    const fromNsec = LocalSigner.fromSecret(nsec)
    expect(fromNsec.hex()).toBe(hex)
    expect(fromNsec.nsec()).toBe(nsec)
    expect(LocalSigner.fromSecret(hex).publicKey).toBe(fromNsec.publicKey)
    expect(LocalSigner.fromSecret(`  ${hex.toUpperCase()}\n`).publicKey).toBe(fromNsec.publicKey)
    expect(LocalSigner.fromSecret(nsec.toUpperCase()).publicKey).toBe(fromNsec.publicKey)
    expect(LocalSigner.fromSecret(hexToBytes(hex)).publicKey).toBe(fromNsec.publicKey)
  })

  it('round-trips any valid key through nsec() and hex()', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        fc.pre(bytes.some((b) => b !== 0) && bytes[0] !== 0xff) // stays below the curve order
        const signer = LocalSigner.fromSecret(bytes)
        expect(LocalSigner.fromSecret(signer.nsec()).publicKey).toBe(signer.publicKey)
        expect(LocalSigner.fromSecret(signer.hex()).publicKey).toBe(signer.publicKey)
      }),
      { numRuns: 50 },
    )
  })

  it.each([
    ['an npub', npubEncode('7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e'), /public key/],
    ['short hex', 'abcdef', /64 characters, this one has 6/],
    ['garbage', 'hello world', /nsec1… string or 64 hex/],
    ['an empty string', '', /nsec1… string or 64 hex/],
    [
      'an nsec with a broken checksum',
      'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe6',
      /not a valid nsec/,
    ],
    ['zero', '0'.repeat(64), /zero or out of range/],
    ['the curve order', 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', /out of range/],
    ['all ff', 'f'.repeat(64), /out of range/],
  ])('refuses %s with a typed error', (_label, input, message) => {
    let thrown: unknown
    try {
      LocalSigner.fromSecret(input)
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(InvalidSecretKeyError)
    expect((thrown as InvalidSecretKeyError).code).toBe('invalid-secret-key')
    expect((thrown as Error).message).toMatch(message)
  })

  it('refuses a non-string, non-bytes secret and wrong-length bytes', () => {
    expect(() => LocalSigner.fromSecret(42 as unknown as string)).toThrow(InvalidSecretKeyError)
    expect(() => LocalSigner.fromSecret(new Uint8Array(31))).toThrow(InvalidSecretKeyError)
  })
})

describe('LocalSigner NIP-44 (official vectors, sha256 269ed0f6…5040)', () => {
  const v = vectors.v2

  it.each(v.valid.encrypt_decrypt)('decrypts the vector payload for $plaintext', async (vector) => {
    const sender = LocalSigner.fromSecret(vector.sec1)
    const receiver = LocalSigner.fromSecret(vector.sec2)
    expect(await receiver.nip44.decrypt(sender.publicKey, vector.payload)).toBe(vector.plaintext)
    expect(await sender.nip44.decrypt(receiver.publicKey, vector.payload)).toBe(vector.plaintext)
    // What we encrypt (random nonce) the vector's conversation key opens.
    const ours = await sender.nip44.encrypt(receiver.publicKey, vector.plaintext)
    expect(v2.decrypt(ours, hexToBytes(vector.conversation_key))).toBe(vector.plaintext)
  })

  it.each(v.valid.get_conversation_key)(
    'derives the vector conversation key for pub2 $pub2',
    async (vector) => {
      const signer = LocalSigner.fromSecret(vector.sec1)
      const payload = await signer.nip44.encrypt(vector.pub2, 'vector check')
      expect(v2.decrypt(payload, hexToBytes(vector.conversation_key))).toBe('vector check')
    },
  )

  it.each(v.invalid.get_conversation_key)('refuses the invalid key pair: $note', async (vector) => {
    let thrown: unknown
    try {
      const signer = LocalSigner.fromSecret(vector.sec1)
      await signer.nip44.encrypt(vector.pub2, 'x')
    } catch (e) {
      thrown = e
    }
    expect(vector.note.startsWith('sec1') ? InvalidSecretKeyError : InvalidPublicKeyError).toBe(
      (thrown as object).constructor,
    )
  })

  it('round-trips between two users, and another key cannot read it', async () => {
    const alice = LocalSigner.generate()
    const bob = LocalSigner.generate()
    const eve = LocalSigner.generate()
    const payload = await alice.nip44.encrypt(bob.publicKey, 'read state ✓')
    expect(await bob.nip44.decrypt(alice.publicKey, payload)).toBe('read state ✓')
    await expect(eve.nip44.decrypt(alice.publicKey, payload)).rejects.toBeInstanceOf(DecryptError)
  })

  it('encrypts to self (the read-state case)', async () => {
    const me = LocalSigner.generate()
    const payload = await me.nip44.encrypt(me.publicKey, '{"v":1}')
    expect(await me.nip44.decrypt(me.publicKey, payload)).toBe('{"v":1}')
  })

  it('turns a tampered, truncated or non-base64 payload into DecryptError', async () => {
    const alice = LocalSigner.generate()
    const bob = LocalSigner.generate()
    const payload = await alice.nip44.encrypt(bob.publicKey, 'hello')
    const flipped = payload.slice(0, 40) + (payload[40] === 'A' ? 'B' : 'A') + payload.slice(41)
    for (const bad of [flipped, payload.slice(0, 60), '#not base64', '']) {
      const error = await bob.nip44.decrypt(alice.publicKey, bad).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(DecryptError)
      expect((error as DecryptError).code).toBe('decrypt-failed')
    }
  })

  it('refuses an empty or oversized plaintext with EncryptError and a bad peer key with InvalidPublicKeyError', async () => {
    const alice = LocalSigner.generate()
    await expect(alice.nip44.encrypt(alice.publicKey, '')).rejects.toBeInstanceOf(EncryptError)
    await expect(alice.nip44.encrypt(alice.publicKey, 'x'.repeat(65_536))).rejects.toBeInstanceOf(
      EncryptError,
    )
    await expect(alice.nip44.encrypt(alice.publicKey, 'é'.repeat(32_768))).rejects.toThrow(/65535 bytes/)
    const max = await alice.nip44.encrypt(alice.publicKey, 'x'.repeat(65_535))
    expect(await alice.nip44.decrypt(alice.publicKey, max)).toHaveLength(65_535)
    await expect(alice.nip44.encrypt('npub1xyz', 'hi')).rejects.toBeInstanceOf(InvalidPublicKeyError)
    await expect(alice.nip44.decrypt('AB'.repeat(32), 'hi')).rejects.toBeInstanceOf(InvalidPublicKeyError)
  })

  it('caches one conversation key per peer and evicts the oldest beyond capacity', () => {
    const me = LocalSigner.generate()
    const peers = [LocalSigner.generate(), LocalSigner.generate(), LocalSigner.generate()].map(
      (s) => s.publicKey,
    )
    const keys = new ConversationKeys(me.secretKey, 2)
    const first = keys.get(peers[0] as string)
    expect(keys.get(peers[0] as string)).toBe(first) // same object: not derived again
    keys.get(peers[1] as string)
    keys.get(peers[2] as string)
    expect(keys.size).toBe(2)
    const again = keys.get(peers[0] as string)
    expect(again).not.toBe(first) // evicted, derived anew
    expect(again).toEqual(first)
  })
})
