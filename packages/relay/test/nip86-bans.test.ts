/**
 * NIP-86 bans, attacked from outside over real sockets and HTTP: a banned key's EVENT, AUTH (then
 * REQ of a private group), upload and call token are refused; a banned event is deleted, never
 * served by REQ or search, and refused when sent again; reported events wait for an operator.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { blossomAuthTemplate, encodeAuthHeader, httpAuthTemplate, livekitTokenUrl } from '@roost/nip29'
import { finalizeEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { connect, h, publish, RawClient, relay, fetch as req, user } from './helpers'
import { call, setup } from './nip86-helpers'

describe('a banned key is refused everywhere', () => {
  it('refuses its EVENT and its AUTH, so its REQ of a private group is refused; its open connection is closed', async () => {
    const { r, op, ok } = await setup()
    const bad = user()
    const friend = user()
    const gid = await r.createGroup({
      name: 'Secret',
      private: true,
      closed: true,
      members: [bad.pk, friend.pk],
    })
    const before = await connect(r.url, bad)
    expect((await publish(before, bad.sign({ kind: 9, tags: h(gid), content: 'hi' }))).ok).toBe(true)
    const closed = new Promise<void>((resolve) => {
      before.onclose = () => resolve()
    })

    expect(await ok('banpubkey', [bad.pk, 'spam'])).toBe(true)
    await closed // the connection it had authenticated is gone
    expect(await ok('listbannedpubkeys')).toEqual([{ pubkey: bad.pk, reason: 'spam' }])

    const raw = await RawClient.open(r.url)
    expect(await raw.publish(bad.sign({ kind: 9, tags: h(gid), content: 'again' }))).toEqual({
      ok: false,
      message: 'blocked: you are banned from this relay',
    })
    expect(await raw.publish(bad.sign({ kind: 0, content: 'a profile' }))).toMatchObject({ ok: false })
    expect(await raw.auth(bad, r.url)).toEqual({
      ok: false,
      message: 'blocked: you are banned from this relay',
    })
    const read = await raw.req('p', { kinds: [9], '#h': [gid] })
    expect(read.closed).toMatch(/^auth-required:/)
    expect(read.events).toEqual([])
    // Others carry on.
    const other = await connect(r.url, friend)
    expect((await publish(other, friend.sign({ kind: 9, tags: h(gid), content: 'still here' }))).ok).toBe(
      true,
    )
    // The operators and the relay's own key cannot be banned.
    expect((await call(r, op, 'banpubkey', [op.pk])).status).toBe(400)
    expect((await call(r, op, 'banpubkey', [r.pubkey])).status).toBe(400)

    expect(await ok('unbanpubkey', [bad.pk])).toBe(true)
    expect(await ok('listbannedpubkeys')).toEqual([])
    expect(await raw.publish(bad.sign({ kind: 9, tags: h(gid), content: 'back' }))).toMatchObject({
      ok: true,
    })
  })

  it('refuses its upload and its call token, which it got before the ban', async () => {
    const livekit = {
      url: 'wss://livekit.example',
      apiKey: 'APIroost',
      apiSecret: 'a-livekit-secret-for-tests-0123456789',
    }
    const { r, ok } = await setup({ livekit })
    const bad = user()
    const gid = await r.createGroup({ name: 'Call', livekit: true, members: [bad.pk] })
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    const upload = () => {
      const t = blossomAuthTemplate({
        verb: 'upload',
        sha256: createHash('sha256').update(png).digest('hex'),
        expiration: Math.floor(Date.now() / 1000) + 300,
      })
      return fetch(`${r.mediaUrl}/upload`, {
        method: 'PUT',
        body: new Uint8Array(png),
        headers: { authorization: encodeAuthHeader(finalizeEvent(t, bad.sk)), 'content-type': 'image/png' },
      })
    }
    const token = () => {
      const url = livekitTokenUrl(r.url, gid)
      const auth = encodeAuthHeader(finalizeEvent(httpAuthTemplate({ url, method: 'GET' }), bad.sk))
      return fetch(url, { headers: { authorization: auth } })
    }
    expect((await upload()).status).toBe(200)
    expect((await token()).status).toBe(200)
    await ok('banpubkey', [bad.pk])
    const refused = await upload()
    expect(refused.status).toBe(403)
    expect(refused.headers.get('x-reason')).toBe('blocked: you are banned from this relay')
    expect((await token()).status).toBe(403)
    await ok('unbanpubkey', [bad.pk])
    expect((await upload()).status).toBe(200)
  })

  it('keeps a ban across a restart', async () => {
    const op = user()
    const bad = user()
    const path = join(mkdtempSync(join(tmpdir(), 'roost-nip86-')), 'relay.db')
    const a = await relay({ admins: [op.pk], db: path })
    expect((await call(a, op, 'banpubkey', [bad.pk])).status).toBe(200)
    expect((await call(a, op, 'banevent', ['ab'.repeat(32), 'gone'])).status).toBe(200)
    await a.close()
    const b = await relay({ admins: [op.pk], db: path })
    const raw = await RawClient.open(b.url)
    expect(await raw.publish(bad.sign({ kind: 0, content: 'after the restart' }))).toEqual({
      ok: false,
      message: 'blocked: you are banned from this relay',
    })
    expect((await call(b, op, 'listbannedevents')).body.result).toEqual([
      { id: 'ab'.repeat(32), reason: 'gone' },
    ])
  })
})

describe('banned events', () => {
  it('deletes a banned event: never served again by REQ or search, and refused when sent again; allowevent lifts it', async () => {
    const { r, ok } = await setup()
    const alice = user()
    const gid = await r.createGroup({ name: 'Open', members: [alice.pk] })
    const c = await connect(r.url, alice)
    const keep = alice.sign({ kind: 9, tags: h(gid), content: 'ordinary zebra words' })
    const bad = alice.sign({ kind: 9, tags: h(gid), content: 'offending zebra words' })
    for (const e of [keep, bad]) expect((await publish(c, e)).ok).toBe(true)

    expect(await ok('banevent', [bad.id, 'illegal'])).toBe(true)
    expect(await ok('listbannedevents')).toEqual([{ id: bad.id, reason: 'illegal' }])
    const ids = (x: { events: { id: string }[] }) => x.events.map((e) => e.id)
    expect(ids(await req(c, [{ ids: [bad.id] }]))).toEqual([])
    expect(ids(await req(c, [{ kinds: [9], '#h': [gid] }]))).toEqual([keep.id])
    expect(ids(await req(c, [{ search: 'zebra' }]))).toEqual([keep.id])
    expect(await publish(c, bad)).toEqual({
      ok: false,
      message: 'blocked: this event was banned by the relay operator',
    })
    expect(ids(await req(c, [{ ids: [bad.id] }]))).toEqual([])

    expect(await ok('allowevent', [bad.id, 'on appeal'])).toBe(true)
    expect(await ok('listbannedevents')).toEqual([])
    expect((await publish(c, bad)).ok).toBe(true)
    expect(ids(await req(c, [{ ids: [bad.id] }]))).toEqual([bad.id])
  })

  it('lists reported events as needing moderation until an operator bans or allows them', async () => {
    const { r, ok } = await setup()
    const alice = user()
    const bob = user()
    const gid = await r.createGroup({ name: 'Open', members: [alice.pk, bob.pk] })
    const a = await connect(r.url, alice)
    const b = await connect(r.url, bob)
    const spam = alice.sign({ kind: 9, tags: h(gid), content: 'buy now' })
    const rude = alice.sign({ kind: 9, tags: h(gid), content: 'rude' })
    for (const e of [spam, rude]) expect((await publish(a, e)).ok).toBe(true)
    for (const [e, type, text] of [
      [spam, 'spam', 'ads'],
      [rude, 'other', 'mean'],
    ] as const) {
      const report = bob.sign({ kind: 1984, tags: h(gid, ['e', e.id, type], ['p', alice.pk]), content: text })
      expect((await publish(b, report)).ok).toBe(true)
    }
    const listed = (await ok('listeventsneedingmoderation')) as { id: string; reason?: string }[]
    expect(listed).toHaveLength(2)
    expect(listed).toEqual(
      expect.arrayContaining([
        { id: spam.id, reason: 'spam: ads' },
        { id: rude.id, reason: 'other: mean' },
      ]),
    )
    await ok('banevent', [spam.id])
    await ok('allowevent', [rude.id])
    expect(await ok('listeventsneedingmoderation')).toEqual([])
  })
})
