import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { expand } from '@noble/hashes/hkdf.js'
import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { finalizeEvent, getPublicKey, verifyEvent } from 'nostr-tools'
import * as nip44 from 'nostr-tools/nip44'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_BUDGET_BYTES,
  mergeContexts,
  parseBlob,
  ReadStateEngine,
  readSlot,
  readStateTags,
  serializeBlob,
} from '../src'

/**
 * The official NIP-44 v2 vectors (sha256 269ed0f6…5040) against nostr-tools, our NIP-44
 * dependency, plus the NIP-RS ciphertext vector and the full encrypt-to-self pipeline.
 */
const raw = readFileSync(new URL('./fixtures/nip44.vectors.json', import.meta.url))
const vectors = JSON.parse(raw.toString('utf8'))
const v2 = vectors.v2
const sha256hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')

describe('official NIP-44 vectors against nostr-tools', () => {
  it('is the pinned file', () => {
    expect(createHash('sha256').update(raw).digest('hex')).toBe(
      '269ed0f69e4c192512cc779e78c555090cebc7c785b609e338a62afc3ce25040',
    )
  })

  it('valid.get_conversation_key (35)', () => {
    expect(v2.valid.get_conversation_key).toHaveLength(35)
    for (const v of v2.valid.get_conversation_key) {
      expect(bytesToHex(nip44.getConversationKey(hexToBytes(v.sec1), v.pub2))).toBe(v.conversation_key)
    }
  })

  it('valid.get_message_keys (32): same chacha key, nonce and hmac key through encryption', () => {
    // nostr-tools does not export its message-key derivation; HKDF-expand per the NIP instead,
    // then prove nostr-tools uses the same keys by recomputing its MAC.
    const { conversation_key, keys } = v2.valid.get_message_keys
    expect(keys).toHaveLength(32)
    for (const k of keys) {
      const out = expand(sha256, hexToBytes(conversation_key), hexToBytes(k.nonce), 76)
      expect(bytesToHex(out.subarray(0, 32))).toBe(k.chacha_key)
      expect(bytesToHex(out.subarray(32, 44))).toBe(k.chacha_nonce)
      expect(bytesToHex(out.subarray(44, 76))).toBe(k.hmac_key)
      const payload = Buffer.from(
        nip44.encrypt('x', hexToBytes(conversation_key), hexToBytes(k.nonce)),
        'base64',
      )
      const mac = hmac(sha256, hexToBytes(k.hmac_key), payload.subarray(1, payload.length - 32))
      expect(bytesToHex(mac)).toBe(bytesToHex(payload.subarray(payload.length - 32)))
    }
  })

  it('valid.calc_padded_len (24)', () => {
    expect(v2.valid.calc_padded_len).toHaveLength(24)
    for (const [len, padded] of v2.valid.calc_padded_len)
      expect(nip44.v2.utils.calcPaddedLen(len)).toBe(padded)
  })

  it('valid.encrypt_decrypt (10): exact payloads both ways', () => {
    expect(v2.valid.encrypt_decrypt).toHaveLength(10)
    for (const v of v2.valid.encrypt_decrypt) {
      const key = nip44.getConversationKey(hexToBytes(v.sec1), getPublicKey(hexToBytes(v.sec2)))
      expect(bytesToHex(key)).toBe(v.conversation_key)
      expect(nip44.encrypt(v.plaintext, key, hexToBytes(v.nonce))).toBe(v.payload)
      expect(nip44.decrypt(v.payload, key)).toBe(v.plaintext)
    }
  })

  it('valid.encrypt_decrypt_long_msg (3): sha256 of plaintext and payload', () => {
    expect(v2.valid.encrypt_decrypt_long_msg).toHaveLength(3)
    for (const v of v2.valid.encrypt_decrypt_long_msg) {
      const plaintext = v.pattern.repeat(v.repeat)
      expect(sha256hex(plaintext)).toBe(v.plaintext_sha256)
      const payload = nip44.encrypt(plaintext, hexToBytes(v.conversation_key), hexToBytes(v.nonce))
      expect(sha256hex(payload)).toBe(v.payload_sha256)
      expect(nip44.decrypt(payload, hexToBytes(v.conversation_key))).toBe(plaintext)
    }
  })

  it('invalid.get_conversation_key (8) throws', () => {
    expect(v2.invalid.get_conversation_key).toHaveLength(8)
    for (const v of v2.invalid.get_conversation_key) {
      expect(() => nip44.getConversationKey(hexToBytes(v.sec1), v.pub2), v.note).toThrow()
    }
  })

  it('invalid.decrypt (12) throws', () => {
    expect(v2.invalid.decrypt).toHaveLength(12)
    for (const v of v2.invalid.decrypt) {
      expect(() => nip44.decrypt(v.payload, hexToBytes(v.conversation_key)), v.note).toThrow()
    }
  })

  it('invalid.encrypt_msg_lengths: an empty message is refused (larger ones are valid since the extended prefix)', () => {
    const key = hexToBytes(v2.valid.encrypt_decrypt[0].conversation_key)
    expect(() => nip44.encrypt('', key)).toThrow()
  })
})

