import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, RawClient, relay, TestClock, user } from './helpers'

async function setup() {
  const clock = new TestClock()
  const r = await relay({ profile: 'relay29', clock: clock.now })
  const c = await connect(r.url)
  const u = () => user(clock)
  const admin = u()
  return { r, c, clock, u, admin }
}

describe('profile relay29 (§6)', () => {
  it('NIP-11 has no self; pubkey is the signing key (gotcha 1)', async () => {
    const { r } = await setup()
    const res = await globalThis.fetch(r.url.replace('ws', 'http'), {
      headers: { Accept: 'application/nostr+json' },
    })
    const info = (await res.json()) as Record<string, unknown>
    expect(info.self).toBeUndefined()
    expect(info.pubkey).toBe(r.pubkey)
  })

  it('39000 always carries one of public/private and one of open/closed (gotcha 2)', async () => {
    const { r, c } = await setup()
    const g = await r.createGroup({ name: 'G' })
    const meta = (await fetch(c, [{ kinds: [39000], '#d': [g] }])).events[0]!
    expect(meta.tags).toEqual([['d', g], ['name', 'G'], ['public'], ['open']])
  })

  it('9002 is PATCH: omitting private keeps the group private; public/open clear the flags (gotcha 3)', async () => {
    const { r, c, admin } = await setup()
    const g = await r.createGroup({ name: 'G', private: true, closed: true, admins: [admin.pk] })
    await publish(c, admin.sign({ kind: 9002, tags: h(g, ['about', 'x']) }))
    expect(r.state(g)).toMatchObject({ name: 'G', about: 'x', private: true, closed: true })
    await publish(c, admin.sign({ kind: 9002, tags: h(g, ['public'], ['open']), content: '2' }))
    expect(r.state(g)).toMatchObject({ name: 'G', private: false, closed: false })
  })

  it('a join to a closed group without a code gets OK true and nothing happens (gotcha 5)', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({ closed: true })
    const j = u()
    expect(await publish(c, j.sign({ kind: 9021, tags: h(g) }))).toEqual({ ok: true, message: '' })
    expect(r.state(g)?.members).not.toContain(j.pk)
    expect(r.state(g)?.pending).toEqual([])
    expect((await fetch(c, [{ kinds: [9000], '#p': [j.pk] }])).events).toEqual([])
  })

  it('anyone named in any 9001 in any group is silently ignored on re-join, leavers included (gotcha 19)', async () => {
    const { r, c, u } = await setup()
    const j = u()
    const elsewhere = await r.createGroup({ members: [j.pk] })
    await publish(c, j.sign({ kind: 9022, tags: h(elsewhere) }))
    const g = await r.createGroup({})
    expect(await publish(c, j.sign({ kind: 9021, tags: h(g) }))).toEqual({ ok: true, message: '' })
    expect(r.state(g)?.members).not.toContain(j.pk)
  })

  it('9009 is not a supported moderation action (gotcha 23)', async () => {
    const { r, c, admin } = await setup()
    const g = await r.createGroup({ closed: true, admins: [admin.pk] })
    expect(await publish(c, admin.sign({ kind: 9009, tags: h(g, ['code', 'x']) }))).toEqual({
      ok: false,
      message: 'blocked: invalid moderation action: event kind 9009 is not a supported moderation action',
    })
  })

  it('writes are members-only even in open, unrestricted groups (gotchas 16, 26)', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({})
    expect(await publish(c, u().sign({ kind: 9, tags: h(g) }))).toEqual({
      ok: false,
      message: 'blocked: unknown member',
    })
  })

  it('leave-made 9001s carry no self-removal tag (gotcha 18)', async () => {
    const { r, c, u } = await setup()
    const m = u()
    const g = await r.createGroup({ members: [m.pk] })
    await publish(c, m.sign({ kind: 9022, tags: h(g) }))
    const removal = (await fetch(c, [{ kinds: [9001], '#h': [g] }])).events[0]!
    expect(removal.tags).toEqual([
      ['h', g],
      ['p', m.pk],
    ])
  })

  it('unscoped REQs and REQs mixing metadata kinds with others are refused (gotcha 14, §7)', async () => {
    const { c } = await setup()
    expect((await fetch(c, [{ kinds: [9] }])).closed).toBe(
      "blocked: invalid query, must have 'h', 'e' or 'a' tag",
    )
    expect((await fetch(c, [{ kinds: [39000, 9], '#d': ['x'] }])).closed).toBe(
      "blocked: it's not allowed to mix metadata kinds with others",
    )
    expect((await fetch(c, [{ kinds: [39000] }])).closed).toBeUndefined()
    expect((await fetch(c, [{ '#h': ['x'] }])).closed).toBeUndefined()
  })

  it('only the first previous tag is read, and the text says "in this relay" (gotchas 10, 11)', async () => {
    const { r, c, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    expect(
      (
        await publish(
          c,
          admin.sign({ kind: 9, tags: h(g, ['previous', 'ffffffff'], ['previous', 'deadbeef']) }),
        )
      ).message,
    ).toBe("blocked: previous id 'ffffffff' wasn't found in this relay")
    const m = admin.sign({ kind: 9, tags: h(g), content: 'ok' })
    await publish(c, m)
    expect(
      (
        await publish(
          c,
          admin.sign({ kind: 9, tags: h(g, ['previous', m.id.slice(0, 8)], ['previous', 'deadbeef']) }),
        )
      ).ok,
    ).toBe(true)
  })

  it('private reads use relay29 texts and only #h is gated (gotcha 13)', async () => {
    const { r } = await setup()
    const g = await r.createGroup({ private: true, closed: true })
    const raw = await RawClient.open(r.url)
    expect((await raw.req('h', { '#h': [g] })).closed).toBe(
      'auth-required: trying to read from a private group',
    )
    expect((await raw.req('d', { kinds: [39000], '#d': [g] })).closed).toBeUndefined()
    await raw.auth(user(), r.url)
    expect((await raw.req('h2', { '#h': [g] })).closed).toBe('restricted: not a member')
  })

  it('broad 39000 listings leave out closed and private groups (gotcha 14)', async () => {
    const { r, c } = await setup()
    const open = await r.createGroup({})
    await r.createGroup({ closed: true })
    const listing = await fetch(c, [{ kinds: [39000] }])
    expect(listing.events.map((e) => e.tags[0]![1])).toEqual([open])
  })

  it('every group event older than 60 s or 30 s in the future is refused (gotcha 12)', async () => {
    const { r, c, clock, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    expect(
      (await publish(c, admin.sign({ kind: 9, tags: h(g), created_at: clock.now() - 61 }))).message,
    ).toBe('blocked: event too old')
    expect(
      (await publish(c, admin.sign({ kind: 9, tags: h(g), created_at: clock.now() + 31 }))).message,
    ).toBe('blocked: event too much in the future')
  })

  it('9005 deletes any event id, even one from another group (gotcha 21)', async () => {
    const { r, c, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    const other = await r.createGroup({ admins: [admin.pk] })
    const there = admin.sign({ kind: 9, tags: h(other), content: 'there' })
    await publish(c, there)
    expect((await publish(c, admin.sign({ kind: 9005, tags: h(g, ['e', there.id]) }))).ok).toBe(true)
    expect((await fetch(c, [{ ids: [there.id] }])).events).toEqual([])
  })

  it('a deleted group id can be created again (gotcha 20)', async () => {
    const { c, admin } = await setup()
    await publish(c, admin.sign({ kind: 9007, tags: h('again') }))
    await publish(c, admin.sign({ kind: 9008, tags: h('again') }))
    expect((await publish(c, admin.sign({ kind: 9007, tags: h('again'), content: '2' }))).ok).toBe(true)
  })
})
