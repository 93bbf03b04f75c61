import { describe, expect, it } from 'vitest'
import { connect, fetch, h, live, publish, RawClient, relay, user } from './helpers'

async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const r = await relay({ previousMinimum: 0, ...opts })
  return { r, c: await connect(r.url) }
}

describe('D. reads', () => {
  it('rule 28: a REQ naming a private group by #h needs AUTH, then membership', async () => {
    const { r } = await setup()
    const m = user()
    const g = await r.createGroup({ private: true, closed: true, members: [m.pk] })
    const raw = await RawClient.open(r.url)
    const from = raw.frames.length
    expect(await raw.req('a', { '#h': [g] })).toEqual({
      events: [],
      closed: "auth-required: you're trying to access a private group",
    })
    await raw.next((f) => f[0] === 'AUTH', from)
    await raw.auth(user(), r.url)
    expect((await raw.req('b', { '#h': [g] })).closed).toBe(
      "restricted: you're trying to access a group of which you're not a member",
    )
    await raw.auth(m, r.url)
    const ok = await raw.req('c', { '#h': [g] })
    expect(ok.closed).toBeUndefined()
    expect(ok.events.length).toBeGreaterThan(0)
  })

  it('rule 28: in the strict profile a #d REQ for a private group state is gated too', async () => {
    const { r, c } = await setup({ profile: 'strict' })
    const g = await r.createGroup({ private: true, closed: true })
    expect((await fetch(c, [{ kinds: [39000], '#d': [g] }])).closed).toBe(
      "auth-required: you're trying to access a private group",
    )
  })

  it('rule 29: private groups show only 39000 to non-members, in stored results and live broadcasts', async () => {
    const { r, c } = await setup()
    const m = user()
    const g = await r.createGroup({ name: 'Secret', private: true, closed: true, members: [m.pk] })
    const stranger = await connect(r.url, user())
    const member = await connect(r.url, m)
    const strangerSub = live(stranger, [{ kinds: [9, 39000, 39002] }])
    const memberSub = live(member, [{ kinds: [9, 39000] }])
    await strangerSub.ready
    await memberSub.ready
    expect(strangerSub.events.map((e) => e.kind)).toEqual([39000])
    const msg = m.sign({ kind: 9, tags: h(g), content: 'psst' })
    expect((await publish(member, msg)).ok).toBe(true)
    await memberSub.next((e) => e.id === msg.id)
    const byId = await fetch(stranger, [{ ids: [msg.id] }])
    expect(byId.events).toEqual([])
    expect(strangerSub.events.map((e) => e.kind)).toEqual([39000])
    expect((await fetch(c, [{ kinds: [9] }])).events).toEqual([])
  })

  it('rule 29: a user removed from a private group still sees the 9001 naming them, live and stored', async () => {
    const { r } = await setup()
    const m = user()
    const g = await r.createGroup({ private: true, closed: true, members: [m.pk] })
    const mc = await connect(r.url, m)
    const sub = live(mc, [{ kinds: [9001], '#p': [m.pk] }])
    await sub.ready
    expect((await publish(mc, m.sign({ kind: 9022, tags: h(g) }))).ok).toBe(true)
    expect((await sub.next()).tags).toContainEqual(['p', m.pk])
    expect(
      (await fetch(mc, [{ kinds: [9000, 9001], '#p': [m.pk] }])).events.map((e) => e.kind).sort(),
    ).toEqual([9000, 9001])
    const stranger = await connect(r.url, user())
    expect((await fetch(stranger, [{ kinds: [9000, 9001] }])).events).toEqual([])
  })

  it('rule 29: hidden groups stay out of broad listings for non-members but are found by id', async () => {
    const { r, c } = await setup()
    const m = user()
    const g = await r.createGroup({ name: 'Hidden', hidden: true, members: [m.pk] })
    const visible = await r.createGroup({ name: 'Shown' })
    const listing = await fetch(c, [{ kinds: [39000] }])
    expect(listing.events.map((e) => e.tags[0]![1])).toEqual([visible])
    expect((await fetch(c, [{ kinds: [39000], '#d': [g] }])).events).toHaveLength(1)
    const member = await connect(r.url, m)
    const mine = await fetch(member, [{ kinds: [39000] }])
    expect(mine.events.map((e) => e.tags[0]![1]).sort()).toEqual([g, visible].sort())
  })

  it('rule 29: private + hidden hides even the 39000 asked for by id from non-members', async () => {
    const { r } = await setup()
    const m = user()
    const g = await r.createGroup({ private: true, hidden: true, closed: true, members: [m.pk] })
    const stranger = await connect(r.url, user())
    expect((await fetch(stranger, [{ kinds: [39000], ids: [] }])).events).toEqual([])
    const member = await connect(r.url, m)
    const id = (await fetch(member, [{ kinds: [39000], '#d': [g] }])).events[0]!.id
    expect((await fetch(stranger, [{ ids: [id] }])).events).toEqual([])
    expect((await fetch(member, [{ ids: [id] }])).events).toHaveLength(1)
  })

  it('rule 30: broad discovery, ids, #e and #a queries are served, each through the rule-29 filter', async () => {
    const { r, c } = await setup()
    const a = user()
    const g = await r.createGroup({ name: 'Open' })
    const msg = a.sign({ kind: 9, tags: h(g), content: 'x' })
    const reply = a.sign({ kind: 9, tags: h(g, ['e', msg.id], ['a', `30023:${a.pk}:d`]), content: 'y' })
    await publish(c, msg)
    await publish(c, reply)
    expect((await fetch(c, [{ kinds: [39000] }])).events).toHaveLength(1)
    expect((await fetch(c, [{ ids: [msg.id] }])).events).toHaveLength(1)
    expect((await fetch(c, [{ '#e': [msg.id] }])).events.map((e) => e.id)).toEqual([reply.id])
    expect((await fetch(c, [{ '#a': [`30023:${a.pk}:d`] }])).events.map((e) => e.id)).toEqual([reply.id])
  })
})