describe('NIP-RS ciphertext vector and the encrypt-to-self pipeline', () => {
  const sk = hexToBytes('0000000000000000000000000000000000000000000000000000000000000001')
  const pk = getPublicKey(sk)
  const selfKey = nip44.getConversationKey(sk, pk)
  const vector =
    'Akt10yui5aDIjfH+xED2Dr1NJ/SGWp85SC/r/bloiLRtj8K59rJrYhcfsNQMoMhpLlvhKqrN0HIGb9/V9BcYKxWV8HT/jjDdvfHLUVfo688I6WpapcX41GzL4VnGGDdFyUom53odJncjHszS3dpTrG1OKp2x9dtdG+924/+Ne49KN4nztd1pikqYeqQuxflKCmh+VcCFbDclQ8a9NUpqWkPpeoweISVVuZDnP9WFoKG5X6YcpXBWH6wjc69xK4cs6KkJ'
  const plaintext =
    '{"v":1,"client_id":"test-vector-client","contexts":{"group:general":1700001000,"group:dev":1700000500}}'

  it('key 1 has the generator as its public key and the known self conversation key', () => {
    expect(pk).toBe('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798')
    expect(bytesToHex(selfKey)).toBe('3b4610cb7189beb9cc29eb3716ecc6102f1247e8f3101a03a1787d8908aeb54e')
  })

  it('decrypts the spec vector exactly, and parseBlob reads it', () => {
    expect(nip44.decrypt(vector, selfKey)).toBe(plaintext)
    const r = parseBlob(nip44.decrypt(vector, selfKey))
    expect(r.ok && r.blob).toEqual({
      v: 1,
      clientId: 'test-vector-client',
      contexts: { 'group:general': 1700001000, 'group:dev': 1700000500 },
    })
  })

  it('two encryptions differ (random nonce) and both decrypt; the payload is NIP-44 v2, not JSON', () => {
    const a = nip44.encrypt(plaintext, selfKey)
    const b = nip44.encrypt(plaintext, selfKey)
    expect(a).not.toBe(b)
    expect(nip44.decrypt(a, selfKey)).toBe(plaintext)
    expect(nip44.decrypt(b, selfKey)).toBe(plaintext)
    expect(Buffer.from(a, 'base64')[0]).toBe(2)
    expect(() => JSON.parse(a)).toThrow()
  })

  it('another key cannot decrypt it; bad payloads throw so the caller discards them', () => {
    const other = hexToBytes('00'.repeat(31) + '02')
    const otherKey = nip44.getConversationKey(other, getPublicKey(other))
    expect(() => nip44.decrypt(vector, otherKey)).toThrow()
    for (const bad of [
      `#${vector.slice(1)}`,
      'not base64!!',
      `${vector.slice(0, -4)}AAAA`,
      `B${vector.slice(1)}`,
    ])
      expect(() => nip44.decrypt(bad, selfKey)).toThrow()
  })

  it('full pipeline: engine publish → encrypt to self → sign → verify → decrypt → another engine merges it', () => {
    let now = 1_700_002_000_000
    let n = 0
    const ids = () => `id${++n}`.padStart(32, '0')
    const a = new ReadStateEngine({ pubkey: pk, clock: () => now, randomId: ids })
    a.start()
    a.loaded([])
    a.markRead('group:general', 1700001000)
    a.markRead('group:dev', 1700000500)
    now += 5_000
    const fetch = a.tick().find((e) => e.type === 'fetch-own')
    expect(fetch?.type).toBe('fetch-own')
    if (fetch?.type !== 'fetch-own') return
    const pub = a.ownFetched(fetch.ref, []).find((e) => e.type === 'publish')
    if (pub?.type !== 'publish') throw new Error('expected a publish')
    const event = finalizeEvent(
      {
        kind: pub.kind,
        created_at: pub.createdAt,
        tags: pub.tags,
        content: nip44.encrypt(pub.plaintext, selfKey),
      },
      sk,
    )
    expect(verifyEvent(event)).toBe(true)
    expect(event.tags).toEqual(readStateTags(a.slotId))
    expect(readSlot(event, { pubkey: pk })).toEqual({ ok: true, slotId: a.slotId })
    a.published(pub.ref, { id: event.id, ok: true })

    const b = new ReadStateEngine({ pubkey: pk, clock: () => now, randomId: ids })
    b.start()
    const effects = b.loaded([{ event, plaintext: nip44.decrypt(event.content, selfKey) }])
    expect(b.contexts).toEqual(mergeContexts({ 'group:general': 1700001000, 'group:dev': 1700000500 }))
    expect(effects.some((e) => e.type === 'changed')).toBe(true)
    expect(serializeBlob({ clientId: a.clientId, contexts: b.contexts })).toBe(pub.plaintext)
  })
})

