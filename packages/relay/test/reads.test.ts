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

  for (const profile of ['roost', 'strict', 'groups_relay'] as const) {
    it(`rule 29 (${profile}): a requester of a private group holds a REQ for the 9000/9001 naming them, and learns nothing else`, async () => {
      const { r } = await setup({ profile })
      const admin = user()
      const bob = user()
      const carol = user()
      const dave = user()
      const g = await r.createGroup({ private: true, closed: true, hidden: true, admins: [admin.pk] })
      const own = (pk: string) => ({ kinds: [9000, 9001], '#h': [g], '#p': [pk] })
      const ac = await connect(r.url, admin)
      const mention = admin.sign({ kind: 9, tags: h(g, ['p', bob.pk]), content: 'psst' })
      expect((await publish(ac, mention)).ok).toBe(true)

      // Before AUTH the same REQ asks for it; another key, another kind or no #p stays refused.
      const raw = await RawClient.open(r.url)
      expect((await raw.req('a', own(bob.pk))).closed).toMatch(/^auth-required:/)
      await raw.auth(bob, r.url)
      for (const f of [own(carol.pk), { ...own(bob.pk), kinds: [9000, 9] }, { kinds: [9000], '#h': [g] }])
        expect((await raw.req('b', f)).closed).toMatch(/^restricted:/)
      expect((await raw.req('c', own(bob.pk), { kinds: [9], '#h': [g] })).closed).toMatch(/^restricted:/)

      const bc = await connect(r.url, bob)
      const cc = await connect(r.url, carol)
      const bobSub = live(bc, [own(bob.pk)])
      const carolSub = live(cc, [own(carol.pk)])
      const carolSpy = live(cc, [{ kinds: [9, 9000, 9001, 39002] }])
      await Promise.all([bobSub.ready, carolSub.ready, carolSpy.ready])
      const putDave = admin.sign({ kind: 9000, tags: h(g, ['p', dave.pk]) })
      expect((await publish(ac, putDave)).ok).toBe(true)
      const putBob = admin.sign({ kind: 9000, tags: h(g, ['p', bob.pk]) })
      expect((await publish(ac, putBob)).ok).toBe(true)
      expect((await bobSub.next()).id).toBe(putBob.id)

      expect((await fetch(bc, [own(bob.pk)])).events.map((e) => e.id)).toEqual([putBob.id])
      expect((await fetch(cc, [own(carol.pk)])).events).toEqual([])
      expect((await fetch(cc, [{ '#p': [bob.pk, dave.pk] }])).events).toEqual([])
      expect(bobSub.events.map((e) => e.id)).toEqual([putBob.id])
      expect(carolSub.events).toEqual([])
      expect(carolSpy.events).toEqual([])
    })
  }

  it('rule 29: a requester of a private group sees only the 9000/9001 naming them, not a message mentioning them', async () => {
    const { r } = await setup()
    const admin = user()
    const bob = user()
    const g = await r.createGroup({ private: true, closed: true, admins: [admin.pk] })
    const ac = await connect(r.url, admin)
    const mention = admin.sign({ kind: 9, tags: h(g, ['p', bob.pk]), content: 'psst' })
    expect((await publish(ac, mention)).ok).toBe(true)
    const putDave = admin.sign({ kind: 9000, tags: h(g, ['p', user().pk]) })
    expect((await publish(ac, putDave)).ok).toBe(true)
    const bc = await connect(r.url, bob)
    expect(
      (await fetch(bc, [{ '#p': [bob.pk] }, { '#h': [g], '#p': [bob.pk], kinds: [9000, 9001] }])).events,
    ).toEqual([])
    const putBob = admin.sign({ kind: 9000, tags: h(g, ['p', bob.pk]) })
    expect((await publish(ac, putBob)).ok).toBe(true)
    // Now a member, bob reads the group; before, the mention never reached him.
    const ids = (await fetch(bc, [{ '#p': [bob.pk] }])).events.map((e) => e.id)
    expect(ids).toContain(mention.id)
    expect(ids).toContain(putBob.id)
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
