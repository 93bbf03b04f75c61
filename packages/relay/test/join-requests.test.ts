/**
 * A join request to a closed group without a code: the default profile keeps it for the group's
 * admins (OK true, the requester pending), `strict` refuses it. Requests are shown to the group's
 * staff and their author only, by REQ, search and live.
 */
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, live, publish, relay, T0, TestClock, user } from './helpers'

async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const clock = new TestClock(T0)
  const r = await relay({ clock: clock.now, ...opts })
  const admin = user(clock)
  const moderator = user(clock)
  const member = user(clock)
  const g = await r.createGroup({ name: 'Club', closed: true, admins: [admin.pk], members: [member.pk] })
  // A moderator is staff too (roles by the relay: a relay-signed 9000 with the role).
  const c = await connect(r.url)
  const add = await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', moderator.pk, 'moderator']) }))
  expect(add.ok).toBe(true)
  return { r, c, g, clock, admin, moderator, member, u: () => user(clock) }
}

describe('a closed group keeps a join request without a code for its admins', () => {
  it('roost: OK true, the requester pending; shown to admins and moderators, never to members or strangers', async () => {
    const { r, g, admin, moderator, member, u } = await setup()
    const asAdmin = await connect(r.url, admin)
    const asModerator = await connect(r.url, moderator)
    const asMember = await connect(r.url, member)
    const stranger = await connect(r.url)
    const watchers = {
      admin: live(asAdmin, [{ '#h': [g] }]),
      member: live(asMember, [{ '#h': [g] }]),
      stranger: live(stranger, [{ '#h': [g] }]),
    }
    await Promise.all(Object.values(watchers).map((w) => w.ready))

    const bob = u()
    const asBob = await connect(r.url, bob)
    const request = bob.sign({ kind: 9021, tags: h(g), content: 'please let me in, I bake bread' })
    expect(await publish(asBob, request)).toEqual({ ok: true, message: '' })
    expect(r.state(g)?.pending).toEqual([bob.pk])
    expect(r.state(g)?.members).not.toContain(bob.pk)

    // Live: the admin hears it; a message sent after it reaches the others first, without it.
    expect((await watchers.admin.next((e) => e.id === request.id)).content).toMatch(/bake bread/)
    const after = member.sign({ kind: 9, tags: h(g), content: 'later' })
    expect((await publish(asMember, after)).ok).toBe(true)
    for (const w of [watchers.member, watchers.stranger]) {
      await w.next((e) => e.id === after.id)
      expect(w.events.map((e) => e.id)).not.toContain(request.id)
    }

    // Stored: by kind, by group, by id, by search.
    const byKind = { kinds: [9021], '#h': [g] }
    for (const staff of [asAdmin, asModerator]) {
      expect((await fetch(staff, [byKind])).events.map((e) => e.id)).toEqual([request.id])
      expect((await fetch(staff, [{ search: 'bread' }])).events.map((e) => e.id)).toEqual([request.id])
    }
    expect((await fetch(asBob, [byKind])).events.map((e) => e.id)).toEqual([request.id])
    for (const reader of [asMember, stranger]) {
      for (const f of [{ '#h': [g] }, { ids: [request.id] }, { search: 'bread' }, { authors: [bob.pk] }]) {
        const got = await fetch(reader, [f])
        expect(got.events.map((e) => e.id)).not.toContain(request.id)
      }
    }
    expect((await fetch(asMember, [byKind])).events).toEqual([])
    // Asked for by kind without AUTH: the relay says who may read them, and asks who is there.
    expect((await fetch(stranger, [byKind])).closed).toBe(
      "auth-required: a group's join requests, invite codes and reports are shown to its admins only",
    )

    // The admin approves: the requester is a member, and no longer pending.
    expect((await publish(asAdmin, admin.sign({ kind: 9000, tags: h(g, ['p', bob.pk]) }))).ok).toBe(true)
    expect(r.state(g)?.members).toContain(bob.pk)
    expect(r.state(g)?.pending).toEqual([])
  })

  it('roost: a wrong code is refused as one (the user asks for a new code), not queued', async () => {
    const { r, g, u } = await setup()
    const c = await connect(r.url)
    expect(await publish(c, u().sign({ kind: 9021, tags: h(g, ['code', 'nope']) }))).toEqual({
      ok: false,
      message: 'restricted: invalid or already used invite code',
    })
    expect(r.state(g)?.pending).toEqual([])
  })

  it('strict: a join without a code is still refused, and nothing is kept', async () => {
    const { r, g, admin, u } = await setup({ profile: 'strict', previousMinimum: 0 })
    const c = await connect(r.url)
    const request = u().sign({ kind: 9021, tags: h(g) })
    expect(await publish(c, request)).toEqual({
      ok: false,
      message: 'restricted: group is closed, you need an invite code',
    })
    expect(r.state(g)?.pending).toEqual([])
    const asAdmin = await connect(r.url, admin)
    expect((await fetch(asAdmin, [{ kinds: [9021], '#h': [g] }])).events).toEqual([])
  })

  it('a flood of requests from fresh keys stops at maxPendingJoins until the admins answer some', async () => {
    const { r, g, admin, u } = await setup({ limits: { maxPendingJoins: 2 } })
    const c = await connect(r.url)
    const [a, b, flood] = [u(), u(), u()]
    for (const p of [a, b]) expect((await publish(c, p.sign({ kind: 9021, tags: h(g) }))).ok).toBe(true)
    expect(await publish(c, flood.sign({ kind: 9021, tags: h(g) }))).toEqual({
      ok: false,
      message: "blocked: too many join requests are waiting for this group's admins, try again later",
    })
    // Asking again while waiting is no new request; a code still admits at once.
    expect((await publish(c, a.sign({ kind: 9021, tags: h(g), content: 'again' }))).ok).toBe(true)
    const code = await r.createInvite(g)
    expect((await publish(c, u().sign({ kind: 9021, tags: h(g, ['code', code]) }))).ok).toBe(true)
    expect(r.state(g)?.pending).toEqual([a.pk, b.pk])
    // An admin lets one in: there is room again.
    expect((await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', a.pk]) }))).ok).toBe(true)
    expect((await publish(c, flood.sign({ kind: 9021, tags: h(g), content: 'later' }))).ok).toBe(true)
    expect(r.state(g)?.pending).toEqual([b.pk, flood.pk])
    const nip11 = { headers: { Accept: 'application/nostr+json' } }
    const info = await (await globalThis.fetch(r.url.replace('ws://', 'http://'), nip11)).json()
    expect(info.limitation.max_pending_joins).toBe(2)
  })

  it('a request to an open group is answered at once and stays out of members’ sight too', async () => {
    const clock = new TestClock(T0)
    const r = await relay({ clock: clock.now })
    const member = user(clock)
    const g = await r.createGroup({ name: 'Open', members: [member.pk] })
    const joiner = user(clock)
    const c = await connect(r.url)
    expect((await publish(c, joiner.sign({ kind: 9021, tags: h(g), content: 'hi' }))).ok).toBe(true)
    expect(r.state(g)?.members).toContain(joiner.pk)
    const asMember = await connect(r.url, member)
    const seen = await fetch(asMember, [{ '#h': [g] }])
    expect(seen.events.some((e) => e.kind === 9000 && e.tags.some((t) => t[1] === joiner.pk))).toBe(true)
    expect(seen.events.filter((e) => e.kind === 9021)).toEqual([])
  })
})
