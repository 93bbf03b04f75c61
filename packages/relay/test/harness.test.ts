import { getPublicKey } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { PROFILES } from '../src/index'
import { connect, fetch, h, live, publish, RawClient, relay, TestClock, user } from './helpers'

describe('E. test-harness extras', () => {
  it('rule 31: a given secret key makes the relay key deterministic; the clock drives created_at; port 0 is free', async () => {
    const sk = '0f'.repeat(32)
    const clock = new TestClock(1_900_000_000)
    const a = await relay({ secretKey: sk, clock: clock.now })
    const b = await relay({ secretKey: sk })
    expect(a.pubkey).toBe(getPublicKey(Uint8Array.from(Buffer.from(sk, 'hex'))))
    expect(b.pubkey).toBe(a.pubkey)
    expect(a.url).not.toBe(b.url)
    expect(a.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/)
    const g = await a.createGroup({ name: 'clocked' })
    const c = await connect(a.url)
    const meta = (await fetch(c, [{ kinds: [39000], '#d': [g] }])).events[0]!
    expect(meta.created_at).toBe(1_900_000_000)
  })

  it('rule 32: every emulation switch of the checklist is a profile field', () => {
    expect(PROFILES.groups_relay.noticeInsteadOfOk).toBe(true)
    expect(['relay29', 'groups_relay', 'zooid'].map((p) => PROFILES[p as 'zooid'].closedJoin)).toEqual([
      'ignore',
      'pending',
      'pending',
    ])
    expect(PROFILES.relay29.patch9002 && PROFILES.groups_relay.patch9002).toBe(true)
    expect(PROFILES.groups_relay.writes).toBe('auto-join')
    expect(PROFILES.zooid.requireAuthForAll).toBe(true)
    expect(PROFILES.groups_relay.capitalizedAdminRole).toBe(true)
    expect(PROFILES.strict).toMatchObject({
      closedJoin: 'refuse',
      noticeInsteadOfOk: false,
      patch9002: false,
    })
  })

  it('rule 33: state() dumps flags, members, roles, invite codes, pins and pending joins', async () => {
    const r = await relay({ profile: 'groups_relay' })
    const admin = user()
    const g = await r.createGroup({ name: 'Dump', about: 'all of it', closed: true, admins: [admin.pk] })
    const code = await r.createInvite(g, 'abc')
    const c = await connect(r.url)
    const pending = user()
    await publish(c, pending.sign({ kind: 9021, tags: h(g) }))
    expect(r.state(g)).toEqual({
      id: g,
      createdAt: expect.any(Number),
      name: 'Dump',
      about: 'all of it',
      private: false,
      restricted: false,
      hidden: false,
      closed: true,
      livekit: false,
      children: [],
      members: [admin.pk],
      admins: [{ pubkey: admin.pk, roles: ['admin'] }],
      invites: [code],
      inviteTerms: {},
      pins: [],
      pending: [pending.pk],
      deleted: false,
    })
    expect(r.state('missing')).toBeUndefined()
  })

  it('state() snapshots are copies: changing one does not change the relay', async () => {
    const r = await relay()
    const g = await r.createGroup({})
    const s = r.state(g)!
    s.members.push('x')
    expect(r.state(g)!.members).toEqual([])
  })

  it('createGroup refuses an existing id with a typed error', async () => {
    const r = await relay()
    await r.createGroup({ id: 'taken' })
    await expect(r.createGroup({ id: 'taken' })).rejects.toMatchObject({ code: 'group-exists' })
    await expect(r.createInvite('nope')).rejects.toMatchObject({ code: 'unknown-group' })
  })

  it('close() is idempotent and ends open connections', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    const closed = new Promise<void>((resolve) => raw.ws.once('close', () => resolve()))
    await Promise.all([r.close(), r.close()])
    await closed
  })
})

describe('live broadcasts respect hidden, private and restricted', () => {
  it('a broad listing does not receive a hidden group’s state updates; a scoped one does', async () => {
    const r = await relay({ previousMinimum: 0 })
    const admin = user()
    const g = await r.createGroup({ hidden: true, admins: [admin.pk] })
    const c = await connect(r.url)
    const broad = live(c, [{ kinds: [39000] }])
    const scoped = live(c, [{ kinds: [39000], '#d': [g] }])
    await broad.ready
    await scoped.ready
    await publish(c, admin.sign({ kind: 9002, tags: h(g, ['hidden'], ['name', 'renamed']) }))
    const update = await scoped.next((e) => e.tags.some((t) => t[0] === 'name' && t[1] === 'renamed'))
    expect(update.kind).toBe(39000)
    await fetch(c, [{ limit: 0 }])
    expect(broad.events).toEqual([])
  })

  it('restricted groups are readable by anyone; only writes need membership', async () => {
    const r = await relay({ previousMinimum: 0 })
    const m = user()
    const g = await r.createGroup({ restricted: true, members: [m.pk] })
    const mc = await connect(r.url)
    const msg = m.sign({ kind: 9, tags: h(g), content: 'announcement' })
    await publish(mc, msg)
    const reader = await connect(r.url)
    expect((await fetch(reader, [{ '#h': [g], kinds: [9] }])).events.map((e) => e.id)).toEqual([msg.id])
  })
})

describe('NIP-70 protected events', () => {
  it('need AUTH as their author', async () => {
    const r = await relay({ nonGroupKinds: [1] })
    const a = user()
    const raw = await RawClient.open(r.url)
    expect((await raw.publish(a.sign({ kind: 1, tags: [['-']] }))).message).toBe(
      'auth-required: must be published by authenticated event author',
    )
    await raw.auth(user(), r.url)
    expect((await raw.publish(a.sign({ kind: 1, tags: [['-']], content: '2' }))).message).toBe(
      'blocked: must be published by event author',
    )
    await raw.auth(a, r.url)
    expect((await raw.publish(a.sign({ kind: 1, tags: [['-']], content: '3' }))).ok).toBe(true)
  })
})

describe('options', () => {
  it('refuses a malformed secret key with a typed error', async () => {
    await expect(relay({ secretKey: 'nope' })).rejects.toMatchObject({ code: 'invalid-option' })
    await expect(relay({ secretKey: new Uint8Array(3) })).rejects.toMatchObject({ code: 'invalid-option' })
  })

  it('advertises the late-publication window in NIP-11', async () => {
    const r = await relay({ lateWindow: 120 })
    const res = await globalThis.fetch(r.url.replace('ws', 'http'), {
      headers: { Accept: 'application/nostr+json' },
    })
    const info = (await res.json()) as { limitation: Record<string, unknown> }
    expect(info.limitation).toMatchObject({ created_at_lower_limit: 120, created_at_upper_limit: 60 })
  })

  it('dates its NIP-11 answer by the clock it checks created_at against, readable across origins', async () => {
    const r = await relay({ clock: () => 1_700_000_000 })
    const res = await globalThis.fetch(r.url.replace('ws', 'http'), {
      headers: { Accept: 'application/nostr+json', Origin: 'https://app.example' },
    })
    await res.json()
    expect(Date.parse(res.headers.get('date') ?? '') / 1000).toBe(1_700_000_000)
    expect(res.headers.get('access-control-expose-headers')).toBe('Date')
  })
})

describe('startup failures', () => {
  it('refuses an unknown profile and a busy port with errors, leaving nothing open', async () => {
    await expect(relay({ profile: 'nope' as never })).rejects.toMatchObject({ code: 'invalid-option' })
    const first = await relay()
    const port = Number(new URL(first.url).port)
    await expect(relay({ port })).rejects.toMatchObject({ code: 'EADDRINUSE' })
  })
})
