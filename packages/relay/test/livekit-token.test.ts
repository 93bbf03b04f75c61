import { encodeAuthHeader, httpAuthTemplate, livekitTokenUrl, parseLiveKitToken } from '@roost/nip29'
import { TokenVerifier } from 'livekit-server-sdk'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { createLiveKitHandler, type LiveKitOptions } from '../src/livekit/token-endpoint'
import { serve } from './media-helpers'

const NOW = Math.floor(Date.now() / 1000)
const API_KEY = 'APIroost'
const API_SECRET = 'a-livekit-secret-long-enough-for-hs256-signing'
const member = generateSecretKey()
const stranger = generateSecretKey()
const memberPk = getPublicKey(member)
const PUBLIC = 'wss://relay.example'

async function endpoint(over: Partial<LiveKitOptions> = {}) {
  return serve(
    createLiveKitHandler({
      url: 'wss://livekit.example',
      apiKey: API_KEY,
      apiSecret: API_SECRET,
      publicUrl: PUBLIC,
      isMember: (group, pk) => group === 'pizza night' && pk === memberPk,
      clock: () => NOW,
      ttlSeconds: 300,
      ...over,
    }),
  )
}

function authFor(secret: Uint8Array, url: string, over: { method?: string; createdAt?: number } = {}) {
  return encodeAuthHeader(
    finalizeEvent(
      httpAuthTemplate({ url, method: over.method ?? 'GET', createdAt: over.createdAt ?? NOW }),
      secret,
    ),
  )
}

const path = '/.well-known/nip29/livekit/pizza%20night'

describe('LiveKit token endpoint (NIP-29 AV)', () => {
  it('answers 204 on the discovery path', async () => {
    const base = await endpoint()
    for (const p of ['/.well-known/nip29/livekit', '/.well-known/nip29/livekit/']) {
      const res = await fetch(base + p)
      expect(res.status).toBe(204)
    }
    expect((await fetch(`${base}/.well-known/nostr.json`)).headers.get('x-fallthrough')).toBe('1')
  })

  it('mints a token for a member: room = group, identity = pubkey, a short expiry, signed with the secret', async () => {
    const base = await endpoint()
    const res = await fetch(base + path, {
      headers: { authorization: authFor(member, `https://relay.example${path}`) },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = (await res.json()) as { url: string; token: string }
    expect(body.url).toBe('wss://livekit.example')
    const claims = await new TokenVerifier(API_KEY, API_SECRET).verify(body.token)
    expect(claims.sub).toBe(memberPk)
    expect(claims.iss).toBe(API_KEY)
    expect(claims.video).toMatchObject({
      room: 'pizza night',
      roomJoin: true,
      canPublish: true,
      canSubscribe: true,
    })
    const exp = claims.exp as number
    expect(exp).toBeGreaterThan(NOW)
    expect(exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 300 + 5)
    await expect(
      new TokenVerifier(API_KEY, 'another-secret-of-a-decent-length-too').verify(body.token),
    ).rejects.toThrow()
  })

  it("accepts the URL a client derives from the relay's address with @roost/nip29", async () => {
    const base = await endpoint()
    const u = livekitTokenUrl(PUBLIC, 'pizza night')
    const res = await fetch(base + new URL(u).pathname, { headers: { authorization: authFor(member, u) } })
    expect(res.status).toBe(200)
    expect(parseLiveKitToken(await res.json()).url).toBe('wss://livekit.example')
  })

  it('refuses to exchange one authorization twice', async () => {
    const base = await endpoint()
    const header = authFor(member, `https://relay.example${path}`)
    expect((await fetch(base + path, { headers: { authorization: header } })).status).toBe(200)
    const again = await fetch(base + path, { headers: { authorization: header } })
    expect([again.status, ((await again.json()) as { error: string }).error]).toEqual([
      401,
      'auth-required: this authorization was already used',
    ])
    const fresh = authFor(member, `https://relay.example${path}`, { createdAt: NOW - 1 })
    expect((await fetch(base + path, { headers: { authorization: fresh } })).status).toBe(200)
  })

  it('accepts any configured public URL, as https or wss', async () => {
    const base = await endpoint({ publicUrl: ['wss://relay.example', 'https://groups.example/'] })
    const res = await fetch(base + path, {
      headers: { authorization: authFor(member, `https://groups.example${path}`) },
    })
    expect(res.status).toBe(200)
  })

  it('refuses with 401 for a missing, malformed, stale, misaddressed or wrong-method authorization', async () => {
    const base = await endpoint()
    const url = `https://relay.example${path}`
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /missing Authorization/],
      [{ authorization: 'Nostr ???' }, /Nostr/],
      [{ authorization: authFor(member, url, { createdAt: NOW - 61 }) }, /60 seconds/],
      [{ authorization: authFor(member, url, { createdAt: NOW + 61 }) }, /60 seconds/],
      [{ authorization: authFor(member, `https://relay.example/.well-known/nip29/livekit/other`) }, /u tag/],
      [{ authorization: authFor(member, `http://127.0.0.1${path}`) }, /u tag/],
      [{ authorization: authFor(member, url, { method: 'POST' }) }, /method/],
    ]
    for (const [headers, reason] of cases) {
      const res = await fetch(base + path, { headers })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('Nostr')
      const { error } = (await res.json()) as { error: string }
      expect(error).toMatch(/^auth-required: /)
      expect(error).toMatch(reason)
    }
  })

  it('refuses a forged event (401) and a non-member (403)', async () => {
    const base = await endpoint()
    const url = `https://relay.example${path}`
    const signedByStranger = finalizeEvent(httpAuthTemplate({ url, method: 'GET', createdAt: NOW }), stranger)
    const forged = encodeAuthHeader({ ...JSON.parse(JSON.stringify(signedByStranger)), pubkey: memberPk })
    const bad = await fetch(base + path, { headers: { authorization: forged } })
    expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([
      401,
      'auth-required: bad signature',
    ])

    const res = await fetch(base + path, { headers: { authorization: authFor(stranger, url) } })
    expect(res.status).toBe(403)
    expect(((await res.json()) as { error: string }).error).toMatch(/^restricted: /)

    const otherGroup = '/.well-known/nip29/livekit/other'
    const notHere = await fetch(base + otherGroup, {
      headers: { authorization: authFor(member, `https://relay.example${otherGroup}`) },
    })
    expect(notHere.status).toBe(403)
  })

  it('rejects unusable group ids and methods, and answers CORS preflight', async () => {
    const base = await endpoint()
    expect((await fetch(`${base}/.well-known/nip29/livekit/%0A`)).status).toBe(400)
    expect((await fetch(`${base}/.well-known/nip29/livekit/%E0%A4%A`)).status).toBe(400)
    expect((await fetch(`${base}/.well-known/nip29/livekit/a/b`)).status).toBe(404)
    expect((await fetch(base + path, { method: 'POST' })).status).toBe(405)
    const pre = await fetch(base + path, { method: 'OPTIONS' })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-headers')).toBe('Authorization')
  })

  it('refuses to be built without credentials or a usable public URL', () => {
    const base = { url: 'wss://lk', apiKey: 'k', apiSecret: 's', publicUrl: PUBLIC, isMember: () => true }
    expect(() => createLiveKitHandler({ ...base, apiSecret: '' })).toThrow(/apiSecret/)
    expect(() => createLiveKitHandler({ ...base, publicUrl: 'ftp://x' })).toThrow(/publicUrl/)
    expect(() => createLiveKitHandler({ ...base, publicUrl: [] })).toThrow(/publicUrl/)
  })
})
