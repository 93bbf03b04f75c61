import type { Filter } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, RawClient, relay, type User, user } from './helpers'

/** A relay with an open group (2 messages), a private one (3) and a closed one with a join request waiting. */
async function scene() {
  const alice = user()
  const bob = user()
  const carol = user()
  const dave = user()
  const r = await relay()
  await r.createGroup({ id: 'pub', admins: [alice.pk] })
  await r.createGroup({ id: 'secret', private: true, closed: true, admins: [alice.pk], members: [bob.pk] })
  await r.createGroup({ id: 'club', closed: true, admins: [alice.pk] })
  const c = await connect(r.url)
  for (const [who, group, n] of [
    [carol, 'pub', 2],
    [bob, 'secret', 3],
  ] as const)
    for (let i = 0; i < n; i++)
      expect((await publish(c, who.sign({ kind: 9, content: `${group} ${i}`, tags: h(group) }))).ok).toBe(
        true,
      )
  expect((await publish(c, dave.sign({ kind: 9021, tags: h('club') }))).ok).toBe(true)
  return { r, alice, bob, carol, dave }
}

/** COUNT over a raw socket: the whole answer frame. */
async function count(c: RawClient, subId: string, ...filters: Filter[]): Promise<unknown[]> {
  const from = c.frames.length
  c.send(['COUNT', subId, ...filters])
  return c.next((f) => (f[0] === 'COUNT' || f[0] === 'CLOSED') && f[1] === subId, from)
}

async function as(url: string, u?: User): Promise<RawClient> {
  const c = await RawClient.open(url)
  if (u) expect((await c.auth(u, url)).ok).toBe(true)
  return c
}

