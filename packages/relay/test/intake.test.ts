import { bytesToHex } from '@noble/hashes/utils.js'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, live, publish, relay, T0, TestClock, user } from './helpers'

async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const clock = new TestClock(T0)
  const r = await relay({ clock: clock.now, previousMinimum: 0, ...opts })
  const c = await connect(r.url)
  return { r, c, clock, u: () => user(clock) }
}

describe('B. event intake (strict profile)', () => {
  it('rule 4: events signed by the relay key bypass the rules (old moderation, closed group, no membership)', async () => {
    const sk = generateSecretKey()
    const { r, c, u } = await setup({ secretKey: bytesToHex(sk) })
    const g = await r.createGroup({ closed: true, restricted: true })
    const target = u()
    const put = finalizeEvent(
      { kind: 9000, created_at: T0 - 3600, content: '', tags: h(g, ['p', target.pk]) },
      sk,
    )
    expect(await publish(c, put)).toEqual({ ok: true, message: '' })
    expect(r.state(g)?.members).toContain(target.pk)
  })

  it('rule 5: client-published 39000–39005 are refused', async () => {
    const { c, u } = await setup()
    for (const kind of [39000, 39001, 39002, 39003, 39004, 39005]) {
      expect(await publish(c, u().sign({ kind, tags: [['d', 'x']] }))).toEqual({
        ok: false,
        message: 'restricted: group metadata events are generated internally',
      })
    }
  })

  it('rule 6: events without h are refused, except the listed non-group kinds', async () => {
    const { c, u } = await setup()
    expect(await publish(c, u().sign({ kind: 9, content: 'hi' }))).toEqual({
      ok: false,
      message: 'blocked: missing group (`h`) tag',
    })
    const list = u().sign({ kind: 10009, tags: [['group', 'x', 'wss://r.example']] })
    expect(await publish(c, list)).toEqual({ ok: true, message: '' })
  })

  it('rule 7: a 9007 creates the group with all flags false, the creator as admin; a second one is a duplicate', async () => {
    const { r, c, u } = await setup()
    const alice = u()
    expect(
      await publish(c, alice.sign({ kind: 9007, tags: h('pizza', ['name', 'ignored'], ['closed']) })),
    ).toEqual({
      ok: true,
      message: '',
    })
    const s = r.state('pizza')
    expect(s).toMatchObject({
      private: false,
      closed: false,
      restricted: false,
      hidden: false,
      livekit: false,
    })
    expect(s?.name).toBeUndefined()
    expect(s?.admins).toEqual([{ pubkey: alice.pk, roles: ['admin'] }])
    expect(await publish(c, u().sign({ kind: 9007, tags: h('pizza') }))).toEqual({
      ok: false,
      message: 'duplicate: group already exists',
    })
  })

  it('rule 7: the id of a deleted group cannot be created again', async () => {
    const { c, u } = await setup()
    const alice = u()
    await publish(c, alice.sign({ kind: 9007, tags: h('gone') }))
    expect((await publish(c, alice.sign({ kind: 9008, tags: h('gone') }))).ok).toBe(true)
    expect(await publish(c, alice.sign({ kind: 9007, tags: h('gone'), content: 'again' }))).toEqual({
      ok: false,
      message: 'duplicate: a deleted group with this id exists',
    })
  })

  it("rule 8: any other kind for an unknown id is refused with group '<id>' doesn't exist", async () => {
    const { c, u } = await setup()
    expect(await publish(c, u().sign({ kind: 9, tags: h('nope') }))).toEqual({
      ok: false,
      message: "blocked: group 'nope' doesn't exist",
    })
    expect(await publish(c, u().sign({ kind: 9021, tags: h('nope') }))).toMatchObject({ ok: false })
  })

  it('rule 9: moderation events older than 60 s are refused', async () => {
    const { r, c, clock, u } = await setup()
    const admin = u()
    const g = await r.createGroup({ admins: [admin.pk] })
    const stale = admin.sign({ kind: 9002, created_at: clock.now() - 61, tags: h(g, ['name', 'x']) })
    expect(await publish(c, stale)).toEqual({
      ok: false,
      message: 'blocked: moderation action is too old (older than 1 minute ago)',
    })
    const fresh = admin.sign({ kind: 9002, created_at: clock.now() - 60, tags: h(g, ['name', 'x']) })
    expect((await publish(c, fresh)).ok).toBe(true)
  })

  it('rule 10: late publication and far-future events are refused; lateWindow 0 (import mode) turns it off', async () => {
    const { r, c, clock, u } = await setup()
    const g = await r.createGroup({})
    const a = u()
    expect(await publish(c, a.sign({ kind: 9, created_at: clock.now() - 601, tags: h(g) }))).toEqual({
      ok: false,
      message: 'blocked: event too old',
    })
    expect(await publish(c, a.sign({ kind: 9, created_at: clock.now() + 61, tags: h(g) }))).toEqual({
      ok: false,
      message: 'blocked: event too much in the future',
    })
    expect((await publish(c, a.sign({ kind: 9, created_at: clock.now() - 600, tags: h(g) }))).ok).toBe(true)
    const imp = await setup({ lateWindow: 0 })
    const g2 = await imp.r.createGroup({})
    expect((await publish(imp.c, a.sign({ kind: 9, created_at: T0 - 86_400 * 30, tags: h(g2) }))).ok).toBe(
      true,
    )
    const narrow = await setup({ lateWindow: 30 })
    const g3 = await narrow.r.createGroup({})
    expect((await publish(narrow.c, a.sign({ kind: 9, created_at: T0 - 31, tags: h(g3) }))).message).toBe(
      'blocked: event too old',
    )
  })

  it('rule 11a: a member asking to join gets duplicate: already a member (checked first, even when closed)', async () => {
    const { r, c, u } = await setup()
    const m = u()
    const g = await r.createGroup({ closed: true, members: [m.pk] })
    expect(await publish(c, m.sign({ kind: 9021, tags: h(g) }))).toEqual({
      ok: false,
      message: 'duplicate: already a member',
    })
  })

  it('rule 11b: a user removed by a moderator cannot re-join; one who left can', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const kicked = u()
    const leaver = u()
    const g = await r.createGroup({ admins: [admin.pk], members: [kicked.pk, leaver.pk] })
    expect((await publish(c, admin.sign({ kind: 9001, tags: h(g, ['p', kicked.pk]) }))).ok).toBe(true)
    expect(await publish(c, kicked.sign({ kind: 9021, tags: h(g) }))).toEqual({
      ok: false,
      message: 'blocked: you were removed',
    })
    expect((await publish(c, leaver.sign({ kind: 9022, tags: h(g) }))).ok).toBe(true)
    expect((await publish(c, leaver.sign({ kind: 9021, tags: h(g) }))).ok).toBe(true)
    expect(r.state(g)?.members).toContain(leaver.pk)
  })

  it('rule 11c: a closed group keeps a join without a code for its admins, and refuses a wrong code', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({ closed: true })
    await r.createInvite(g, 'right')
    const asking = u()
    expect(await publish(c, asking.sign({ kind: 9021, tags: h(g) }))).toEqual({ ok: true, message: '' })
    expect(r.state(g)?.pending).toEqual([asking.pk])
    expect(r.state(g)?.members).toEqual([])
    // A code that is not (or no longer) outstanding is named as such, not as a missing one.
    expect(await publish(c, u().sign({ kind: 9021, tags: h(g, ['code', 'wrong']) }))).toEqual({
      ok: false,
      message: 'restricted: invalid or already used invite code',
    })
  })

  it('rule 11c: strict keeps the fiatjaf text for a wrong code, as pyramid answers it', async () => {
    const { r, c, u } = await setup({ profile: 'strict' })
    const g = await r.createGroup({ closed: true })
    await r.createInvite(g, 'right')
    for (const tags of [h(g), h(g, ['code', 'wrong'])]) {
      expect(await publish(c, u().sign({ kind: 9021, tags }))).toEqual({
        ok: false,
        message: 'restricted: group is closed, you need an invite code',
      })
    }
  })

  it('rule 11d: an open group accepts a join with a relay-signed 9000 carrying h and p (and no code)', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({})
    const j = u()
    const sub = live(c, [{ kinds: [9000], '#p': [j.pk] }])
    await sub.ready
    expect(await publish(c, j.sign({ kind: 9021, tags: h(g), content: 'hi' }))).toEqual({
      ok: true,
      message: '',
    })
    const put = await sub.next()
    expect(put.pubkey).toBe(r.pubkey)
    expect(put.tags).toEqual([
      ['h', g],
      ['p', j.pk],
    ])
    expect(r.state(g)?.members).toContain(j.pk)
    // The request is kept, for the group's staff and its author (join-requests.test.ts).
    const stored = await fetch(await connect(r.url, j), [{ kinds: [9021], '#h': [g] }])
    expect(stored.events.map((e) => e.pubkey)).toEqual([j.pk])
  })

  it('rule 11d: a valid code admits the user into a closed group once; the 9000 names the code', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({ closed: true })
    const code = await r.createInvite(g)
    expect(r.state(g)?.invites).toEqual([code])
    const first = u()
    const sub = live(c, [{ kinds: [9000], '#p': [first.pk] }])
    await sub.ready
    expect((await publish(c, first.sign({ kind: 9021, tags: h(g, ['code', code]) }))).ok).toBe(true)
    expect((await sub.next()).tags).toEqual([
      ['h', g],
      ['p', first.pk],
      ['code', code],
    ])
    expect(r.state(g)?.invites).toEqual([])
    expect(await publish(c, u().sign({ kind: 9021, tags: h(g, ['code', code]) }))).toEqual({
      ok: false,
      message: 'restricted: invalid or already used invite code',
    })
  })

  it('rule 12: a leave issues a relay-signed 9001 with self-removal; a non-member gets duplicate:', async () => {
    const { r, c, u } = await setup()
    const m = u()
    const g = await r.createGroup({ members: [m.pk] })
    const sub = live(c, [{ kinds: [9001], '#h': [g] }])
    await sub.ready
    expect((await publish(c, m.sign({ kind: 9022, tags: h(g) }))).ok).toBe(true)
    const removal = await sub.next()
    expect(removal.pubkey).toBe(r.pubkey)
    expect(removal.tags).toEqual([['h', g], ['p', m.pk], ['self-removal']])
    expect(r.state(g)?.members).not.toContain(m.pk)
    expect(await publish(c, m.sign({ kind: 9022, tags: h(g), content: 'again' }))).toEqual({
      ok: false,
      message: 'duplicate: not a member of this group',
    })
  })

  it('rule 13: restricted and closed groups take writes from members only; open ones from anyone', async () => {
    const { r, c, u } = await setup()
    const m = u()
    const stranger = u()
    const restricted = await r.createGroup({ restricted: true, members: [m.pk] })
    const closed = await r.createGroup({ closed: true, members: [m.pk] })
    const open = await r.createGroup({})
    for (const g of [restricted, closed]) {
      expect(await publish(c, stranger.sign({ kind: 9, tags: h(g) }))).toEqual({
        ok: false,
        message: 'blocked: unknown member',
      })
      expect((await publish(c, m.sign({ kind: 9, tags: h(g) }))).ok).toBe(true)
    }
    expect((await publish(c, stranger.sign({ kind: 9, tags: h(open) }))).ok).toBe(true)
  })

  it('rule 14: an event deleted by a moderator cannot be published again', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const m = u()
    const g = await r.createGroup({ admins: [admin.pk], members: [m.pk] })
    const msg = m.sign({ kind: 9, tags: h(g), content: 'spam' })
    await publish(c, msg)
    expect((await publish(c, admin.sign({ kind: 9005, tags: h(g, ['e', msg.id]) }))).ok).toBe(true)
    expect((await fetch(c, [{ ids: [msg.id] }])).events).toEqual([])
    expect(await publish(c, msg)).toEqual({ ok: false, message: 'blocked: this was deleted' })
  })
})
