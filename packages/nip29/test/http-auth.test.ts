import { finalizeEvent, type NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import {
  checkHttpAuth,
  decodeAuthHeader,
  encodeAuthHeader,
  httpAuthTemplate,
  InvalidArgumentError,
} from '../src/index'
import { alice, aliceSecret } from './helpers'

const now = 1_700_000_000
const url = 'https://relay.example/.well-known/nip29/livekit/general'
const body = 'd'.repeat(64)

function auth(over: Partial<Parameters<typeof httpAuthTemplate>[0]> = {}): NostrEvent {
  return finalizeEvent(httpAuthTemplate({ url, method: 'get', createdAt: now, ...over }), aliceSecret)
}

describe('httpAuthTemplate (NIP-98 kind 27235)', () => {
  it('carries u, method (upper case) and an optional payload hash', () => {
    expect(httpAuthTemplate({ url, method: 'get', createdAt: now })).toEqual({
      kind: 27235,
      content: '',
      created_at: now,
      tags: [
        ['u', url],
        ['method', 'GET'],
      ],
    })
    expect(httpAuthTemplate({ url, method: 'POST', payload: body, createdAt: now }).tags[2]).toEqual([
      'payload',
      body,
    ])
  })

  it('refuses relative URLs, other schemes, odd methods and bad hashes', () => {
    expect(() => httpAuthTemplate({ url: '/x', method: 'GET' })).toThrow(InvalidArgumentError)
    expect(() => httpAuthTemplate({ url: 'wss://relay.example', method: 'GET' })).toThrow(
      InvalidArgumentError,
    )
    expect(() => httpAuthTemplate({ url, method: 'GET /x' })).toThrow(InvalidArgumentError)
    expect(() => httpAuthTemplate({ url, method: 'POST', payload: 'abc' })).toThrow(InvalidArgumentError)
  })
})

describe('checkHttpAuth', () => {
  it('accepts a fresh event for this URL and method, through the header', () => {
    const event = decodeAuthHeader(encodeAuthHeader(auth()))
    expect(checkHttpAuth(event, { url, method: 'GET', now: now + 60 })).toEqual({ ok: true, pubkey: alice })
    expect(
      checkHttpAuth(event, { url: ['https://other.example/x', url], method: 'get', now: now - 60 }).ok,
    ).toBe(true)
    expect(
      checkHttpAuth(auth({ method: 'POST', payload: body }), { url, method: 'POST', now, payload: body }).ok,
    ).toBe(true)
  })

  it('refuses with a reason', () => {
    const cases: [NostrEvent, Parameters<typeof checkHttpAuth>[1], RegExp][] = [
      [auth(), { url, method: 'GET', now: now + 61 }, /60 seconds/],
      [auth(), { url, method: 'GET', now: now - 61 }, /60 seconds/],
      [auth(), { url: `${url}x`, method: 'GET', now }, /u tag/],
      [auth(), { url, method: 'POST', now }, /method/],
      [
        auth({ method: 'POST', payload: body }),
        { url, method: 'POST', now, payload: 'e'.repeat(64) },
        /payload/,
      ],
      [{ ...auth(), created_at: now + 1 }, { url, method: 'GET', now }, /signature/],
      [
        finalizeEvent({ kind: 24242, tags: [['u', url]], content: '', created_at: now }, aliceSecret),
        { url, method: 'GET', now },
        /27235/,
      ],
      [
        finalizeEvent({ kind: 27235, tags: [['method', 'GET']], content: '', created_at: now }, aliceSecret),
        { url, method: 'GET', now },
        /u tag/,
      ],
      [
        finalizeEvent({ kind: 27235, tags: [['u', url]], content: '', created_at: now }, aliceSecret),
        { url, method: 'GET', now },
        /method tag/,
      ],
      ['junk' as never, { url, method: 'GET', now }, /not a Nostr event/],
    ]
    for (const [event, expected, reason] of cases) {
      const r = checkHttpAuth(event, expected)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.reason).toMatch(reason)
    }
  })

  it('honours a custom window', () => {
    expect(checkHttpAuth(auth(), { url, method: 'GET', now: now + 100, windowSeconds: 120 }).ok).toBe(true)
  })
})
