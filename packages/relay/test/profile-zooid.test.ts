import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, RawClient, relay, TestClock, user } from './helpers'

async function setup() {
  const clock = new TestClock()
  const r = await relay({ profile: 'zooid', clock: clock.now })
  const u = () => user(clock)
  const admin = u()
  const c = await connect(r.url, admin)
  return { r, c, clock, u, admin }
}

describe('profile zooid (§6)', () => {
  it('NIP-11 self is the signing key and pubkey a different owner key (gotcha 1)', async () => {
    const { r } = await setup()
    const res = await globalThis.fetch(r.url.replace('ws', 'http'), {
      headers: { Accept: 'application/nostr+json' },
    })
    const info = (await res.json()) as {
      self: string
      pubkey: string
      limitation: { auth_required: boolean }
    }
    expect(info.self).toBe(r.pubkey)
    expect(info.pubkey).toBe(r.ownerPubkey)
    expect(info.pubkey).not.toBe(info.self)
    expect(info.limitation.auth_required).toBe(true)
  })

  it('every REQ and EVENT needs AUTH, and only for the authenticated author (gotcha 14)', async () => {
    const { r, u } = await setup()
    const raw = await RawClient.open(r.url)
    expect((await raw.req('x', { kinds: [39000] })).closed).toBe(
      'auth-required: authentication is required for access',
    )
    const me = u()
    expect((await raw.publish(me.sign({ kind: 9, tags: h('g') }))).message).toBe(
      'auth-required: authentication is required for access',
    )
    await raw.auth(me, r.url)
    expect((await raw.publish(u().sign({ kind: 9, tags: h('g') }))).message).toBe(
      'restricted: you cannot publish events on behalf of others',
    )
    expect((await raw.req('y', { kinds: [39000] })).closed).toBeUndefined()
  })

  it("39000 copies the 9002's tags verbatim, h renamed to d, stray previous included (gotcha 24)", async () => {
    const { r, c, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    const first = (await fetch(c, [{ '#h': [g] }])).events[0]!
    const tags = h(g, ['name', 'Z'], ['closed'], ['previous', first.id.slice(0, 8)])
    expect((await publish(c, admin.sign({ kind: 9002, tags }))).ok).toBe(true)
    const meta = (await fetch(c, [{ kinds: [39000], '#d': [g] }])).events[0]!
    expect(meta.tags).toEqual([['d', g], ['name', 'Z'], ['closed'], ['previous', first.id.slice(0, 8)]])
    expect(r.state(g)?.closed).toBe(true)
  })

  it('39001 lists bare keys with a NIP-70 - tag, 39002 too, and there is no 39003 (gotchas 8, 24)', async () => {
    const { r, c, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    const state = await fetch(c, [{ kinds: [39001, 39002, 39003], '#d': [g] }])
    const admins = state.events.find((e) => e.kind === 39001)!
    expect(admins.tags[0]).toEqual(['-'])
    expect(admins.tags.filter((t) => t[0] === 'p').every((t) => t.length === 2)).toBe(true)
    expect(admins.tags).toContainEqual(['p', admin.pk])
    expect(state.events.find((e) => e.kind === 39002)!.tags[0]).toEqual(['-'])
    expect(state.events.some((e) => e.kind === 39003)).toBe(false)
  })

  it('hidden hides everything from non-members and refuses their joins with group not found (gotcha 15)', async () => {
    const { r, u } = await setup()
    const m = u()
    const g = await r.createGroup({ hidden: true, members: [m.pk] })
    const stranger = u()
    const c = await connect(r.url, stranger)
    expect((await fetch(c, [{ kinds: [39000], '#d': [g] }])).events).toEqual([])
    expect(await publish(c, stranger.sign({ kind: 9021, tags: h(g) }))).toEqual({
      ok: false,
      message: 'invalid: group not found',
    })
    const member = await connect(r.url, m)
    expect((await fetch(member, [{ kinds: [39000], '#d': [g] }])).events).toHaveLength(1)
  })

  it('joins to closed groups stay pending with OK true and invite codes are ignored (gotchas 5, 23)', async () => {
    const { r, u } = await setup()
    const g = await r.createGroup({ closed: true })
    const code = await r.createInvite(g)
    const j = u()
    const c = await connect(r.url, j)
    expect(await publish(c, j.sign({ kind: 9021, tags: h(g, ['code', code]) }))).toEqual({
      ok: true,
      message: '',
    })
    expect(r.state(g)?.pending).toEqual([j.pk])
    expect(r.state(g)?.members).not.toContain(j.pk)
  })

  it('leaves by non-members, writes by non-members of closed groups, unknown groups: zooid texts', async () => {
    const { r, u } = await setup()
    const g = await r.createGroup({ closed: true })
    const s = u()
    const c = await connect(r.url, s)
    expect((await publish(c, s.sign({ kind: 9022, tags: h(g) }))).message).toBe(
      'duplicate: not currently a member',
    )
    expect((await publish(c, s.sign({ kind: 9, tags: h(g) }))).message).toBe(
      'restricted: you are not a member of that group',
    )
    expect((await publish(c, s.sign({ kind: 9, tags: h('none') }))).message).toBe('invalid: group not found')
    expect((await publish(c, s.sign({ kind: 39000, tags: [['d', g]] }))).message).toBe(
      'invalid: group metadata cannot be set directly',
    )
  })

  it('moderation by someone without rights gets zooid’s text; no time window (gotcha 12)', async () => {
    const { r, c, clock, admin, u } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    const m = u()
    const mc = await connect(r.url, m)
    await publish(mc, m.sign({ kind: 9021, tags: h(g) }))
    expect((await publish(mc, m.sign({ kind: 9002, tags: h(g, ['name', 'x']) }))).message).toBe(
      'restricted: you are not authorized to manage groups',
    )
    const old = admin.sign({ kind: 9002, tags: h(g, ['name', 'x']), created_at: clock.now() - 3600 })
    expect((await publish(c, old)).ok).toBe(true)
  })
})
