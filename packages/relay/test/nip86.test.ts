/**
 * NIP-86 over real HTTP: calls signed as NIP-98 by nostr-tools (an independent implementation),
 * attacks on the authorization from outside, allow lists, kinds, blocked addresses and the relay's
 * information, on this run's backend. Bans are in nip86-bans.test.ts.
 */
import { encodeAuthHeader, httpAuthTemplate } from '@roost/nip29'
import { nip98 } from 'nostr-tools'
import { finalizeEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import type { RelayHandle } from '../src/index'
import { RawClient, relay, user } from './helpers'
import { call, httpOf, post, setup } from './nip86-helpers'

describe('NIP-86 authorization (attacks from outside)', () => {
  it('answers an operator, and refuses a missing, forged, misaddressed, stale, replayed or foreign authorization', async () => {
    const { r, op } = await setup()
    const body = JSON.stringify({ method: 'supportedmethods', params: [] })
    const sha = (s: string) => nip98.hashPayload(JSON.parse(s))
    const signed = (
      over: { u?: string; method?: string; payload?: string | null; createdAt?: number },
      who = op,
    ) => {
      const t = httpAuthTemplate({
        url: over.u ?? httpOf(r),
        method: over.method ?? 'POST',
        ...(over.payload !== null && { payload: over.payload ?? sha(body) }),
      })
      return encodeAuthHeader(finalizeEvent({ ...t, created_at: over.createdAt ?? t.created_at }, who.sk))
    }
    const good = await post(r, body, { authorization: signed({}) })
    expect(good.status).toBe(200)
    expect(good.body.result).toEqual(expect.arrayContaining(['banpubkey', 'listblockedips']))

    const refused = async (headers: Record<string, string>, status = 401, text = body) => {
      const a = await post(r, text, headers)
      expect(a.status).toBe(status)
      expect(a.body.result).toBeUndefined()
      return a.body.error
    }
    expect(await refused({})).toMatch(/^auth-required: missing Authorization/)
    // A signature that does not match its event.
    const forged = JSON.parse(Buffer.from(signed({}).slice(6), 'base64').toString()) as { sig: string }
    forged.sig = forged.sig.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))
    expect(
      await refused({ authorization: `Nostr ${Buffer.from(JSON.stringify(forged)).toString('base64')}` }),
    ).toMatch(/bad signature/)
    expect(await refused({ authorization: signed({ u: 'https://evil.example/' }) })).toMatch(/u tag/)
    expect(await refused({ authorization: signed({ method: 'GET' }) })).toMatch(/method/)
    expect(await refused({ authorization: signed({ payload: null }) })).toMatch(/payload/)
    expect(
      await refused({ authorization: signed({ payload: sha('{"method":"banpubkey","params":[]}') }) }),
    ).toMatch(/payload/)
    expect(
      await refused({ authorization: signed({ createdAt: Math.floor(Date.now() / 1000) - 600 }) }),
    ).toMatch(/created_at/)
    // A change's header seen in transit cannot be used twice (a read may repeat).
    const ban = JSON.stringify({ method: 'banpubkey', params: [user().pk] })
    const once = signed({ payload: sha(ban) })
    expect((await post(r, ban, { authorization: once })).status).toBe(200)
    expect(await refused({ authorization: once }, 401, ban)).toMatch(/already used/)
    // A valid key that is not an operator's.
    expect(await refused({ authorization: signed({}, user()) }, 403)).toMatch(/^restricted:/)
  })

  it('checks the u tag against the configured public URL, never the Host header', async () => {
    const op = user()
    const r = await relay({ admins: [op.pk], urls: ['wss://relay.example.com'] })
    const payload = { method: 'supportedmethods', params: [] }
    const body = JSON.stringify(payload)
    const asHost = await nip98.getToken(httpOf(r), 'POST', (t) => finalizeEvent(t, op.sk), true, payload)
    expect((await post(r, body, { authorization: asHost })).status).toBe(401)
    for (const u of ['https://relay.example.com', 'wss://relay.example.com/']) {
      const token = await nip98.getToken(u, 'POST', (t) => finalizeEvent(t, op.sk), true, payload)
      expect((await post(r, body, { authorization: token })).status).toBe(200)
    }
  })

  it('refuses malformed calls, unknown methods and oversized bodies; other content types are not NIP-86', async () => {
    const { r, op } = await setup()
    expect(await call(r, op, 'nosuchmethod')).toMatchObject({
      status: 400,
      body: { error: /unsupported method/ },
    })
    expect(await call(r, op, 'constructor')).toMatchObject({ status: 400 })
    expect(await call(r, op, 'banpubkey', ['not-a-key'])).toMatchObject({
      status: 400,
      body: { error: /^invalid:/ },
    })
    expect(await call(r, op, 'allowkind', [-1])).toMatchObject({ status: 400 })
    expect(await call(r, op, 'blockip', ['300.1.1.1'])).toMatchObject({ status: 400 })
    expect(await call(r, op, 'changerelayicon', ['javascript:alert(1)'])).toMatchObject({ status: 400 })
    const big = 'x'.repeat(70_000)
    expect((await post(r, JSON.stringify({ method: 'changerelayname', params: [big] }), {})).status).toBe(413)
    // A plain POST (no NIP-86 Content-Type) never runs a method.
    const plain = await fetch(httpOf(r), {
      method: 'POST',
      body: JSON.stringify({ method: 'supportedmethods' }),
    })
    expect(plain.headers.get('content-type')).not.toMatch(/json/)
    // NIP-11 lists NIP-86 only when the relay has operators.
    const info = async (x: RelayHandle) =>
      (await (await fetch(httpOf(x), { headers: { accept: 'application/nostr+json' } })).json()) as {
        supported_nips: number[]
      }
    expect((await info(r)).supported_nips).toContain(86)
    expect((await info(await relay())).supported_nips).not.toContain(86)
    // Without operators every call is refused.
    const bare = await relay()
    expect((await call(bare, op, 'supportedmethods')).status).toBe(403)
  })
})

