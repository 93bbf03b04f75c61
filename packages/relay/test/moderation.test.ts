import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, relay, TestClock, user } from './helpers'

async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const clock = new TestClock()
  const r = await relay({ clock: clock.now, previousMinimum: 0, ...opts })
  const c = await connect(r.url)
  const u = () => user(clock)
  const admin = u()
  const mod = u()
  const member = u()
  const g = await r.createGroup({ admins: [admin.pk], members: [member.pk] })
  await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', mod.pk, 'moderator']) }))
  return { r, c, clock, u, admin, mod, member, g }
}

describe('rule 15: moderation authorization', () => {
  it('a member without a role gets restricted: insufficient permissions for every moderation kind', async () => {
    const { c, member, u, g } = await setup()
    const target = u()
    for (const [kind, tags] of [
      [9000, [['p', target.pk]]],
      [9001, [['p', target.pk]]],
      [9002, [['name', 'x']]],
      [9005, [['e', 'a'.repeat(64)]]],
      [9008, []],
      [9009, [['code', 'c']]],
      [9010, []],
    ] as const) {
      expect(await publish(c, member.sign({ kind, tags: h(g, ...tags.map((t) => [...t])) }))).toEqual({
        ok: false,
        message: 'restricted: insufficient permissions',
      })
    }
  })

  it('unknown role names give no power', async () => {
    const { c, admin, u, g } = await setup()
    const gardener = u()
    await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', gardener.pk, 'gardener']) }))
    expect(await publish(c, gardener.sign({ kind: 9002, tags: h(g, ['name', 'mine']) }))).toEqual({
      ok: false,
      message: 'restricted: insufficient permissions',
    })
  })

  it('moderators may add and remove role-less users only', async () => {
    const { r, c, mod, admin, member, u, g } = await setup()
    const newbie = u()
    expect((await publish(c, mod.sign({ kind: 9000, tags: h(g, ['p', newbie.pk]) }))).ok).toBe(true)
    expect(await publish(c, mod.sign({ kind: 9000, tags: h(g, ['p', u().pk, 'moderator']) }))).toEqual({
      ok: false,
      message: 'restricted: only admins can add or change user roles',
    })
    expect(await publish(c, mod.sign({ kind: 9000, tags: h(g, ['p', admin.pk]) }))).toEqual({
      ok: false,
      message: 'restricted: only admins can modify users with roles',
    })
    expect(await publish(c, mod.sign({ kind: 9001, tags: h(g, ['p', admin.pk]) }))).toEqual({
      ok: false,
      message: 'restricted: only admins can remove admins or moderators',
    })
    expect((await publish(c, mod.sign({ kind: 9001, tags: h(g, ['p', member.pk]) }))).ok).toBe(true)
    expect(r.state(g)?.members).not.toContain(member.pk)
  })

  it("a moderator cannot delete an admin's event, and only an admin can delete the group", async () => {
    const { c, mod, admin, g } = await setup()
    const post = admin.sign({ kind: 9, tags: h(g), content: 'rules' })
    await publish(c, post)
    expect(await publish(c, mod.sign({ kind: 9005, tags: h(g, ['e', post.id]) }))).toEqual({
      ok: false,
      message: "blocked: can't delete messages from an admin",
    })
    expect(await publish(c, mod.sign({ kind: 9008, tags: h(g) }))).toEqual({
      ok: false,
      message: "blocked: can't delete group",
    })
  })

  it('parse failures answer error: invalid moderation action: <detail>', async () => {
    const { c, admin, g } = await setup()
    const cases: [number, string[][], string][] = [
      [9000, [], "missing 'p' tags"],
      [9001, [['p', 'nothex']], "'p' tag value is not a valid public key"],
      [9005, [], "missing 'e' tag"],
      [9005, [['e', 'xyz']], 'invalid event id hex'],
      [9009, [], "missing 'code' tags"],
      [9009, Array.from({ length: 11 }, (_, i) => ['code', `c${i}`]), "too many 'code' tags"],
    ]
    for (const [kind, tags, detail] of cases) {
      expect(await publish(c, admin.sign({ kind, tags: h(g, ...tags) }))).toEqual({
        ok: false,
        message: `error: invalid moderation action: ${detail}`,
      })
    }
  })
})

