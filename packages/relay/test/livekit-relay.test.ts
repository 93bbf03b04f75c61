import { createHash } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeAuthHeader, httpAuthTemplate, livekitTokenUrl } from '@roost/nip29'
import { AccessToken, TokenVerifier } from 'livekit-server-sdk'
import type { NostrEvent } from 'nostr-tools'
import { verifyEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import {
  connect,
  h,
  live,
  publish,
  relay,
  fetch as reqUntilEose,
  T0,
  TestClock,
  type User,
  user,
} from './helpers'

const LIVEKIT = {
  url: 'wss://livekit.example',
  apiKey: 'APIroost',
  apiSecret: 'a-livekit-secret-for-tests-0123456789',
}
const WEBHOOK = '/.well-known/nip29/livekit-webhook'

async function setup(withAv = true) {
  const clock = new TestClock(T0)
  const r = await relay({ clock: clock.now, ...(withAv && { livekit: LIVEKIT }) })
  const http = r.url.replace('ws://', 'http://')
  const get = (path: string, init?: RequestInit) => globalThis.fetch(http + path, init)
  /** GETs a group's token URL (the one a client derives from the relay URL) with a fresh NIP-98 header. */
  const token = (
    who: User,
    groupId: string,
    over: { u?: string; method?: string; createdAt?: number; header?: string } = {},
  ) => {
    const url = livekitTokenUrl(r.url, groupId)
    const header =
      over.header ??
      encodeAuthHeader(
        who.sign({
          ...httpAuthTemplate({ url: over.u ?? url, method: over.method ?? 'GET' }),
          created_at: over.createdAt ?? clock.now(),
        }),
      )
    return globalThis.fetch(url, { headers: { authorization: header } })
  }
  return { r, clock, get, token, u: () => user(clock), http }
}

async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error
}

/** Posts a webhook signed the way a LiveKit server signs it. */
async function webhook(http: string, event: string, room: string, identity?: string) {
  const body = JSON.stringify({
    event,
    id: `EV_${Math.random()}`,
    room: { name: room },
    ...(identity === undefined ? {} : { participant: { identity } }),
  })
  const at = new AccessToken(LIVEKIT.apiKey, LIVEKIT.apiSecret)
  at.sha256 = createHash('sha256').update(body).digest('base64')
  const res = await globalThis.fetch(http + WEBHOOK, {
    method: 'POST',
    headers: { authorization: await at.toJwt(), 'content-type': 'application/webhook+json' },
    body,
  })
  return res.status
}

