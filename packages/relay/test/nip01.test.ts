import type { Filter } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { connect, fetch, live, publish, RawClient, relay as startTestRelay, user } from './helpers'

/** NIP-01 behaviour is tested on kinds accepted without an `h` tag. */
const relay = () => startTestRelay({ nonGroupKinds: [0, 1, 5, 7, 10002, 20001, 30078] })

describe('NIP-01', () => {
  it('stores an event, answers OK true and returns it to a REQ by id, author, kind and tag', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const alice = user()
    const e = alice.sign({ kind: 1, content: 'hello', tags: [['t', 'roost']] })
    expect(await publish(c, e)).toEqual({ ok: true, message: '' })
    for (const filter of [{ ids: [e.id] }, { authors: [alice.pk] }, { kinds: [1] }, { '#t': ['roost'] }]) {
      const { events } = await fetch(c, [filter])
      expect(events.map((x) => x.id)).toEqual([e.id])
    }
    expect((await fetch(c, [{ '#t': ['other'] }])).events).toEqual([])
  })

  it('answers a resent event with OK true duplicate:', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const e = user().sign({ kind: 1 })
    await publish(c, e)
    expect(await publish(c, e)).toEqual({ ok: true, message: 'duplicate: already have this event' })
  })

  it('orders newest first, applies since/until/limit and merges several filters without duplicates', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const a = user()
    const base = 1_700_000_000
    const evs = [0, 1, 2, 3, 4].map((i) => a.sign({ kind: 1, created_at: base + i, content: String(i) }))
    for (const e of evs) await publish(c, e)
    const got = (f: Filter[]) => fetch(c, f).then((x) => x.events.map((e) => e.content))
    expect(await got([{ kinds: [1] }])).toEqual(['4', '3', '2', '1', '0'])
    expect(await got([{ kinds: [1], limit: 2 }])).toEqual(['4', '3'])
    expect(await got([{ kinds: [1], since: base + 1, until: base + 3 }])).toEqual(['3', '2', '1'])
    expect(await got([{ ids: [evs[0]!.id] }, { authors: [a.pk], limit: 1 }, { ids: [evs[0]!.id] }])).toEqual([
      '0',
      '4',
    ])
  })

  it('breaks created_at ties by arrival, the latest first, for limit (decision 21)', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const evs = [0, 1, 2, 3].map((i) =>
      user().sign({ kind: 1, created_at: 1_700_000_000, content: String(i) }),
    )
    for (const e of evs) await publish(c, e)
    const { events } = await fetch(c, [{ kinds: [1], limit: 2 }])
    expect(events.map((e) => e.id)).toEqual([evs[3]?.id, evs[2]?.id])
  })

  it('keeps only the newest replaceable event per pubkey and kind, lowest id on a tie', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const a = user()
    const old = a.sign({ kind: 0, created_at: 100, content: 'old' })
    const newer = a.sign({ kind: 0, created_at: 200, content: 'new' })
    await publish(c, old)
    await publish(c, newer)
    expect(await publish(c, old)).toMatchObject({ ok: false, message: expect.stringMatching(/^duplicate: /) })
    expect((await fetch(c, [{ kinds: [0], authors: [a.pk] }])).events.map((e) => e.content)).toEqual(['new'])
    const tieA = a.sign({ kind: 10002, created_at: 300, content: 'a' })
    const tieB = a.sign({ kind: 10002, created_at: 300, content: 'b' })
    const [low, high] = [tieA, tieB].sort((x, y) => (x.id < y.id ? -1 : 1))
    await publish(c, high!)
    await publish(c, low!)
    expect((await fetch(c, [{ kinds: [10002] }])).events.map((e) => e.id)).toEqual([low!.id])
  })

  it('keeps the newest addressable event per pubkey, kind and d tag', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const a = user()
    await publish(c, a.sign({ kind: 30078, created_at: 100, tags: [['d', 'x']], content: '1' }))
    await publish(c, a.sign({ kind: 30078, created_at: 101, tags: [['d', 'x']], content: '2' }))
    await publish(c, a.sign({ kind: 30078, created_at: 100, tags: [['d', 'y']], content: '3' }))
    const { events } = await fetch(c, [{ kinds: [30078] }])
    expect(events.map((e) => e.content).sort()).toEqual(['2', '3'])
  })

  it('broadcasts new events to matching live subscriptions only, and stops after CLOSE', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const sub = live(c, [{ kinds: [1], '#t': ['x'] }])
    await sub.ready
    const a = user()
    const miss = a.sign({ kind: 1, tags: [['t', 'y']] })
    const hit = a.sign({ kind: 1, tags: [['t', 'x']] })
    await publish(c, miss)
    await publish(c, hit)
    expect((await sub.next()).id).toBe(hit.id)
    expect(sub.events.map((e) => e.id)).toEqual([hit.id])
    sub.close()
    const raw = await RawClient.open(r.url)
    raw.send(['REQ', 's', { kinds: [1] }])
    raw.send(['CLOSE', 's'])
    await raw.ping()
    await publish(c, a.sign({ kind: 1, content: 'after close' }))
    await raw.ping()
    expect(raw.frames.filter((f) => f[0] === 'EVENT' && f[1] === 's').length).toBe(2)
  })

  it('sends EOSE after stored events and replaces a subscription reusing its id', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    const a = user()
    await raw.publish(a.sign({ kind: 1 }))
    const first = await raw.req('s', { kinds: [1] })
    expect(first.events).toHaveLength(1)
    const second = await raw.req('s', { kinds: [7] })
    expect(second.events).toHaveLength(0)
    await raw.publish(a.sign({ kind: 1 }))
    await raw.ping()
    expect(raw.frames.filter((f) => f[0] === 'EVENT').length).toBe(1)
  })

  it('broadcasts ephemeral events without storing them', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const sub = live(c, [{ kinds: [20001] }])
    await sub.ready
    const e = user().sign({ kind: 20001, content: 'typing' })
    const other = await connect(r.url)
    expect(await publish(other, e)).toEqual({ ok: true, message: '' })
    expect((await sub.next()).id).toBe(e.id)
    expect((await fetch(other, [{ kinds: [20001] }])).events).toEqual([])
  })
})