describe('NIP-45 COUNT', () => {
  it('answers ["COUNT", subId, {"count": n}] on the wire, and nostr-tools count() reads it', async () => {
    const { r } = await scene()
    const raw = await as(r.url)
    expect(await count(raw, 'c1', { kinds: [9], '#h': ['pub'] })).toEqual(['COUNT', 'c1', { count: 2 }])
    const nt = await connect(r.url)
    expect(await nt.count([{ kinds: [9], '#h': ['pub'] }], {})).toBe(2)
    // An event matched by two filters counts once; `limit` does not cut a count.
    expect(
      await nt.count([{ '#h': ['pub'], kinds: [9] }, { authors: [], kinds: [9] }, { '#h': ['pub'] }], {}),
    ).toBe((await fetch(nt, [{ '#h': ['pub'] }])).events.length)
    expect(await nt.count([{ kinds: [9], '#h': ['pub'], limit: 1 }], {})).toBe(2)
    const info = (await (
      await globalThis.fetch(r.url.replace('ws://', 'http://'), {
        headers: { Accept: 'application/nostr+json' },
      })
    ).json()) as { supported_nips: number[] }
    expect(info.supported_nips).toContain(45)
  })

  it("reveals nothing of a private group to a non-member: the REQ's CLOSED by #h, and no count of its events otherwise", async () => {
    const { r, bob, carol } = await scene()
    const secret = { kinds: [9], '#h': ['secret'] }
    // Unauthenticated: refused as the REQ is, with a challenge.
    const anon = await as(r.url)
    const req = await anon.req('r', secret)
    const challenges = anon.frames.filter((f) => f[0] === 'AUTH').length
    expect(await count(anon, 'c', secret)).toEqual(['CLOSED', 'c', req.closed])
    expect(req.closed).toMatch(/^auth-required:/)
    await anon.ping()
    expect(anon.frames.filter((f) => f[0] === 'AUTH').length).toBe(challenges + 1)
    // Authenticated, not a member: the REQ's `restricted:`, and nostr-tools' count rejects with it.
    const stranger = await as(r.url, carol)
    const reqAsCarol = await stranger.req('r', secret)
    expect(reqAsCarol.closed).toMatch(/^restricted:/)
    expect(await count(stranger, 'c', secret)).toEqual(['CLOSED', 'c', reqAsCarol.closed])
    await expect((await connect(r.url, carol)).count([secret], {})).rejects.toThrow(
      reqAsCarol.closed as string,
    )
    // Filters that do not name the group count only what the reader may see.
    expect(await count(stranger, 'broad', { kinds: [9] })).toEqual(['COUNT', 'broad', { count: 2 }])
    const ids = (await (await as(r.url, bob)).req('ids', secret)).events.map((e) => e.id)
    expect(ids).toHaveLength(3)
    expect(await count(stranger, 'ids', { ids })).toEqual(['COUNT', 'ids', { count: 0 }])
    expect(await count(stranger, 'authors', { authors: [bob.pk] })).toEqual([
      'COUNT',
      'authors',
      { count: 0 },
    ])
    // Its member counts them.
    const member = await as(r.url, bob)
    expect(await count(member, 'm', secret)).toEqual(['COUNT', 'm', { count: 3 }])
    expect(await count(member, 'all', { kinds: [9] })).toEqual(['COUNT', 'all', { count: 5 }])
  })

  it('counts exactly what a REQ with the same filters sends each reader', async () => {
    const { r, alice, bob, carol, dave } = await scene()
    const filters: Filter[][] = [
      [{ kinds: [9] }],
      [{}],
      [{ '#h': ['pub'] }],
      [{ '#h': ['club'] }],
      [{ kinds: [9021] }],
      [{ '#h': ['pub', 'club'] }],
      [{ kinds: [39000] }],
      [{ kinds: [39000, 39002], '#d': ['secret', 'pub'] }],
      [{ kinds: [9000] }, { kinds: [9] }],
      [{ authors: [dave.pk, carol.pk, bob.pk] }],
      [{ search: 'secret' }],
      [
        { search: 'pub', kinds: [9] },
        { search: 'secret', '#h': ['secret', 'pub'] },
      ],
    ]
    for (const reader of [undefined, alice, bob, carol, dave]) {
      const c = await as(r.url, reader)
      for (const [i, f] of filters.entries()) {
        const req = await c.req(`r${i}`, ...f)
        const answer = await count(c, `c${i}`, ...f)
        if (req.closed !== undefined) expect(answer).toEqual(['CLOSED', `c${i}`, req.closed])
        else
          expect([reader?.pk.slice(0, 8), f, answer]).toEqual([
            reader?.pk.slice(0, 8),
            f,
            ['COUNT', `c${i}`, { count: req.events.length }],
          ])
      }
    }
    // The join request waiting in `club` counts for its admin and its author only.
    expect(await count(await as(r.url, alice), 'a', { kinds: [9021] })).toEqual(['COUNT', 'a', { count: 1 }])
    expect(await count(await as(r.url, carol), 'c', { kinds: [9021] })).toEqual(['COUNT', 'c', { count: 0 }])
  })

  it('refuses a count that would examine more stored events than maxQueryScan, naming how to narrow it', async () => {
    const r = await relay({ limits: { maxQueryScan: 3 } })
    await r.createGroup({ id: 'pub' })
    const c = await connect(r.url)
    const carol = user()
    for (let i = 0; i < 4; i++)
      expect((await publish(c, carol.sign({ kind: 9, content: `${i}`, tags: h('pub') }))).ok).toBe(true)
    const raw = await as(r.url)
    expect(await count(raw, 'big', { kinds: [9], '#h': ['pub'] })).toEqual([
      'CLOSED',
      'big',
      expect.stringMatching(/^blocked: this count would examine more than 3 stored events; narrow it/),
    ])
    expect(await count(raw, 'small', { kinds: [9], '#h': ['pub'], authors: [user().pk] })).toEqual([
      'CLOSED',
      'small',
      expect.stringMatching(/^blocked:/),
    ])
    expect(await count(raw, 'narrow', { ids: [] })).toEqual(['COUNT', 'narrow', { count: 0 }])
  })
})
