import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, relay, user } from './helpers'

describe('NIP-09 deletions', () => {
  it('a kind 5 with e tags deletes the author’s own events only, and they cannot come back', async () => {
    const r = await relay({ previousMinimum: 0 })
    const c = await connect(r.url)
    const a = user()
    const b = user()
    const g = await r.createGroup({})
    const mine = a.sign({ kind: 9, tags: h(g), content: 'oops' })
    const theirs = b.sign({ kind: 9, tags: h(g), content: 'keep' })
    await publish(c, mine)
    await publish(c, theirs)
    const del = a.sign({
      kind: 5,
      tags: [
        ['e', mine.id],
        ['e', theirs.id],
        ['k', '9'],
      ],
    })
    expect(await publish(c, del)).toEqual({ ok: true, message: '' })
    expect((await fetch(c, [{ ids: [mine.id, theirs.id] }])).events.map((e) => e.id)).toEqual([theirs.id])
    expect((await fetch(c, [{ kinds: [5] }])).events.map((e) => e.id)).toEqual([del.id])
    expect(await publish(c, mine)).toEqual({
      ok: false,
      message: 'blocked: this event was deleted by its author',
    })
  })

  it('a kind 5 with an a tag deletes versions of an addressable event up to its created_at', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const a = user()
    const v1 = a.sign({ kind: 30078, tags: [['d', 'app']], content: 'v1', created_at: 1000 })
    await publish(c, v1)
    const del = a.sign({ kind: 5, tags: [['a', `30078:${a.pk}:app`]], created_at: 1500 })
    expect((await publish(c, del)).ok).toBe(true)
    expect((await fetch(c, [{ kinds: [30078], authors: [a.pk] }])).events).toEqual([])
    const older = a.sign({ kind: 30078, tags: [['d', 'app']], content: 'v0', created_at: 1200 })
    expect((await publish(c, older)).message).toBe('blocked: this event was deleted by its author')
    const newer = a.sign({ kind: 30078, tags: [['d', 'app']], content: 'v2', created_at: 2000 })
    expect((await publish(c, newer)).ok).toBe(true)
    expect((await fetch(c, [{ kinds: [30078], authors: [a.pk] }])).events.map((e) => e.content)).toEqual([
      'v2',
    ])
  })

  it('an a tag naming someone else’s address deletes nothing', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const a = user()
    const b = user()
    await publish(c, b.sign({ kind: 30078, tags: [['d', 'x']], content: 'b', created_at: 1000 }))
    await publish(c, a.sign({ kind: 5, tags: [['a', `30078:${b.pk}:x`]], created_at: 2000 }))
    expect((await fetch(c, [{ kinds: [30078] }])).events).toHaveLength(1)
  })
})
