import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, RawClient, relay, TestClock, user } from './helpers'

async function setup() {
  const clock = new TestClock()
  const r = await relay({ profile: 'groups_relay', clock: clock.now })
  const c = await connect(r.url)
  const u = () => user(clock)
  return { r, c, clock, u, admin: u() }
}

describe('profile groups_relay (§6)', () => {
  it('NIP-11 has no self (gotcha 1)', async () => {
    const { r } = await setup()
    const res = await globalThis.fetch(r.url.replace('ws', 'http'), {
      headers: { Accept: 'application/nostr+json' },
    })
    const info = (await res.json()) as Record<string, unknown>
    expect(info.self).toBeUndefined()
    expect(info.pubkey).toBe(r.pubkey)
  })

  it('a 9007 creates a private, closed group unless its own tags say public/open (gotcha 4)', async () => {
    const { r, c, admin } = await setup()
    await publish(c, admin.sign({ kind: 9007, tags: h('dflt') }))
    expect(r.state('dflt')).toMatchObject({ private: true, closed: true })
    await publish(c, admin.sign({ kind: 9007, tags: h('pub', ['public'], ['open'], ['name', 'Pub']) }))
    expect(r.state('pub')).toMatchObject({ private: false, closed: false, name: 'Pub' })
    const meta = (await fetch(c, [{ kinds: [39000], '#d': ['pub'] }])).events[0]!
    expect(meta.tags).toEqual(expect.arrayContaining([['public'], ['open']]))
  })

  it('moderation by a non-admin gets a NOTICE and no OK (gotcha 7)', async () => {
    const { r, u } = await setup()
    const m = u()
    const g = await r.createGroup({ members: [m.pk] })
    const raw = await RawClient.open(r.url)
    const e = m.sign({ kind: 9000, tags: h(g, ['p', u().pk]) })
    raw.send(['EVENT', e])
    const notice = await raw.next((f) => f[0] === 'NOTICE')
    expect(notice[1]).toBe('User is not authorized to add users to this group')
    await raw.ping()
    expect(raw.frames.some((f) => f[0] === 'OK' && f[1] === e.id)).toBe(false)
  })

  it('a join to a closed group without a code is stored with OK true and left pending (gotcha 5)', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({ closed: true })
    const j = u()
    expect(await publish(c, j.sign({ kind: 9021, tags: h(g) }))).toEqual({ ok: true, message: '' })
    expect(r.state(g)?.pending).toEqual([j.pk])
    expect(r.state(g)?.members).not.toContain(j.pk)
  })

  it('an admin 9000 admits a pending join', async () => {
    const { r, c, u, admin } = await setup()
    const g = await r.createGroup({ closed: true, admins: [admin.pk] })
    const j = u()
    await publish(c, j.sign({ kind: 9021, tags: h(g) }))
    expect((await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', j.pk]) }))).ok).toBe(true)
    expect(r.state(g)).toMatchObject({ pending: [] })
    expect(r.state(g)?.members).toContain(j.pk)
  })

  it('join 9000s carry an explicit member role (gotcha 8)', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({})
    const j = u()
    await publish(c, j.sign({ kind: 9021, tags: h(g) }))
    const put = (await fetch(c, [{ kinds: [9000], '#p': [j.pk] }])).events[0]!
    expect(put.tags).toEqual([
      ['h', g],
      ['p', j.pk, 'member'],
    ])
    expect(r.state(g)?.admins).toEqual([])
  })

  it('a leave issues no 9001 but updates 39002; a non-member leave gets no reply at all (gotchas 7, 18)', async () => {
    const { r, c, u } = await setup()
    const m = u()
    const g = await r.createGroup({ members: [m.pk] })
    expect((await publish(c, m.sign({ kind: 9022, tags: h(g) }))).ok).toBe(true)
    expect((await fetch(c, [{ kinds: [9001], '#h': [g] }])).events).toEqual([])
    const members = (await fetch(c, [{ kinds: [39002], '#d': [g] }])).events[0]!
    expect(members.tags.filter((t) => t[0] === 'p')).toEqual([])
    const raw = await RawClient.open(r.url)
    const again = m.sign({ kind: 9022, tags: h(g), content: 'again' })
    raw.send(['EVENT', again])
    await raw.ping()
    expect(raw.frames.filter((f) => f[0] === 'OK' || f[0] === 'NOTICE')).toEqual([])
  })

  it('the last admin cannot leave: NOTICE (gotcha 7)', async () => {
    const { r, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    const raw = await RawClient.open(r.url)
    raw.send(['EVENT', admin.sign({ kind: 9022, tags: h(g) })])
    expect((await raw.next((f) => f[0] === 'NOTICE'))[1]).toBe('Cannot remove last admin')
    expect(r.state(g)?.members).toContain(admin.pk)
  })

  it('a non-member posting to an open group is auto-joined (gotcha 26)', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({})
    const p = u()
    expect((await publish(c, p.sign({ kind: 9, tags: h(g), content: 'hi' }))).ok).toBe(true)
    expect(r.state(g)?.members).toContain(p.pk)
    expect(
      await publish(c, u().sign({ kind: 9, tags: h(await r.createGroup({ closed: true })) })),
    ).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^restricted: User [0-9a-f]{64} is not a member of this group$/),
    })
  })

  it('39001 says "Admin" and 39003 lists admin, member and an empty-name role (gotcha 8)', async () => {
    const { r, c, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    const admins = (await fetch(c, [{ kinds: [39001], '#d': [g] }])).events[0]!
    expect(admins.tags).toContainEqual(['p', admin.pk, 'Admin'])
    const roles = (await fetch(c, [{ kinds: [39003], '#d': [g] }])).events[0]!
    expect(roles.tags.filter((t) => t[0] === 'role').map((t) => t[1])).toEqual(['admin', 'member', ''])
  })

  it('posting to an unknown id succeeds: an unmanaged group (gotcha 17)', async () => {
    const { c, u } = await setup()
    const e = u().sign({ kind: 9, tags: h('wild'), content: 'anyone home?' })
    expect((await publish(c, e)).ok).toBe(true)
    expect((await fetch(c, [{ '#h': ['wild'] }])).events.map((x) => x.id)).toEqual([e.id])
  })

  it("private reads are gated on #h and #d with groups_relay's texts (gotcha 13)", async () => {
    const { r } = await setup()
    const g = await r.createGroup({ private: true, closed: true })
    const raw = await RawClient.open(r.url)
    expect((await raw.req('d', { kinds: [39000], '#d': [g] })).closed).toBe(
      'auth-required: Authentication required to access private groups',
    )
    await raw.auth(user(), r.url)
    expect((await raw.req('h', { '#h': [g] })).closed).toBe('restricted: Access denied to private group')
  })

  it("events without h get groups_relay's invalid: text", async () => {
    const { c, u } = await setup()
    expect((await publish(c, u().sign({ kind: 9 }))).message).toBe(
      "invalid: group events must contain an 'h' tag",
    )
  })

  it('9002 is PATCH and unknown tags are kept in 39000 (gotchas 3, 24)', async () => {
    const { r, c, admin } = await setup()
    const g = await r.createGroup({ name: 'G', admins: [admin.pk] })
    await publish(c, admin.sign({ kind: 9002, tags: h(g, ['about', 'A'], ['color', 'blue']) }))
    expect(r.state(g)).toMatchObject({ name: 'G', about: 'A' })
    const meta = (await fetch(c, [{ kinds: [39000], '#d': [g] }])).events[0]!
    expect(meta.tags).toContainEqual(['color', 'blue'])
  })

  it('no previous checks and no time windows (gotchas 10, 12)', async () => {
    const { r, c, clock, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    const e = admin.sign({ kind: 9, tags: h(g, ['previous', 'deadbeef']), created_at: clock.now() - 86_400 })
    expect((await publish(c, e)).ok).toBe(true)
    const mod = admin.sign({ kind: 9002, tags: h(g, ['name', 'old']), created_at: clock.now() - 3600 })
    expect((await publish(c, mod)).ok).toBe(true)
  })
})