describe('allow lists, kinds, addresses and the relay information', () => {
  it('admits only keys on a non-empty allow list, and the operators', async () => {
    const { r, op, ok } = await setup()
    const alice = user()
    const bob = user()
    const raw = await RawClient.open(r.url)
    expect(await ok('allowpubkey', [alice.pk, 'member'])).toBe(true)
    expect(await ok('listallowedpubkeys')).toEqual([{ pubkey: alice.pk, reason: 'member' }])
    expect(await raw.publish(alice.sign({ kind: 0, content: 'in' }))).toMatchObject({ ok: true })
    expect(await raw.publish(bob.sign({ kind: 0, content: 'out' }))).toEqual({
      ok: false,
      message: "blocked: only keys on this relay's allow list may publish here",
    })
    expect(await raw.publish(op.sign({ kind: 0, content: 'the operator' }))).toMatchObject({ ok: true })
    // Banning a listed key takes it off the list; allowing a banned one lifts the ban.
    await ok('banpubkey', [alice.pk])
    expect(await ok('listallowedpubkeys')).toEqual([])
    await ok('allowpubkey', [alice.pk])
    expect(await ok('listbannedpubkeys')).toEqual([])
    await ok('unallowpubkey', [alice.pk])
    expect(await raw.publish(bob.sign({ kind: 0, content: 'open again' }))).toMatchObject({ ok: true })
  })

  it('accepts only allowed kinds when any are listed, and never a disallowed kind', async () => {
    const { r, ok } = await setup()
    const alice = user()
    const raw = await RawClient.open(r.url)
    await ok('allowkind', [0])
    await ok('allowkind', ['3'])
    expect(await ok('listallowedkinds')).toEqual([0, 3])
    expect(await raw.publish(alice.sign({ kind: 0 }))).toMatchObject({ ok: true })
    expect(await raw.publish(alice.sign({ kind: 10002 }))).toEqual({
      ok: false,
      message: 'blocked: kind 10002 is not accepted here',
    })
    await ok('disallowkind', [0])
    expect(await ok('listallowedkinds')).toEqual([3])
    expect(await ok('listdisallowedkinds')).toEqual([0])
    expect(await raw.publish(alice.sign({ kind: 0, content: 'x' }))).toMatchObject({ ok: false })
    await ok('disallowkind', [3])
    // No kind allowed any more: every kind but the disallowed ones is accepted again.
    expect(await raw.publish(alice.sign({ kind: 10002, content: 'y' }))).toMatchObject({ ok: true })
  })

  it('blocks an address behind a trusted proxy; X-Forwarded-For from anyone else is ignored', async () => {
    const { r, ok } = await setup({ trustedProxies: ['127.0.0.1'], limits: { maxConnectionsPerIp: 2 } })
    const from = (ip: string) => RawClient.open(r.url, { 'x-forwarded-for': ip })
    const victim = await from('203.0.113.9')
    const gone = new Promise((resolve) => victim.ws.once('close', resolve))
    await from('198.51.100.1')
    expect(await ok('blockip', ['203.0.113.9', 'abuse'])).toBe(true)
    expect(await ok('listblockedips')).toEqual([{ ip: '203.0.113.9', reason: 'abuse' }])
    await gone
    await expect(from('203.0.113.9')).rejects.toThrow()
    await from('198.51.100.1') // the second connection of another address: still fine
    expect((await fetch(httpOf(r), { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(403)
    await ok('unblockip', ['203.0.113.9'])
    await from('203.0.113.9')

    // Without a trusted proxy the header counts for nothing: it neither dodges the per-address cap nor a block.
    const direct = await relay({ limits: { maxConnectionsPerIp: 2 } })
    await RawClient.open(direct.url, { 'x-forwarded-for': '192.0.2.1' })
    await RawClient.open(direct.url, { 'x-forwarded-for': '192.0.2.2' })
    await expect(RawClient.open(direct.url, { 'x-forwarded-for': '192.0.2.3' })).rejects.toThrow()
  })

  it('changes the name, description and icon NIP-11 shows', async () => {
    const { r, ok } = await setup()
    await ok('changerelayname', ['Pizza Club'])
    await ok('changerelaydescription', ['Where we talk about pizza.'])
    await ok('changerelayicon', ['https://pizza.example/icon.png'])
    const info = await (await fetch(httpOf(r), { headers: { accept: 'application/nostr+json' } })).json()
    expect(info).toMatchObject({
      name: 'Pizza Club',
      description: 'Where we talk about pizza.',
      icon: 'https://pizza.example/icon.png',
    })
  })
})
