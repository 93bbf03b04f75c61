import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, RawClient, relay, TestClock, user } from './helpers'

async function setup() {
  const clock = new TestClock()
  const r = await relay({ profile: 'pyramid', clock: clock.now })
  const c = await connect(r.url)
  const u = () => user(clock)
  return { r, c, clock, u, admin: u() }
}

describe('profile pyramid (§6)', () => {
  it('NIP-11 self is the signing key and pubkey a different owner key (gotcha 1)', async () => {
    const { r } = await setup()
    const res = await globalThis.fetch(r.url.replace('ws', 'http'), {
      headers: { Accept: 'application/nostr+json' },
    })
    const info = (await res.json()) as { self: string; pubkey: string }
    expect(info.self).toBe(r.pubkey)
    expect(info.pubkey).toBe(r.ownerPubkey)
    expect(info.pubkey).not.toBe(r.pubkey)
  })

  it('a member re-joining a closed group gets restricted: before duplicate: (gotcha 6)', async () => {
    const { r, c, u } = await setup()
    const m = u()
    const g = await r.createGroup({ closed: true, members: [m.pk] })
    expect((await publish(c, m.sign({ kind: 9021, tags: h(g) }))).message).toBe(
      'restricted: group is closed, you need an invite code',
    )
    const open = await r.createGroup({ members: [m.pk] })
    expect((await publish(c, m.sign({ kind: 9021, tags: h(open) }))).message).toBe(
      'duplicate: already a member',
    )
  })

  it('relay-made join 9000s always carry a code tag, empty when none was used (gotcha 18)', async () => {
    const { r, c, u } = await setup()
    const g = await r.createGroup({})
    const j = u()
    await publish(c, j.sign({ kind: 9021, tags: h(g) }))
    const put = (await fetch(c, [{ kinds: [9000], '#p': [j.pk] }])).events[0]!
    expect(put.tags).toEqual([
      ['h', g],
      ['p', j.pk],
      ['code', ''],
    ])
  })

  it('a 9007 needs AUTH as its author', async () => {
    const { r, u } = await setup()
    const raw = await RawClient.open(r.url)
    const a = u()
    expect((await raw.publish(a.sign({ kind: 9007, tags: h('p1') }))).message).toBe(
      'auth-required: must authenticate before creating a group',
    )
    await raw.auth(u(), r.url)
    expect((await raw.publish(a.sign({ kind: 9007, tags: h('p1'), content: '2' }))).message).toBe(
      'restricted: auth and event pubkey mismatch',
    )
    await raw.auth(a, r.url)
    expect((await raw.publish(a.sign({ kind: 9007, tags: h('p1'), content: '3' }))).ok).toBe(true)
    expect((await raw.publish(a.sign({ kind: 9007, tags: h('a..b') }))).message).toBe(
      "invalid: group id must not contain '..'",
    )
  })

  it('pyramid policies: invites only for closed groups, private implies closed, no-op 9000/9001 refused', async () => {
    const { r, c, admin, u } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    expect((await publish(c, admin.sign({ kind: 9009, tags: h(g, ['code', 'x']) }))).message).toBe(
      'blocked: no need to create invites in open groups',
    )
    expect((await publish(c, admin.sign({ kind: 9002, tags: h(g, ['private']) }))).message).toBe(
      'blocked: a private group must also be closed',
    )
    expect((await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', admin.pk, 'admin']) }))).message).toBe(
      'blocked: all targets are members already',
    )
    expect((await publish(c, admin.sign({ kind: 9001, tags: h(g, ['p', u().pk]) }))).message).toBe(
      'blocked: all targets have left already',
    )
  })

  it('supported_kinds also filters moderation kinds (gotcha 22)', async () => {
    const { r, c, admin, u } = await setup()
    const g = await r.createGroup({ admins: [admin.pk], supportedKinds: [9] })
    expect((await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', u().pk]) }))).message).toBe(
      'blocked: kind not supported by this group',
    )
  })

  it('previous: only the first tag, no minimum; "in this group" (gotcha 10)', async () => {
    const { r, c, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    await publish(c, admin.sign({ kind: 9, tags: h(g), content: 'no refs needed' }))
    const first = (await fetch(c, [{ '#h': [g], kinds: [9] }])).events[0]!
    const tags = h(g, ['previous', first.id.slice(0, 8)], ['previous', 'deadbeef'])
    expect((await publish(c, admin.sign({ kind: 9, tags }))).ok).toBe(true)
    expect((await publish(c, admin.sign({ kind: 9, tags: h(g, ['previous', 'deadbeef']) }))).message).toBe(
      "blocked: previous id 'deadbeef' wasn't found in this group",
    )
  })

  it('no late-publication window for messages, but moderation keeps its 60 s (gotcha 12)', async () => {
    const { r, c, clock, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    expect((await publish(c, admin.sign({ kind: 9, tags: h(g), created_at: clock.now() - 86_400 }))).ok).toBe(
      true,
    )
    expect(
      (await publish(c, admin.sign({ kind: 9002, tags: h(g, ['name', 'x']), created_at: clock.now() - 61 })))
        .message,
    ).toBe('blocked: moderation action is too old (older than 1 minute ago)')
  })

  it('only #h is gated for private groups; #d lookups of 39000 work without AUTH (gotcha 13)', async () => {
    const { r, c } = await setup()
    const g = await r.createGroup({ private: true, closed: true })
    expect((await fetch(c, [{ kinds: [39000], '#d': [g] }])).events).toHaveLength(1)
    expect((await fetch(c, [{ '#h': [g] }])).closed).toBe(
      "auth-required: you're trying to access a private group",
    )
  })

  it('NIP-09 deletion of a group message older than 2 h is refused (gotcha 21)', async () => {
    const { r, c, clock, admin } = await setup()
    const g = await r.createGroup({ admins: [admin.pk] })
    const old = admin.sign({ kind: 9, tags: h(g), created_at: clock.now() - 7300 })
    await publish(c, old)
    expect((await publish(c, admin.sign({ kind: 5, tags: [['e', old.id]] }))).message).toBe(
      "blocked: can't delete very old group message",
    )
    const recent = admin.sign({ kind: 9, tags: h(g), content: 'new' })
    await publish(c, recent)
    expect((await publish(c, admin.sign({ kind: 5, tags: [['e', recent.id]] }))).ok).toBe(true)
  })
})
