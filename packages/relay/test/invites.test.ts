/**
 * Invite codes with terms: a 9009's `uses`, `reusable` and NIP-40 `expiration` tags. A code is
 * honoured exactly as many times as it says, never after its expiry (also when joins race), and
 * neither the 9009 nor a relay 9000 shows a code still good for others to anyone but the staff.
 */
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, live, publish, relay, T0, TestClock, type User, user } from './helpers'

async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const clock = new TestClock(T0)
  const r = await relay({ clock: clock.now, ...opts })
  const admin = user(clock)
  const member = user(clock)
  const g = await r.createGroup({ name: 'Club', closed: true, admins: [admin.pk], members: [member.pk] })
  const c = await connect(r.url)
  return { r, c, g, clock, admin, member, u: () => user(clock) }
}

const join = (u: User, g: string, code: string) => u.sign({ kind: 9021, tags: h(g, ['code', code]) })

describe('invite codes with a use count and an expiry', () => {
  it('a code with ["uses", "3"] admits three people, one after another, then no one', async () => {
    const { r, c, g, admin, u } = await setup()
    const invite = admin.sign({ kind: 9009, tags: h(g, ['code', 'three'], ['uses', '3']) })
    expect(await publish(c, invite)).toEqual({ ok: true, message: '' })
    expect(r.state(g)?.inviteTerms).toEqual({ three: { left: 3 } })
    const people = [u(), u(), u(), u()]
    const results = []
    for (const p of people) results.push(await publish(c, join(p, g, 'three')))
    expect(results.map((x) => x.ok)).toEqual([true, true, true, false])
    expect(results[3]?.message).toBe('restricted: invalid or already used invite code')
    for (const p of people.slice(0, 3)) expect(r.state(g)?.members).toContain(p.pk)
    expect(r.state(g)?.members).not.toContain(people[3]?.pk)
    expect(r.state(g)?.invites).toEqual([])
    expect(r.state(g)?.inviteTerms).toEqual({})
  })

  it('joins racing on many sockets at once: exactly N are admitted', async () => {
    const { r, c, g, admin, u } = await setup()
    expect(
      (await publish(c, admin.sign({ kind: 9009, tags: h(g, ['code', 'five'], ['uses', '5']) }))).ok,
    ).toBe(true)
    const people = Array.from({ length: 14 }, u)
    const sockets = await Promise.all(people.map(() => connect(r.url)))
    const results = await Promise.all(people.map((p, i) => publish(sockets[i]!, join(p, g, 'five'))))
    const admitted = people.filter((_, i) => results[i]?.ok).map((p) => p.pk)
    expect(admitted).toHaveLength(5)
    expect(results.filter((x) => !x.ok).map((x) => x.message)).toEqual(
      Array(9).fill('restricted: invalid or already used invite code'),
    )
    const members = r.state(g)?.members ?? []
    for (const p of people) expect(members.includes(p.pk)).toBe(admitted.includes(p.pk))
    expect(r.state(g)?.invites).toEqual([])
  })

  it('a code is honoured until its NIP-40 expiration and refused from then on', async () => {
    const { r, c, g, clock, admin, u } = await setup()
    const until = T0 + 3600
    const invite = admin.sign({
      kind: 9009,
      tags: h(g, ['code', 'hour'], ['uses', '10'], ['expiration', `${until}`]),
    })
    expect((await publish(c, invite)).ok).toBe(true)
    expect(r.state(g)?.inviteTerms).toEqual({ hour: { left: 10, expires: until } })
    clock.advance(3599)
    const early = u()
    expect((await publish(c, join(early, g, 'hour'))).ok).toBe(true)
    clock.advance(1)
    const late = u()
    expect(await publish(c, join(late, g, 'hour'))).toEqual({
      ok: false,
      message: 'restricted: this invite code has expired',
    })
    expect(r.state(g)?.members).toContain(early.pk)
    expect(r.state(g)?.members).not.toContain(late.pk)
    // Racing joins in the last second: as many as there are uses; in the next one, none.
    clock.t = T0
    const again = admin.sign({
      kind: 9009,
      tags: h(g, ['code', 'race'], ['uses', '3'], ['expiration', `${T0 + 10}`]),
    })
    expect((await publish(c, again)).ok).toBe(true)
    const race = async (n: number) => {
      const racers = Array.from({ length: n }, u)
      const sockets = await Promise.all(racers.map(() => connect(r.url)))
      return Promise.all(racers.map((p, i) => publish(sockets[i]!, join(p, g, 'race'))))
    }
    clock.t = T0 + 9
    expect((await race(2)).map((x) => x.ok)).toEqual([true, true])
    clock.t = T0 + 10
    expect((await race(3)).map((x) => x.message)).toEqual(
      Array(3).fill('restricted: this invite code has expired'),
    )
    expect(r.state(g)?.inviteTerms.race).toEqual({ left: 1, expires: T0 + 10 })
  })

  it('refuses a 9009 whose terms are malformed or already expired', async () => {
    const { c, g, admin } = await setup()
    const bad = [
      [['uses', '0'], "error: invalid moderation action: 'uses' must be a whole number from 1 to 1000000"],
      [['uses', '2.5'], "error: invalid moderation action: 'uses' must be a whole number from 1 to 1000000"],
      [
        ['uses', '1000001'],
        "error: invalid moderation action: 'uses' must be a whole number from 1 to 1000000",
      ],
      [['expiration', 'soon'], "error: invalid moderation action: 'expiration' must be a unix timestamp"],
      [['expiration', `${T0}`], "error: invalid moderation action: 'expiration' is in the past"],
    ] as const
    for (const [tag, message] of bad)
      expect(await publish(c, admin.sign({ kind: 9009, tags: h(g, ['code', 'x'], [...tag]) }))).toEqual({
        ok: false,
        message,
      })
  })

  it('["reusable"] admits any number of people; without terms a code stays single-use', async () => {
    const { r, c, g, admin, u } = await setup()
    expect(
      (await publish(c, admin.sign({ kind: 9009, tags: h(g, ['code', 'open-door'], ['reusable']) }))).ok,
    ).toBe(true)
    for (let i = 0; i < 6; i++) expect((await publish(c, join(u(), g, 'open-door'))).ok).toBe(true)
    expect(r.state(g)?.inviteTerms).toEqual({ 'open-door': {} })
    expect((await publish(c, admin.sign({ kind: 9009, tags: h(g, ['code', 'once']) }))).ok).toBe(true)
    expect((await publish(c, join(u(), g, 'once'))).ok).toBe(true)
    expect((await publish(c, join(u(), g, 'once'))).ok).toBe(false)
  })

  it('createInvite takes the same terms', async () => {
    const { r, c, g, u } = await setup()
    const code = await r.createInvite(g, undefined, { uses: 2, expiresAt: T0 + 60 })
    expect(r.state(g)?.inviteTerms).toEqual({ [code]: { left: 2, expires: T0 + 60 } })
    expect((await publish(c, join(u(), g, code))).ok).toBe(true)
    expect((await publish(c, join(u(), g, code))).ok).toBe(true)
    expect((await publish(c, join(u(), g, code))).ok).toBe(false)
    await expect(r.createInvite(g, undefined, { uses: 0 })).rejects.toMatchObject({ code: 'invalid-invite' })
    await expect(r.createInvite(g, undefined, { expiresAt: T0 })).rejects.toMatchObject({
      code: 'invalid-invite',
    })
  })

  it('a code still good for others is shown to the staff only: the 9009 and the join 9000s keep it from members and strangers', async () => {
    const { r, c, g, admin, member, u } = await setup()
    const asMember = await connect(r.url, member)
    const watch = live(asMember, [{ '#h': [g] }])
    await watch.ready
    const invite = admin.sign({ kind: 9009, tags: h(g, ['code', 'secret-door'], ['uses', '2']) })
    expect((await publish(c, invite)).ok).toBe(true)
    const first = u()
    expect((await publish(c, join(first, g, 'secret-door'))).ok).toBe(true)
    const put = await watch.next((e) => e.kind === 9000 && e.tags.some((t) => t[1] === first.pk))
    expect(put.tags).toEqual([
      ['h', g],
      ['p', first.pk],
    ])
    expect(watch.events.map((e) => e.id)).not.toContain(invite.id)
    for (const reader of [asMember, c]) {
      const seen = await fetch(reader, [{ '#h': [g] }])
      expect(JSON.stringify(seen.events)).not.toContain('secret-door')
      expect((await fetch(reader, [{ ids: [invite.id] }])).events).toEqual([])
    }
    const asAdmin = await connect(r.url, admin)
    expect((await fetch(asAdmin, [{ kinds: [9009], '#h': [g] }])).events.map((e) => e.id)).toEqual([
      invite.id,
    ])
    // Its last use may name it (pyramid's 9000 does): it admits no one after that.
    const last = u()
    expect((await publish(c, join(last, g, 'secret-door'))).ok).toBe(true)
    const lastPut = await watch.next((e) => e.kind === 9000 && e.tags.some((t) => t[1] === last.pk))
    expect(lastPut.tags).toContainEqual(['code', 'secret-door'])
  })

  it('keeps each family’s codes: groups_relay takes ["reusable"] only, pyramid single use only', async () => {
    for (const [profile, reusable, counted] of [
      ['groups_relay', 6, 1],
      ['pyramid', 1, 1],
    ] as const) {
      const { r, c, g, admin, u } = await setup({ profile, previousMinimum: 0 })
      await publish(c, admin.sign({ kind: 9009, tags: h(g, ['code', 'r'], ['reusable']) }))
      await publish(c, admin.sign({ kind: 9009, tags: h(g, ['code', 'n'], ['uses', '6']) }))
      const admitted = async (code: string) => {
        const before = r.state(g)?.members.length ?? 0
        for (let i = 0; i < 6; i++) await publish(c, join(u(), g, code))
        return (r.state(g)?.members.length ?? 0) - before
      }
      expect([profile, await admitted('r'), await admitted('n')]).toEqual([profile, reusable, counted])
    }
  })
})
