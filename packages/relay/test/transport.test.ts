import { describe, expect, it } from 'vitest'
import { connect, publish, RawClient, relay, user } from './helpers'

const info = async (url: string) => {
  const res = await globalThis.fetch(url.replace('ws://', 'http://'), {
    headers: { Accept: 'application/nostr+json' },
  })
  return { res, body: (await res.json()) as Record<string, unknown> }
}

describe('A. transport and identity', () => {
  it('rule 1: serves NIP-11 with supported_nips, self and pubkey set to the signing key, and limitation', async () => {
    const r = await relay()
    const { res, body } = await info(r.url)
    expect(res.headers.get('content-type')).toBe('application/nostr+json')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(body.supported_nips).toEqual(expect.arrayContaining([1, 9, 11, 29, 42]))
    expect(body.self).toBe(r.pubkey)
    expect(body.pubkey).toBe(r.pubkey)
    expect(body.limitation).toMatchObject({
      max_message_length: expect.any(Number),
      max_subscriptions: expect.any(Number),
      max_filters: expect.any(Number),
      auth_required: false,
    })
  })

  it('rule 1: without the nostr+json Accept header the same URL answers plain HTTP', async () => {
    const r = await relay()
    const res = await globalThis.fetch(r.url.replace('ws://', 'http://'))
    expect(res.status).toBe(200)
    expect(await res.text()).toMatch(/relay/i)
  })

  it('rule 2: sends an AUTH challenge on connect and accepts a matching kind 22242', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    expect(raw.challenge).toMatch(/^[0-9a-f]{32}$/)
    expect(await raw.auth(user(), r.url)).toEqual({ ok: true, message: '' })
  })

  it('rule 2: refuses AUTH with a wrong challenge, a foreign relay tag, an old timestamp or a wrong kind', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    const u = user()
    const now = Math.floor(Date.now() / 1000)
    const cases = [
      u.sign({
        kind: 22242,
        tags: [
          ['relay', r.url],
          ['challenge', 'nope'],
        ],
        created_at: now,
      }),
      u.sign({
        kind: 22242,
        tags: [
          ['relay', 'wss://elsewhere.example'],
          ['challenge', raw.challenge],
        ],
        created_at: now,
      }),
      u.sign({
        kind: 22242,
        tags: [
          ['relay', r.url],
          ['challenge', raw.challenge],
        ],
        created_at: now - 601,
      }),
      u.sign({
        kind: 1,
        tags: [
          ['relay', r.url],
          ['challenge', raw.challenge],
        ],
        created_at: now,
      }),
    ]
    for (const e of cases) {
      const from = raw.frames.length
      raw.send(['AUTH', e])
      const ok = await raw.next((f) => f[0] === 'OK' && f[1] === e.id, from)
      expect(ok[2]).toBe(false)
      expect(ok[3]).toMatch(/^invalid: /)
    }
  })

  it('rule 2: several pubkeys can authenticate on one connection and each can read its private group', async () => {
    const r = await relay({ previousMinimum: 0 })
    const a = user()
    const b = user()
    const ga = await r.createGroup({ private: true, closed: true, members: [a.pk] })
    const gb = await r.createGroup({ private: true, closed: true, members: [b.pk] })
    const raw = await RawClient.open(r.url)
    expect((await raw.auth(a, r.url)).ok).toBe(true)
    expect((await raw.auth(b, r.url)).ok).toBe(true)
    expect((await raw.req('a', { '#h': [ga] })).closed).toBeUndefined()
    expect((await raw.req('b', { '#h': [gb] })).closed).toBeUndefined()
  })

  it('rule 3: answers a forged id and a bad signature with invalid:', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const e = user().sign({ kind: 9, tags: [['h', 'x']] })
    expect(await publish(c, { ...e, content: 'tampered' })).toEqual({
      ok: false,
      message: 'invalid: id is computed incorrectly',
    })
    const other = user().sign({ kind: 9, tags: [['h', 'x']] })
    expect(await publish(c, { ...e, sig: other.sig })).toEqual({
      ok: false,
      message: 'invalid: signature is invalid',
    })
  })

  it('rule 3: every EVENT gets exactly one OK whose reason carries a NIP-01 prefix', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    const u = user()
    const events = [
      u.sign({ kind: 9 }),
      u.sign({ kind: 9, tags: [['h', 'nowhere']] }),
      u.sign({ kind: 39000, tags: [['d', 'x']] }),
      u.sign({ kind: 9007, tags: [['h', 'fresh']] }),
      u.sign({ kind: 9007, tags: [['h', 'fresh']] }),
    ]
    for (const e of events) raw.send(['EVENT', e])
    await raw.ping()
    const oks = raw.frames.filter((f) => f[0] === 'OK')
    expect(oks.map((f) => f[1])).toEqual(events.map((e) => e.id))
    for (const ok of oks) {
      if (ok[2] === false)
        expect(ok[3]).toMatch(
          /^(duplicate|pow|blocked|rate-limited|invalid|restricted|mute|error|auth-required): /,
        )
    }
  })
})
