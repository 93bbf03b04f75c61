import type { NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, RawClient, relay, signMany, user } from './helpers'

/** Hidden rows the stranger piles up: more than the 100 one-row pages a REQ used to read before giving up. */
const HIDDEN = 150

/**
 * An open group with one public message, then a stranger's own private group (9007 and 9002 over the
 * wire, nobody else needed) holding {@link HIDDEN} newer messages with the same word.
 */
async function scene(opts: Parameters<typeof relay>[0] = {}) {
  const r = await relay({ previousMinimum: 0, ...opts })
  const author = user()
  const open = await r.createGroup({ name: 'Open', members: [author.pk] })
  const c = await connect(r.url, author)
  const pub = author.sign({ kind: 9, tags: h(open), content: 'swordfish in the open' })
  expect((await publish(c, pub)).ok).toBe(true)

  const owner = user()
  const oc = await connect(r.url, owner)
  const secret = 'secret-stash'
  expect((await publish(oc, owner.sign({ kind: 9007, tags: h(secret) }))).ok).toBe(true)
  const flags = owner.sign({ kind: 9002, tags: h(secret, ['private'], ['closed']) })
  expect((await publish(oc, flags)).ok).toBe(true)
  const hidden = await signMany(
    owner,
    Array.from({ length: HIDDEN }, (_, i) => ({ kind: 9, tags: h(secret), content: `swordfish ${i}` })),
  )
  const raw = await RawClient.open(r.url)
  expect((await raw.auth(owner, r.url)).ok).toBe(true)
  const answers = await Promise.all(hidden.map((e) => raw.publish(e)))
  expect(answers.filter((a) => !a.ok)).toEqual([])
  expect(r.state(secret)?.private).toBe(true)
  return { r, pub, hidden, owner, secret, oc }
}

const ids = (events: NostrEvent[]) => events.map((e) => e.id)

describe('reads skip rows their reader may not see inside the query', () => {
  it('an anonymous and a signed-in stranger find the visible match behind newer hidden ones, search and plain REQ alike', async () => {
    const { r, pub } = await scene()
    const anonymous = await connect(r.url)
    const stranger = await connect(r.url, user())
    for (const peer of [anonymous, stranger]) {
      expect(ids((await fetch(peer, [{ search: 'swordfish', limit: 1 }])).events)).toEqual([pub.id])
      expect(ids((await fetch(peer, [{ kinds: [9], limit: 1 }])).events)).toEqual([pub.id])
      expect(ids((await fetch(peer, [{ kinds: [9] }])).events)).toEqual([pub.id])
      expect(ids((await fetch(peer, [{ search: 'swordfish' }])).events)).toEqual([pub.id])
    }
  })

  it('members get what they got before: every match, newest first', async () => {
    const { r, pub, hidden, owner, secret } = await scene()
    const member = await connect(r.url, owner)
    const newestFirst = [...hidden].reverse().map((e) => e.id)
    expect(ids((await fetch(member, [{ search: 'swordfish', limit: 1 }])).events)).toEqual([newestFirst[0]])
    const all = ids((await fetch(member, [{ search: 'swordfish', limit: 500 }])).events)
    expect(all).toEqual([...newestFirst, pub.id])
    expect(ids((await fetch(member, [{ '#h': [secret], kinds: [9], limit: 500 }])).events)).toEqual(
      newestFirst,
    )
  })

  it('a hidden group stays out of broad reads for strangers, however many rows it holds', async () => {
    const { r, pub, owner, secret, oc } = await scene()
    const flags = owner.sign({ kind: 9002, tags: h(secret, ['public'], ['open'], ['hidden']) })
    expect((await publish(oc, flags)).ok).toBe(true)
    expect(r.state(secret)).toMatchObject({ private: false, hidden: true })
    const stranger = await connect(r.url, user())
    expect(ids((await fetch(stranger, [{ kinds: [9], limit: 1 }])).events)).toEqual([pub.id])
    expect(ids((await fetch(stranger, [{ search: 'swordfish', limit: 1 }])).events)).toEqual([pub.id])
    // Named by id, a hidden (not private) group is readable, as rule 29 says.
    expect((await fetch(stranger, [{ '#h': [secret], kinds: [9], limit: 1 }])).events).toHaveLength(1)
  })

  it('a REQ that examines more stored rows than maxQueryScan is refused with blocked:', async () => {
    const { r, pub } = await scene({ limits: { maxQueryScan: 40 } })
    const stranger = await RawClient.open(r.url)
    const res = await stranger.req('broad', { kinds: [9], limit: 1 })
    expect(res.closed).toMatch(/^blocked: this query examined \d+ stored events/)
    expect(res.events).toEqual([])
    // A search leaves the hidden group out inside the index: it examines only what it can return.
    expect(ids((await stranger.req('search', { search: 'swordfish', limit: 1 })).events)).toEqual([pub.id])
    // A reader who may see the rows is not refused.
    expect(
      (await stranger.req('open', { kinds: [9], limit: 1, '#h': [pub.tags[0]?.[1] ?? ''] })).closed,
    ).toBeUndefined()
  })
})