describe('blobs other clients publish over our budget (no budget, or a count-only trim)', () => {
  const sk = hexToBytes('0000000000000000000000000000000000000000000000000000000000000001')
  const pk = getPublicKey(sk)
  const selfKey = nip44.getConversationKey(sk, pk)

  /** A valid blob of exactly `bytes` bytes of plaintext, from another installation. */
  function plaintextOf(bytes: number): string {
    const clientId = 'buzz-desktop-old'
    const contexts: Record<string, number> = {}
    const size = () => Buffer.byteLength(serializeBlob({ clientId, contexts }))
    for (let i = 0; size() < bytes - 300; i++)
      contexts[`group:${String(i).padStart(40, '0')}`] = 1_700_000_000 + i
    // one more entry: "key":1700000000 and its comma
    const keyLength = bytes - size() - 2 - 1 - 10 - 1
    contexts[`group:${'z'.repeat(keyLength - 6)}`] = 1_700_000_000
    const text = serializeBlob({ clientId, contexts })
    expect(Buffer.byteLength(text)).toBe(bytes)
    return text
  }

  it.each([
    40_961, // the first size our old limit (65,536 payload characters) dropped
    60_000,
    65_535, // the largest NIP-44 plaintext with the 2-byte length prefix
  ])(
    'a signed, NIP-44 encrypted blob of %i bytes of plaintext is read and merged, and our publish stays in budget',
    (bytes) => {
      const plaintext = plaintextOf(bytes)
      const event = finalizeEvent(
        {
          kind: 30078,
          created_at: 1_700_002_000,
          tags: readStateTags('other-slot'),
          content: nip44.encrypt(plaintext, selfKey),
        },
        sk,
      )
      expect(verifyEvent(event)).toBe(true)
      expect(event.content.length).toBeLessThanOrEqual(87_472)
      expect(readSlot(event, { pubkey: pk })).toEqual({ ok: true, slotId: 'other-slot' })

      let now = 1_700_002_000_000
      let n = 0
      const engine = new ReadStateEngine({
        pubkey: pk,
        clock: () => now,
        randomId: () => `id${++n}`.padStart(32, '0'),
      })
      engine.start()
      engine.loaded([{ event, plaintext: nip44.decrypt(event.content, selfKey) }])
      const parsed = parseBlob(plaintext)
      if (!parsed.ok) throw new Error('expected a valid blob')
      expect(engine.contexts).toEqual(mergeContexts(parsed.blob.contexts))

      // Our own blob, carrying what we read, stays within our budget (32,768 bytes by default).
      engine.markRead('group:mine', 1_700_001_999)
      now += 5_000
      const fetch = engine.tick().find((e) => e.type === 'fetch-own')
      if (fetch?.type !== 'fetch-own') throw new Error('expected a fetch-own')
      const pub = engine.ownFetched(fetch.ref, []).find((e) => e.type === 'publish')
      if (pub?.type !== 'publish') throw new Error('expected a publish')
      expect(Buffer.byteLength(pub.plaintext)).toBeLessThanOrEqual(DEFAULT_BUDGET_BYTES)
      expect(JSON.parse(pub.plaintext).contexts['group:mine']).toBe(1_700_001_999)
    },
  )

  it('the largest NIP-44 payload (65,535 bytes) is 87,472 characters: one character more is dropped unread', () => {
    const event = finalizeEvent(
      {
        kind: 30078,
        created_at: 1_700_002_000,
        tags: readStateTags('other-slot'),
        content: nip44.encrypt(plaintextOf(65_535), selfKey),
      },
      sk,
    )
    expect(event.content.length).toBe(87_472)
    expect(readSlot({ ...event, content: `${event.content}A` }, { pubkey: pk })).toEqual({
      ok: false,
      reason: 'too-large',
    })
  })
})
