/**
 * The default profile (`roost`) is open to every client: what third-party NIP-29 libraries send by
 * default is accepted, and what they read to preview a group is served.
 */
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, RawClient, relay, TestClock, user } from './helpers'

async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const clock = new TestClock()
  const r = await relay({ clock: clock.now, ...opts })
  const c = await connect(r.url)
  return { r, c, u: () => user(clock) }
}

describe('the default profile is open to every client', () => {
  it('default profile: a kind 9 and a 9002 without previous are accepted; strict (opt-in) still asks for 3', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const g = await r.createGroup({ name: 'Open', admins: [admin.pk] })
    for (let i = 0; i < 4; i++) await publish(c, u().sign({ kind: 9, tags: h(g), content: `m${i}` }))
    expect(await publish(c, u().sign({ kind: 9, tags: h(g), content: 'no refs' }))).toEqual({
      ok: true,
      message: '',
    })
    expect((await publish(c, admin.sign({ kind: 9002, tags: h(g, ['name', 'Renamed']) }))).ok).toBe(true)
    // present references are still checked
    expect((await publish(c, u().sign({ kind: 9, tags: h(g, ['previous', 'deadbeef']) }))).message).toBe(
      "blocked: previous id 'deadbeef' wasn't found in this group",
    )

    const strict = await setup({ profile: 'strict' })
    const s = await strict.r.createGroup({})
    expect((await publish(strict.c, strict.u().sign({ kind: 9, tags: h(s) }))).message).toMatch(
      /^blocked: at least \d previous references are required, got 0$/,
    )
  })

  it('previous: prefixes of one event count once, and the sender’s own events do not count toward the minimum', async () => {
    const { r, c, u } = await setup({ profile: 'strict' })
    const g = await r.createGroup({})
    const me = u()
    const others = [u(), u(), u()]
    const seen = (await fetch(c, [{ '#h': [g] }])).events.map((e) => e.id.slice(0, 8))
    const theirs = []
    for (const o of others) {
      const e = o.sign({ kind: 9, tags: h(g, ['previous', ...seen]), content: 'x' })
      expect((await publish(c, e)).ok).toBe(true)
      seen.push(e.id.slice(0, 8))
      theirs.push(e)
    }
    const [first] = theirs
    const id = first?.id ?? ''
    const prefixes = ['previous', id.slice(0, 8), id.slice(0, 9), id.slice(0, 10)]
    expect((await publish(c, me.sign({ kind: 9, tags: h(g, prefixes), content: 'a' }))).message).toBe(
      'blocked: at least 3 previous references are required, got 1',
    )
    const own = []
    for (let i = 0; i < 3; i++) {
      const refs = ['previous', ...theirs.map((e) => e.id.slice(0, 8))]
      const e = me.sign({ kind: 9, tags: h(g, refs), content: `own${i}` })
      expect((await publish(c, e)).ok).toBe(true)
      own.push(e)
    }
    const mixed = ['previous', id.slice(0, 8), ...own.map((e) => e.id.slice(0, 8))]
    expect((await publish(c, me.sign({ kind: 9, tags: h(g, mixed), content: 'b' }))).message).toBe(
      'blocked: at least 3 previous references are required, got 1',
    )
  })

  it('previous: values are 8 to 64 hex characters; shorter ones are refused as invalid', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({})
    const first = u().sign({ kind: 9, tags: h(g), content: 'one' })
    await publish(c, first)
    const short = first.id.slice(0, 7)
    expect(await publish(c, u().sign({ kind: 9, tags: h(g, ['previous', short]) }))).toEqual({
      ok: false,
      message: `error: invalid value '${short}' in previous tag`,
    })
    expect((await publish(c, u().sign({ kind: 9, tags: h(g, ['previous', first.id]) }))).ok).toBe(true)
    expect((await publish(c, u().sign({ kind: 9, tags: h(g, ['previous', first.id.slice(0, 8)]) }))).ok).toBe(
      true,
    )
  })

  it('the 39000 of a private group that is not hidden is served to anyone by #d; its 39001–39005 and hidden groups stay hidden', async () => {
    const { r } = await setup()
    const member = user()
    const g = await r.createGroup({ name: 'Secret club', private: true, closed: true, members: [member.pk] })
    const hidden = await r.createGroup({ name: 'Unlisted', private: true, closed: true, hidden: true })
    const raw = await RawClient.open(r.url)
    const meta = await raw.req('meta', { kinds: [39000], '#d': [g] })
    expect(meta.closed).toBeUndefined()
    expect(meta.events.map((e) => e.tags.find((t) => t[0] === 'name')?.[1])).toEqual(['Secret club'])
    const rest = await raw.req('rest', { kinds: [39001, 39002, 39003], '#d': [g] })
    expect(rest.events).toEqual([])
    expect((await raw.req('hidden', { kinds: [39000], '#d': [hidden] })).events).toEqual([])
    expect((await raw.req('broad', { kinds: [39000] })).events.map((e) => e.tags[0]?.[1])).toContain(g)
    const c = await connect(r.url)
    expect((await fetch(c, [{ kinds: [39000], '#d': [g] }])).events).toHaveLength(1)
  })
})
