import fc from 'fast-check'
import { finalizeEvent, type NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import {
  AuthorizationError,
  authorizesBlob,
  blossomAuthTemplate,
  checkBlossomAuth,
  decodeAuthHeader,
  encodeAuthHeader,
  InvalidArgumentError,
  parseBlobDescriptor,
} from '../src/index'
import { alice, aliceSecret } from './helpers'

const now = 1_700_000_000
const sha = 'b'.repeat(64)
const other = 'c'.repeat(64)

function signedAuth(over: Partial<Parameters<typeof blossomAuthTemplate>[0]> = {}): NostrEvent {
  return finalizeEvent(
    blossomAuthTemplate({ verb: 'upload', sha256: sha, expiration: now + 300, createdAt: now, ...over }),
    aliceSecret,
  )
}

describe('blossomAuthTemplate (BUD-01 kind 24242)', () => {
  it('carries t, x, expiration and server tags', () => {
    expect(
      blossomAuthTemplate({
        verb: 'upload',
        sha256: [sha, sha, other],
        expiration: now + 60,
        createdAt: now,
        servers: ['cdn.example.com'],
      }),
    ).toEqual({
      kind: 24242,
      content: 'Upload blob',
      created_at: now,
      tags: [
        ['t', 'upload'],
        ['x', sha],
        ['x', other],
        ['expiration', String(now + 60)],
        ['server', 'cdn.example.com'],
      ],
    })
    expect(
      blossomAuthTemplate({ verb: 'list', expiration: now + 1, createdAt: now, content: 'List' }).tags,
    ).toEqual([
      ['t', 'list'],
      ['expiration', String(now + 1)],
    ])
  })

  it('refuses what a server would refuse', () => {
    expect(() => blossomAuthTemplate({ verb: 'upload', expiration: now + 1, createdAt: now })).toThrow(
      InvalidArgumentError,
    )
    expect(() =>
      blossomAuthTemplate({ verb: 'steal' as never, expiration: now + 1, createdAt: now }),
    ).toThrow(InvalidArgumentError)
    expect(() =>
      blossomAuthTemplate({ verb: 'delete', sha256: 'xyz', expiration: now + 1, createdAt: now }),
    ).toThrow(InvalidArgumentError)
    expect(() => blossomAuthTemplate({ verb: 'get', expiration: now, createdAt: now })).toThrow(/expiration/)
    expect(() =>
      blossomAuthTemplate({ verb: 'get', expiration: now + 5, createdAt: now, servers: ['HTTP://x'] }),
    ).toThrow(InvalidArgumentError)
  })
})

describe('Authorization: Nostr <base64>', () => {
  it('round-trips a signed event, unicode content included', () => {
    const event = signedAuth({ content: 'Téléverser 🌻' })
    const header = encodeAuthHeader(event)
    expect(header.startsWith('Nostr ')).toBe(true)
    const plain = JSON.parse(JSON.stringify(event))
    expect(decodeAuthHeader(header)).toEqual(plain)
    const urlSafe = header.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    expect(decodeAuthHeader(urlSafe)).toEqual(plain)
  })

  it('throws a typed reason for each kind of garbage', () => {
    const reasons: [unknown, string][] = [
      [undefined, 'missing'],
      ['', 'missing'],
      ['Bearer abc', 'scheme'],
      ['Nostr !!!', 'scheme'],
      [`Nostr ${'A'.repeat(20_000)}`, 'too-long'],
      ['Nostr /w==', 'base64'],
      [`Nostr ${btoa('{not json')}`, 'json'],
      [`Nostr ${btoa('{"kind":24242}')}`, 'not-event'],
      [`Nostr ${btoa('[1,2]')}`, 'not-event'],
    ]
    for (const [header, reason] of reasons) {
      try {
        decodeAuthHeader(header as string)
        expect.unreachable(String(header))
      } catch (err) {
        expect(err).toBeInstanceOf(AuthorizationError)
        expect((err as AuthorizationError).reason).toBe(reason)
      }
    }
  })

  it('property: decoding arbitrary strings only throws AuthorizationError', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        for (const header of [s, `Nostr ${s}`]) {
          try {
            decodeAuthHeader(header)
          } catch (err) {
            expect(err).toBeInstanceOf(AuthorizationError)
          }
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('checkBlossomAuth', () => {
  it('accepts a fresh upload authorization for the blob', () => {
    expect(checkBlossomAuth(signedAuth(), { verb: 'upload', sha256: sha, now })).toEqual({
      ok: true,
      pubkey: alice,
    })
    expect(checkBlossomAuth(signedAuth(), { verb: 'upload', now })).toEqual({ ok: true, pubkey: alice })
    expect(authorizesBlob(signedAuth(), sha)).toBe(true)
    expect(authorizesBlob(signedAuth(), other)).toBe(false)
  })

  it('gives a reason for each refusal', () => {
    // The copy keeps nostr-tools' cached "verified" mark: the check must not trust it.
    const tampered = { ...signedAuth(), content: 'changed' }
    const cases: [NostrEvent, Parameters<typeof checkBlossomAuth>[1], RegExp][] = [
      [signedAuth(), { verb: 'upload', sha256: sha, now: now + 300 }, /expired/],
      [signedAuth(), { verb: 'delete', sha256: sha, now }, /not for delete/],
      [signedAuth(), { verb: 'upload', sha256: other, now }, /does not name this blob/],
      [signedAuth({ createdAt: now + 120, expiration: now + 500 }), { verb: 'upload', now }, /future/],
      [
        signedAuth({ servers: ['cdn.example.com'] }),
        { verb: 'upload', now, server: 'blossom.other' },
        /another server/,
      ],
      [tampered, { verb: 'upload', now }, /signature/],
      [
        finalizeEvent({ kind: 1, tags: [], content: '', created_at: now }, aliceSecret),
        { verb: 'upload', now },
        /24242/,
      ],
      [
        finalizeEvent({ kind: 24242, tags: [['t', 'upload']], content: '', created_at: now }, aliceSecret),
        { verb: 'upload', now },
        /expiration/,
      ],
      [{ kind: 24242 } as never, { verb: 'upload', now }, /not a Nostr event/],
    ]
    for (const [event, expected, reason] of cases) {
      const r = checkBlossomAuth(event, expected)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.reason).toMatch(reason)
    }
    expect(
      checkBlossomAuth(signedAuth({ servers: ['cdn.example.com'] }), {
        verb: 'upload',
        now,
        server: 'CDN.example.com',
      }).ok,
    ).toBe(true)
  })
})

describe('parseBlobDescriptor (BUD-02)', () => {
  it('keeps the known fields and defaults the type', () => {
    expect(
      parseBlobDescriptor({
        url: `https://cdn.example/${sha}.png`,
        sha256: sha,
        size: 10,
        type: 'image/png',
        uploaded: now,
        extra: 1,
      }),
    ).toEqual({
      url: `https://cdn.example/${sha}.png`,
      sha256: sha,
      size: 10,
      type: 'image/png',
      uploaded: now,
    })
    expect(parseBlobDescriptor({ url: 'http://a.example/x', sha256: sha, size: 0 }).type).toBe(
      'application/octet-stream',
    )
  })

  it('names the bad field', () => {
    const good = { url: 'https://a.example/x', sha256: sha, size: 1, uploaded: 1 }
    for (const [bad, field] of [
      [null, 'object'],
      [{ ...good, url: 'javascript:1' }, 'url'],
      [{ ...good, url: 5 }, 'url'],
      [{ ...good, sha256: 'B'.repeat(64) }, 'sha256'],
      [{ ...good, size: -1 }, 'size'],
      [{ ...good, type: 3 }, 'type'],
      [{ ...good, uploaded: 'yesterday' }, 'uploaded'],
    ] as const) {
      expect(() => parseBlobDescriptor(bad)).toThrow(new RegExp(field))
    }
  })
})