describe('NIP-29 audio/video on the relay (LiveKit configured)', () => {
  it('answers 204 on the discovery path and shows the livekit flag in 39000', async () => {
    const { r, get, u } = await setup()
    expect((await get('/.well-known/nip29/livekit')).status).toBe(204)
    const admin = u()
    const g = await r.createGroup({ name: 'Call', livekit: true, admins: [admin.pk] })
    const c = await connect(r.url)
    const { events } = await reqUntilEose(c, [{ kinds: [39000], '#d': [g], authors: [r.pubkey] }])
    expect(events[0]?.tags).toContainEqual(['livekit'])
  })

  it('mints a token for a member: room = group, identity = pubkey, expiry', async () => {
    const { r, token, u } = await setup()
    const m = u()
    const g = await r.createGroup({ livekit: true, members: [m.pk] })
    const res = await token(m, g)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { url: string; token: string }
    expect(body.url).toBe(LIVEKIT.url)
    const claims = await new TokenVerifier(LIVEKIT.apiKey, LIVEKIT.apiSecret).verify(body.token)
    expect(claims.sub).toBe(m.pk)
    expect(claims.video?.room).toBe(g)
    expect(claims.video?.roomJoin).toBe(true)
    const now = Math.floor(Date.now() / 1000)
    expect(claims.exp).toBeGreaterThan(now)
    expect(claims.exp).toBeLessThanOrEqual(now + 600 + 5)
  })

  it('refuses a non-member, an unknown group and a hidden group alike, and a group without AV', async () => {
    const { r, token, u } = await setup()
    const m = u()
    const stranger = u()
    const open = await r.createGroup({ livekit: true, members: [m.pk] })
    const hidden = await r.createGroup({ livekit: true, hidden: true, private: true, members: [m.pk] })
    const noAv = await r.createGroup({ members: [m.pk] })
    const answers: [number, string][] = []
    for (const g of [open, hidden, 'no-such-group']) {
      const res = await token(stranger, g)
      answers.push([res.status, await errorOf(res)])
    }
    expect(answers[0]?.[0]).toBe(403)
    expect(answers[0]?.[1]).toMatch(/^restricted: /)
    // A hidden group and one that does not exist look the same to a stranger.
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1)
    expect((await token(m, noAv)).status).toBe(403)
    // The member of the hidden, private group gets a token.
    expect((await token(m, hidden)).status).toBe(200)
  })

  it('refuses a replayed, expired, future, wrong-u, wrong-method, unsigned or missing authorization', async () => {
    const { r, clock, token, u, http } = await setup()
    const m = u()
    const g = await r.createGroup({ livekit: true, members: [m.pk] })
    const url = livekitTokenUrl(r.url, g)
    const header = encodeAuthHeader(
      m.sign({ ...httpAuthTemplate({ url, method: 'GET' }), created_at: clock.now() }),
    )
    expect((await token(m, g, { header })).status).toBe(200)
    const replay = await token(m, g, { header })
    expect(replay.status).toBe(401)
    expect(await errorOf(replay)).toMatch(/already used/)
    const cases: [string, Response][] = [
      ['expired', await token(m, g, { createdAt: clock.now() - 61 })],
      ['future', await token(m, g, { createdAt: clock.now() + 61 })],
      ['wrong u', await token(m, g, { u: `${http}/.well-known/nip29/livekit/other` })],
      ['other host', await token(m, g, { u: url.replace('127.0.0.1', 'evil.example') })],
      ['wrong method', await token(m, g, { method: 'POST' })],
      ['missing', await globalThis.fetch(url)],
      ['garbage', await token(m, g, { header: 'Nostr !!!' })],
      ['bearer', await token(m, g, { header: 'Bearer abc' })],
    ]
    const forged = JSON.parse(
      Buffer.from(
        encodeAuthHeader(
          m.sign({ ...httpAuthTemplate({ url, method: 'GET' }), created_at: clock.now() }),
        ).slice(6),
        'base64',
      ).toString(),
    ) as NostrEvent
    forged.sig = forged.sig.replace(/^./, (c) => (c === '0' ? '1' : '0'))
    cases.push(['bad signature', await token(m, g, { header: encodeAuthHeader(forged) })])
    const otherKind = m.sign({
      kind: 1,
      tags: [
        ['u', url],
        ['method', 'GET'],
      ],
      created_at: clock.now(),
    })
    cases.push(['kind 1', await token(m, g, { header: encodeAuthHeader(otherKind) })])
    for (const [name, res] of cases) {
      expect(res.status, name).toBe(401)
      expect(res.headers.get('www-authenticate'), name).toBe('Nostr')
      expect(await errorOf(res), name).toMatch(/^auth-required: /)
    }
  })

  it('publishes 39004 participants from signed LiveKit webhooks; members of a private group only see it', async () => {
    const { r, u, http } = await setup()
    const m = u()
    const m2 = u()
    const g = await r.createGroup({ livekit: true, private: true, members: [m.pk, m2.pk] })
    const member = await connect(r.url, m)
    const sub = live(member, [{ kinds: [39004], '#d': [g], authors: [r.pubkey] }])
    await sub.ready
    expect(await webhook(http, 'participant_joined', g, m.pk)).toBe(200)
    const first = await sub.next((e) => e.tags.some((t) => t[0] === 'participant'))
    expect(verifyEvent(first)).toBe(true)
    expect(first.tags).toEqual([
      ['d', g],
      ['participant', m.pk],
    ])
    expect(await webhook(http, 'participant_joined', g, m2.pk)).toBe(200)
    await sub.next((e) => e.tags.length === 3)
    expect(await webhook(http, 'participant_left', g, m.pk)).toBe(200)
    const after = await sub.next((e) => e.tags.length === 2 && e.tags[1]?.[1] === m2.pk)
    expect(after.created_at).toBeGreaterThan(first.created_at)
    const stranger = await connect(r.url, u())
    const seen = await reqUntilEose(stranger, [{ kinds: [39004], '#d': [g] }])
    expect(seen.events).toEqual([])
    const mine = await reqUntilEose(member, [{ kinds: [39004], '#d': [g] }])
    expect(mine.events.map((e) => e.tags)).toEqual([
      [
        ['d', g],
        ['participant', m2.pk],
      ],
    ])
    // A webhook for a room that is no group publishes nothing; an unsigned one is refused.
    expect(await webhook(http, 'participant_joined', 'not-a-group', m.pk)).toBe(200)
    const c = await connect(r.url)
    expect((await reqUntilEose(c, [{ kinds: [39004], '#d': ['not-a-group'] }])).events).toEqual([])
    const unsigned = await globalThis.fetch(http + WEBHOOK, { method: 'POST', body: '{}' })
    expect(unsigned.status).toBe(401)
  })

  it('publishes no 39004 for a group without the livekit flag, even from a signed webhook', async () => {
    const { r, u, http } = await setup()
    const m = u()
    const plain = await r.createGroup({ name: 'Plain', members: [m.pk] })
    const call = await r.createGroup({ name: 'Call', livekit: true, members: [m.pk] })
    const c = await connect(r.url, m)
    const sub = live(c, [{ kinds: [39004], '#d': [plain, call], authors: [r.pubkey] }])
    await sub.ready
    // A room named like the plain group (LiveKit rooms are anyone's to name with a valid key).
    expect(await webhook(http, 'participant_joined', plain, m.pk)).toBe(200)
    // Then one for the group with calls on: its 39004 arrives, and nothing came before it.
    expect(await webhook(http, 'participant_joined', call, m.pk)).toBe(200)
    const first = await sub.next()
    expect(first.tags[0]).toEqual(['d', call])
    expect((await reqUntilEose(c, [{ kinds: [39004], '#d': [plain] }])).events).toEqual([])
  })

  it('refuses 39004 from anyone but the relay', async () => {
    const { r, u } = await setup()
    const m = u()
    const g = await r.createGroup({ livekit: true, members: [m.pk] })
    const c = await connect(r.url, m)
    const res = await publish(c, m.sign({ kind: 39004, tags: [['d', g], ['participant', m.pk], ...h(g)] }))
    expect(res.ok).toBe(false)
  })
})

