import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { contentMatches, searchTerms } from '@roost/nip29'
import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, live, publish, RawClient, relay, T0, TestClock, user } from './helpers'

/** A relay with one open group whose member posted `texts` one second apart (oldest first). */
async function withMessages(texts: string[], db?: string) {
  const clock = new TestClock(T0)
  const r = await relay({ previousMinimum: 0, clock: clock.now, ...(db !== undefined && { db }) })
  const author = user(clock)
  const g = await r.createGroup({ name: 'Open', members: [author.pk] })
  const c = await connect(r.url, author)
  const sent: NostrEvent[] = []
  for (const content of texts) {
    clock.advance(1)
    const e = author.sign({ kind: 9, tags: h(g), content })
    expect((await publish(c, e)).ok).toBe(true)
    sent.push(e)
  }
  return { r, c, g, author, clock, sent }
}

const contents = (events: NostrEvent[]) => events.map((e) => e.content)

describe('NIP-50 search', () => {
  it('lists 50 in NIP-11 supported_nips', async () => {
    const r = await relay()
    const res = await globalThis.fetch(r.url.replace('ws', 'http'), {
      headers: { accept: 'application/nostr+json' },
    })
    expect(((await res.json()) as { supported_nips: number[] }).supported_nips).toContain(50)
  })

  it('finds stored events by every word of the query, as word prefixes, any case, newest first', async () => {
    const { c, g } = await withMessages([
      'Pizza tonight at eight',
      'who brings the salad?',
      'PIZZA or pasta, tonight',
      'pizzeria closed tonight',
      'Crème brûlée for dessert',
    ])
    expect(contents((await fetch(c, [{ search: 'pizza' }])).events)).toEqual([
      'PIZZA or pasta, tonight',
      'Pizza tonight at eight',
    ])
    expect(contents((await fetch(c, [{ search: 'Pizz TONIGHT' }])).events)).toEqual([
      'pizzeria closed tonight',
      'PIZZA or pasta, tonight',
      'Pizza tonight at eight',
    ])
    expect(contents((await fetch(c, [{ search: 'pizza pasta', '#h': [g], kinds: [9] }])).events)).toEqual([
      'PIZZA or pasta, tonight',
    ])
    expect(contents((await fetch(c, [{ search: 'tonight', limit: 1 }])).events)).toEqual([
      'pizzeria closed tonight',
    ])
    expect(contents((await fetch(c, [{ search: 'creme' }])).events)).toEqual(['Crème brûlée for dessert'])
    expect((await fetch(c, [{ search: 'sushi' }])).events).toEqual([])
    expect((await fetch(c, [{ search: 'pizza', kinds: [1] }])).events).toEqual([])
  })

  it('a relay on a file searches on a thread of its own, with the same answers, and sees what was just stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-search-file-'))
    try {
      const { c, g, author } = await withMessages(
        ['Pizza tonight at eight', 'PIZZA or pasta, tonight'],
        join(dir, 'relay.db'),
      )
      expect(contents((await fetch(c, [{ search: 'pizza' }])).events)).toEqual([
        'PIZZA or pasta, tonight',
        'Pizza tonight at eight',
      ])
      for (let i = 0; i < 5; i++) {
        const e = author.sign({ kind: 9, tags: h(g), content: `pizza slice ${i}` })
        expect((await publish(c, e)).ok).toBe(true)
        expect((await fetch(c, [{ search: `pizza slice ${i}`, limit: 1 }])).events.map((x) => x.id)).toEqual([
          e.id,
        ])
      }
      expect((await fetch(c, [{ search: 'pizza', '#h': [g], limit: 3 }])).events).toHaveLength(3)
      expect(await fetch(c, [{ search: 'sushi' }])).toEqual({ events: [] })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('ignores NIP-50 extensions it does not implement, and a query with no words matches nothing', async () => {
    const { c } = await withMessages(['salad for everyone'])
    expect(contents((await fetch(c, [{ search: 'salad include:spam language:en' }])).events)).toEqual([
      'salad for everyone',
    ])
    expect(await fetch(c, [{ search: '  !!! ... ' }])).toEqual({ events: [] })
    expect(await fetch(c, [{ search: '' }])).toEqual({ events: [] })
  })

  it('privacy: a search never returns events of a private group to a stranger, stored or live', async () => {
    const r = await relay({ previousMinimum: 0 })
    const m = user()
    const secret = await r.createGroup({ name: 'Secret', private: true, closed: true, members: [m.pk] })
    const open = await r.createGroup({ name: 'Open', members: [m.pk] })
    const member = await connect(r.url, m)
    const msg = m.sign({ kind: 9, tags: h(secret), content: 'the launch code is swordfish' })
    expect((await publish(member, msg)).ok).toBe(true)
    const pub = m.sign({ kind: 9, tags: h(open), content: 'swordfish sandwiches are great' })
    expect((await publish(member, pub)).ok).toBe(true)

    const anonymous = await connect(r.url)
    const stranger = await connect(r.url, user())
    for (const peer of [anonymous, stranger]) {
      expect(contents((await fetch(peer, [{ search: 'swordfish' }])).events)).toEqual([
        'swordfish sandwiches are great',
      ])
      expect((await fetch(peer, [{ search: 'launch code' }])).events).toEqual([])
      expect(
        (await fetch(peer, [{ search: 'swordfish', kinds: [9], limit: 500 }])).events.map((e) => e.id),
      ).toEqual([pub.id])
    }
    expect((await fetch(stranger, [{ search: 'swordfish', '#h': [secret] }])).closed).toBe(
      "restricted: you're trying to access a group of which you're not a member",
    )
    expect(contents((await fetch(member, [{ search: 'launch code' }])).events)).toEqual([
      'the launch code is swordfish',
    ])

    // Live: the stranger's open search hears the public match only.
    const watching = live(stranger, [{ search: 'swordfish' }])
    const memberWatch = live(member, [{ search: 'swordfish' }])
    await watching.ready
    await memberWatch.ready
    const secret2 = m.sign({ kind: 9, tags: h(secret), content: 'swordfish again, secretly' })
    const public2 = m.sign({ kind: 9, tags: h(open), content: 'more swordfish for all' })
    expect((await publish(member, secret2)).ok).toBe(true)
    expect((await publish(member, public2)).ok).toBe(true)
    await memberWatch.next((e) => e.id === public2.id)
    await watching.next((e) => e.id === public2.id)
    expect(memberWatch.events.map((e) => e.id)).toContain(secret2.id)
    expect(watching.events.map((e) => e.id)).not.toContain(secret2.id)
    expect(watching.events.map((e) => e.id)).not.toContain(msg.id)
  })

  it('live search subscriptions hear only new events that match the query', async () => {
    const { c, g, author } = await withMessages([])
    const sub = live(c, [{ search: 'deploy' }])
    await sub.ready
    const miss = author.sign({ kind: 9, tags: h(g), content: 'lunch?' })
    const hit = author.sign({ kind: 9, tags: h(g), content: 'Deployed to prod' })
    expect((await publish(c, miss)).ok).toBe(true)
    expect((await publish(c, hit)).ok).toBe(true)
    await sub.next((e) => e.id === hit.id)
    expect(sub.events.map((e) => e.id)).toEqual([hit.id])
  })

  it('a deleted message is no longer found', async () => {
    const { c, g, author, sent } = await withMessages(['forget this remark', 'forget me not'])
    const del = author.sign({ kind: 5, tags: h(g, ['e', sent[0]?.id ?? '']), content: '' })
    expect((await publish(c, del)).ok).toBe(true)
    expect(contents((await fetch(c, [{ search: 'forget' }])).events)).toEqual(['forget me not'])
  })

  it('refuses a search that is not a string or is too long, with a typed reason', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    expect((await raw.req('a', { search: 42 } as never)).closed).toBe('invalid: search must be a string')
    expect((await raw.req('b', { search: 'x'.repeat(300) })).closed).toBe(
      'invalid: search must be at most 256 characters',
    )
  })

  it('stores and serves events whose content has NUL or a lone surrogate (searchable where the backend can)', async () => {
    const { c } = await withMessages(['odd \u0000 bytes here', 'lone \ud800 surrogate here', 'plain here'])
    const found = contents((await fetch(c, [{ search: 'here' }])).events)
    expect(found).toContain('plain here')
    expect((await fetch(c, [{ kinds: [9] }])).events).toHaveLength(3)
  })

  it('any search string is answered (EOSE, never an error), and what it returns matches it', async () => {
    const { c } = await withMessages(['alpha beta', 'gamma "delta"', 'NEAR(alpha beta)', "o'brien * ^ - :"])
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.constantFrom('"', '*', 'alpha OR', 'NEAR(', "o'", 'a:*', '^beta', '-gamma', '& | !', ':*'),
        ),
        async (search) => {
          const res = await fetch(c, [{ search }])
          expect(res.closed).toBeUndefined()
          const terms = searchTerms(search)
          for (const e of res.events) expect(contentMatches(e.content, terms)).toBe(true)
        },
      ),
      { numRuns: 60 },
    )
  })
})
