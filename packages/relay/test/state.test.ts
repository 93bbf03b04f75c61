import type { NostrEvent } from 'nostr-tools'
import { verifyEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, live, publish, relay, T0, TestClock, user } from './helpers'

async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const clock = new TestClock(T0)
  const r = await relay({ clock: clock.now, previousMinimum: 0, ...opts })
  const c = await connect(r.url)
  return { r, c, clock, u: () => user(clock) }
}

const stateOf = async (c: Awaited<ReturnType<typeof connect>>, id: string, relayKey: string) => {
  const { events } = await fetch(c, [
    { kinds: [39000, 39001, 39002, 39003, 39005], '#d': [id], authors: [relayKey] },
  ])
  const by = new Map<number, NostrEvent>()
  for (const e of events) by.set(e.kind, e)
  return by
}

describe('C. relay-signed state', () => {
  it('rule 24: a 9007 emits 39000–39003 and a relay-signed 9000 naming the creator admin, all broadcast live', async () => {
    const { r, c, u } = await setup()
    const alice = u()
    const sub = live(c, [
      { kinds: [39000, 39001, 39002, 39003], '#d': ['new'] },
      { kinds: [9000], '#h': ['new'] },
    ])
    await sub.ready
    await publish(c, alice.sign({ kind: 9007, tags: h('new') }))
    for (const kind of [39000, 39001, 39002, 39003, 9000]) await sub.next((e) => e.kind === kind)
    const put = sub.events.find((e) => e.kind === 9000)!
    expect(put.pubkey).toBe(r.pubkey)
    expect(put.tags).toEqual([
      ['h', 'new'],
      ['p', alice.pk, 'admin'],
    ])
    for (const e of sub.events) {
      expect(e.pubkey).toBe(r.pubkey)
      expect(verifyEvent(e)).toBe(true)
    }
  })

  it('rule 25: each change re-signs only the affected state events with strictly increasing created_at', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const g = await r.createGroup({ name: 'A', admins: [admin.pk] })
    const before = await stateOf(c, g, r.pubkey)
    expect(await publish(c, admin.sign({ kind: 9002, tags: h(g, ['name', 'B']) }))).toMatchObject({
      ok: true,
    })
    const after = await stateOf(c, g, r.pubkey)
    expect(after.get(39000)!.created_at).toBeGreaterThan(before.get(39000)!.created_at)
    expect(after.get(39000)!.tags).toContainEqual(['name', 'B'])
    expect(after.get(39002)!.id).toBe(before.get(39002)!.id)
    expect(after.get(39003)!.id).toBe(before.get(39003)!.id)
    await publish(c, admin.sign({ kind: 9002, tags: h(g, ['name', 'C']), content: '2' }))
    const third = await stateOf(c, g, r.pubkey)
    expect(third.get(39000)!.created_at).toBe(after.get(39000)!.created_at + 1)
    const { events } = await fetch(c, [{ kinds: [39000], '#d': [g] }])
    expect(events).toHaveLength(1)
  })

  it('rule 26: the 39000 tag layout is d, name, picture, about, positive flags, supported_kinds; content empty', async () => {
    const { r, c, u } = await setup({
      livekit: { url: 'wss://livekit.example', apiKey: 'APIroost', apiSecret: 'a-livekit-secret-for-tests' },
    })
    const admin = u()
    const g = await r.createGroup({ admins: [admin.pk] })
    await publish(
      c,
      admin.sign({
        kind: 9002,
        tags: h(
          g,
          ['name', 'Pizza'],
          ['picture', 'https://p.example/p.png'],
          ['banner', 'https://p.example/b.png'],
          ['about', 'cheese'],
          ['livekit'],
          ['closed'],
          ['hidden'],
          ['restricted'],
          ['private'],
          ['supported_kinds', '9', '11'],
          ['public'],
          ['open'],
        ),
      }),
    )
    const stranger = await stateOf(c, g, r.pubkey)
    expect(stranger.size).toBe(0)
    const meta = (await stateOf(await connect(r.url, admin), g, r.pubkey)).get(39000)!
    expect(meta.content).toBe('')
    expect(meta.tags).toEqual([
      ['d', g],
      ['name', 'Pizza'],
      ['picture', 'https://p.example/p.png'],
      ['banner', 'https://p.example/b.png'],
      ['about', 'cheese'],
      ['private'],
      ['restricted'],
      ['hidden'],
      ['closed'],
      ['livekit'],
      ['supported_kinds', '9', '11'],
    ])
  })

  it('rule 26: 9002 is PUT: omitted fields and flags are cleared, legacy negations are no-ops', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const g = await r.createGroup({
      name: 'Old',
      about: 'x',
      private: true,
      closed: true,
      admins: [admin.pk],
    })
    await publish(c, admin.sign({ kind: 9002, tags: h(g, ['name', 'New'], ['open']) }))
    expect(r.state(g)).toMatchObject({ name: 'New', private: false, closed: false })
    expect(r.state(g)?.about).toBeUndefined()
    expect((await stateOf(c, g, r.pubkey)).get(39000)!.tags).toEqual([
      ['d', g],
      ['name', 'New'],
    ])
  })

  it('rule 27: 39001 lists role holders with lowercase roles, 39002 every member, 39003 the roles', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const mod = u()
    const plain = u()
    const g = await r.createGroup({ admins: [admin.pk], members: [plain.pk] })
    await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', mod.pk, 'Moderator', 'gardener']) }))
    const s = await stateOf(c, g, r.pubkey)
    const p = (e: NostrEvent) => e.tags.filter((t) => t[0] === 'p')
    expect(p(s.get(39001)!)).toEqual(
      expect.arrayContaining([
        ['p', admin.pk, 'admin'],
        ['p', mod.pk, 'moderator', 'gardener'],
      ]),
    )
    expect(p(s.get(39001)!)).toHaveLength(2)
    expect(
      p(s.get(39002)!)
        .map((t) => t[1])
        .sort(),
    ).toEqual([admin.pk, mod.pk, plain.pk].sort())
    expect(
      s
        .get(39003)!
        .tags.filter((t) => t[0] === 'role')
        .map((t) => t[1]),
    ).toEqual(['admin', 'moderator'])
  })

  it('rule 27: 9010 replaces the ordered pin list and regenerates 39005', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const g = await r.createGroup({ admins: [admin.pk] })
    const m1 = admin.sign({ kind: 9, tags: h(g), content: '1' })
    const m2 = admin.sign({ kind: 9, tags: h(g), content: '2' })
    await publish(c, m1)
    await publish(c, m2)
    const addr = `30023:${admin.pk}:post`
    await publish(c, admin.sign({ kind: 9010, tags: h(g, ['e', m2.id], ['a', addr], ['e', m1.id]) }))
    expect((await stateOf(c, g, r.pubkey)).get(39005)!.tags).toEqual([
      ['d', g],
      ['e', m2.id],
      ['a', addr],
      ['e', m1.id],
    ])
    await publish(c, admin.sign({ kind: 9010, tags: h(g, ['e', m1.id]), content: 'x' }))
    expect((await stateOf(c, g, r.pubkey)).get(39005)!.tags).toEqual([
      ['d', g],
      ['e', m1.id],
    ])
    expect(r.state(g)?.pins).toEqual([['e', m1.id]])
  })
})