describe('without LiveKit configured', () => {
  it('offers no AV: 404 on the endpoints, no livekit flag in 39000', async () => {
    const { r, get, token, u } = await setup(false)
    const m = u()
    const g = await r.createGroup({ livekit: true, members: [m.pk] })
    expect((await get('/.well-known/nip29/livekit')).status).toBe(404)
    expect((await token(m, g)).status).toBe(404)
    expect((await get(WEBHOOK, { method: 'POST', body: '{}' })).status).toBe(404)
    const c = await connect(r.url)
    const { events } = await reqUntilEose(c, [{ kinds: [39000], '#d': [g], authors: [r.pubkey] }])
    expect(events).toHaveLength(1)
    expect(events[0]?.tags).not.toContainEqual(['livekit'])
  })
})

describe('turning LiveKit on or off across a restart', () => {
  it('re-signs the 39000 of groups with the flag so it shows only while AV is configured', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'roost-relay-')), 'relay.db')
    const flagOf = async (url: string, g: string) => {
      const c = await connect(url)
      const { events } = await reqUntilEose(c, [{ kinds: [39000], '#d': [g] }])
      expect(events).toHaveLength(1)
      return events[0]?.tags.some((t) => t[0] === 'livekit')
    }
    const first = await relay({ db })
    const port = Number(new URL(first.url).port)
    const g = await first.createGroup({ name: 'Call', livekit: true })
    const plain = await first.createGroup({ name: 'Plain' })
    expect(await flagOf(first.url, g)).toBe(false)
    await first.close()
    const second = await relay({ db, port, livekit: LIVEKIT })
    expect(await flagOf(second.url, g)).toBe(true)
    expect(await flagOf(second.url, plain)).toBe(false)
    await second.close()
    const third = await relay({ db, port })
    expect(await flagOf(third.url, g)).toBe(false)
  })
})
