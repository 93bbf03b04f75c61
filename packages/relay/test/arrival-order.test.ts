import type { Filter, NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { h, RawClient, relay, signMany, T0, TestClock, user } from './helpers'

const TIES = 300
const PAGE = 100

/**
 * History read as the relay's README tells a client to page through a second holding more ties
 * than a page: each next request asks `until` = the oldest `created_at` of the page and a limit
 * grown by the events already held from that second; duplicates are dropped by id. Returns the
 * events newest first.
 */
async function readHistory(c: RawClient, filter: Filter): Promise<NostrEvent[]> {
  const held: NostrEvent[] = []
  const seen = new Set<string>()
  let until: number | undefined
  for (let n = 0; n < 50; n++) {
    const atUntil = until === undefined ? 0 : held.filter((e) => e.created_at === until).length
    const limit = PAGE + atUntil
    const page = await c.req(`p${n}`, { ...filter, limit, ...(until !== undefined && { until }) })
    expect(page.closed).toBeUndefined()
    const fresh = page.events.filter((e) => !seen.has(e.id))
    for (const e of fresh) seen.add(e.id)
    held.push(...fresh)
    if (page.events.length < limit) return held
    until = Math.min(...page.events.map((e) => e.created_at))
  }
  throw new Error('history did not end')
}

describe('decision 21: REQ answers order created_at ties by the relay’s arrival order', () => {
  it(`${TIES} events in one second read back by REQ pages, and live, in arrival order`, async () => {
    const clock = new TestClock(T0)
    const r = await relay({
      previousMinimum: 0,
      clock: clock.now,
      rateLimit: { events: 10_000, perSeconds: 1 },
    })
    const author = user(clock)
    const g = await r.createGroup({ name: 'Busy', members: [author.pk] })
    const c = await RawClient.open(r.url)
    expect((await c.auth(author, r.url)).ok).toBe(true)
    const watcher = await RawClient.open(r.url)
    const first = watcher.frames.length
    await watcher.req('live', { '#h': [g], kinds: [9], limit: 0 })

    // One second before, one after: the paging crosses into and out of the tied second.
    const [before] = await signMany(author, [{ kind: 9, tags: h(g), content: 'before', created_at: T0 - 1 }])
    const tied = await signMany(
      author,
      Array.from({ length: TIES }, (_, i) => ({ kind: 9, tags: h(g), content: `tie ${i}`, created_at: T0 })),
    )
    // Ids in no particular order: arrival, not id, must decide.
    const shuffled = [...tied].sort((a, b) => (a.sig < b.sig ? -1 : 1))
    const sent = [before as NostrEvent, ...shuffled]
    for (const e of sent) expect((await c.publish(e)).ok).toBe(true)
    const arrival = sent.map((e) => e.id)

    await watcher.ping()
    const live = watcher.frames
      .slice(first)
      .filter((f) => f[0] === 'EVENT' && f[1] === 'live')
      .map((f) => (f[2] as NostrEvent).id)
    expect(live).toEqual(arrival)

    for (const filter of [{ '#h': [g], kinds: [9] }, { kinds: [9] }, { authors: [author.pk] }] as Filter[]) {
      const history = await readHistory(c, filter)
      expect(history.map((e) => e.id).reverse()).toEqual(arrival)
      // A single page newest first, reversed, is arrival order too.
      const page = (await c.req('one', { ...filter, limit: PAGE })).events.map((e) => e.id)
      expect(page.reverse()).toEqual(arrival.slice(-PAGE))
    }
  })
})

describe('tieOrder "id", for tests of clients: a REQ answers ties lowest id first, as NIP-01 relays do', () => {
  it('orders a second’s events by id, cuts the limit on that order, and still delivers live in arrival order', async () => {
    const clock = new TestClock(T0)
    const r = await relay({
      previousMinimum: 0,
      clock: clock.now,
      rateLimit: { events: 10_000, perSeconds: 1 },
      tieOrder: 'id',
    })
    const author = user(clock)
    const g = await r.createGroup({ name: 'By id', members: [author.pk] })
    const c = await RawClient.open(r.url)
    expect((await c.auth(author, r.url)).ok).toBe(true)
    const watcher = await RawClient.open(r.url)
    const first = watcher.frames.length
    await watcher.req('live', { '#h': [g], kinds: [9], limit: 0 })

    const [newer] = await signMany(author, [{ kind: 9, tags: h(g), content: 'newer', created_at: T0 + 1 }])
    const tied = await signMany(
      author,
      Array.from({ length: 40 }, (_, i) => ({ kind: 9, tags: h(g), content: `tie ${i}`, created_at: T0 })),
    )
    const sent = [...tied, newer as NostrEvent]
    for (const e of sent) expect((await c.publish(e)).ok).toBe(true)
    await watcher.ping()
    const live = watcher.frames
      .slice(first)
      .filter((f) => f[0] === 'EVENT' && f[1] === 'live')
      .map((f) => (f[2] as NostrEvent).id)
    expect(live).toEqual(sent.map((e) => e.id))

    const byId = tied.map((e) => e.id).sort()
    expect(byId).not.toEqual(tied.map((e) => e.id)) // arrival order is not id order here
    const all = (await c.req('all', { '#h': [g], kinds: [9] })).events.map((e) => e.id)
    expect(all).toEqual([(newer as NostrEvent).id, ...byId])
    // A cut inside the second takes its lowest ids, not its latest arrivals.
    const page = (await c.req('page', { '#h': [g], kinds: [9], limit: 11 })).events.map((e) => e.id)
    expect(page).toEqual([(newer as NostrEvent).id, ...byId.slice(0, 10)])
  })
})