describe('rules 16–22: moderation actions', () => {
  it('rule 16: 9000 is PUT for roles (replaces the list; no roles makes a plain member); 9001 removes', async () => {
    const { r, c, admin, member, g } = await setup()
    await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', member.pk, 'moderator', 'gardener']) }))
    expect(r.state(g)?.admins).toContainEqual({ pubkey: member.pk, roles: ['moderator', 'gardener'] })
    await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', member.pk, 'gardener']), content: '2' }))
    expect(r.state(g)?.admins).toContainEqual({ pubkey: member.pk, roles: ['gardener'] })
    await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', member.pk]), content: '3' }))
    expect(r.state(g)?.admins.map((a) => a.pubkey)).not.toContain(member.pk)
    expect(r.state(g)?.members).toContain(member.pk)
    await publish(c, admin.sign({ kind: 9001, tags: h(g, ['p', member.pk]) }))
    expect(r.state(g)?.members).not.toContain(member.pk)
  })

  it('rule 17: 9002 replaces every field and flag and supported_kinds', async () => {
    const { r, c, admin, g } = await setup()
    await publish(
      c,
      admin.sign({ kind: 9002, tags: h(g, ['name', 'A'], ['closed'], ['supported_kinds', '9']) }),
    )
    expect(r.state(g)).toMatchObject({ name: 'A', closed: true, supportedKinds: [9] })
    await publish(c, admin.sign({ kind: 9002, tags: h(g, ['about', 'B'], ['public'], ['visible']) }))
    const s = r.state(g)!
    expect(s).toMatchObject({ about: 'B', closed: false, private: false, hidden: false })
    expect(s.name).toBeUndefined()
    expect(s.supportedKinds).toBeUndefined()
  })

  it('rule 18: 9005 deletes events of this group only; other targets are refused', async () => {
    const { r, c, admin, member, g } = await setup()
    const other = await r.createGroup({ members: [member.pk] })
    const mine = member.sign({ kind: 9, tags: h(g), content: 'here' })
    const theirs = member.sign({ kind: 9, tags: h(other), content: 'there' })
    await publish(c, mine)
    await publish(c, theirs)
    expect(await publish(c, admin.sign({ kind: 9005, tags: h(g, ['e', theirs.id]) }))).toEqual({
      ok: false,
      message: 'blocked: none of the targets exist in this relay',
    })
    expect(
      (await publish(c, admin.sign({ kind: 9005, tags: h(g, ['e', mine.id], ['e', theirs.id]) }))).ok,
    ).toBe(true)
    expect((await fetch(c, [{ ids: [mine.id, theirs.id] }])).events.map((e) => e.id)).toEqual([theirs.id])
  })

  it('rule 19: 9008 deletes the group and its events, keeps the 9008 readable, then the id is unknown', async () => {
    const { r, c, admin, member, g } = await setup()
    await publish(c, member.sign({ kind: 9, tags: h(g), content: 'bye' }))
    const del = admin.sign({ kind: 9008, tags: h(g) })
    expect((await publish(c, del)).ok).toBe(true)
    const left = await fetch(c, [{ '#h': [g] }, { '#d': [g] }])
    expect(left.events.map((e) => e.id)).toEqual([del.id])
    expect(r.state(g)?.deleted).toBe(true)
    expect(await publish(c, member.sign({ kind: 9, tags: h(g), content: 'late' }))).toEqual({
      ok: false,
      message: `blocked: group '${g}' doesn't exist`,
    })
  })

  it('rule 20: 9009 adds up to 10 single-use codes', async () => {
    const { r, c, admin, u, g } = await setup()
    await publish(c, admin.sign({ kind: 9002, tags: h(g, ['closed']) }))
    await publish(c, admin.sign({ kind: 9009, tags: h(g, ['code', 'one'], ['code', 'two']) }))
    expect(r.state(g)?.invites.sort()).toEqual(['one', 'two'])
    const a = u()
    const b = u()
    expect((await publish(c, a.sign({ kind: 9021, tags: h(g, ['code', 'one']) }))).ok).toBe(true)
    expect((await publish(c, b.sign({ kind: 9021, tags: h(g, ['code', 'one']) }))).ok).toBe(false)
    expect((await publish(c, b.sign({ kind: 9021, tags: h(g, ['code', 'two']), content: '2' }))).ok).toBe(
      true,
    )
    expect(r.state(g)?.invites).toEqual([])
    expect(r.state(g)?.members).toEqual(expect.arrayContaining([a.pk, b.pk]))
  })

  it('rule 21: 9010 replaces the ordered pin list', async () => {
    const { r, c, admin, mod, g } = await setup()
    const p = admin.sign({ kind: 9, tags: h(g), content: 'pin me' })
    await publish(c, p)
    expect((await publish(c, mod.sign({ kind: 9010, tags: h(g, ['e', p.id]) }))).ok).toBe(true)
    expect(r.state(g)?.pins).toEqual([['e', p.id]])
    await publish(c, admin.sign({ kind: 9010, tags: h(g) }))
    expect(r.state(g)?.pins).toEqual([])
  })

  it('rule 22: supported_kinds refuses unlisted kinds, with 9000–9022 exempt', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const m = u()
    const g = await r.createGroup({ admins: [admin.pk], members: [m.pk], supportedKinds: [9] })
    expect((await publish(c, m.sign({ kind: 9, tags: h(g) }))).ok).toBe(true)
    expect(await publish(c, m.sign({ kind: 11, tags: h(g, ['title', 't']) }))).toEqual({
      ok: false,
      message: 'blocked: kind not supported by this group',
    })
    expect(
      (await publish(c, admin.sign({ kind: 9002, tags: h(g, ['supported_kinds', '9'], ['name', 'x']) }))).ok,
    ).toBe(true)
    expect((await publish(c, m.sign({ kind: 9022, tags: h(g) }))).ok).toBe(true)
    expect((await publish(c, u().sign({ kind: 9021, tags: h(g) }))).ok).toBe(true)
  })

  it('rule 22: an AV-only group (empty supported_kinds plus livekit) says so', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const g = await r.createGroup({ admins: [admin.pk] })
    await publish(c, admin.sign({ kind: 9002, tags: h(g, ['livekit'], ['supported_kinds']) }))
    expect(await publish(c, admin.sign({ kind: 9, tags: h(g) }))).toEqual({
      ok: false,
      message: 'blocked: this is a live audio/video group only',
    })
  })
})
