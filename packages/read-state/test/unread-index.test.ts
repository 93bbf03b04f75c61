import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type IndexedRow, UnreadIndex, type UnreadRow, unreadCount } from '../src'

const ME = 'a'.repeat(64)
const THEM = 'b'.repeat(64)
const CH = 'ch'
const hex = (n: number) => n.toString(16).padStart(64, '0')

describe('UnreadIndex', () => {
  it('counts like unreadCount and follows marks, deletions and duplicates', () => {
    const index = new UnreadIndex(CH, ME)
    const root = hex(900)
    expect(index.add({ id: hex(1), createdAt: 100, pubkey: THEM })).toBe(true)
    expect(index.add({ id: hex(1), createdAt: 100, pubkey: THEM })).toBe(false)
    index.add({ id: hex(2), createdAt: 200, pubkey: THEM })
    index.add({ id: hex(3), createdAt: 300, pubkey: ME })
    index.add({ id: hex(4), createdAt: 250, pubkey: THEM, root })
    expect(index.size).toBe(4)
    expect(index.count({})).toEqual({
      messages: 2,
      threads: [root],
      firstUnread: { id: hex(1), createdAt: 100, pubkey: THEM },
    })
    expect(index.count({ [CH]: 100 }).messages).toBe(1)
    expect(index.count({ [CH]: 200, [`thread:${root}`]: 250 })).toEqual({ messages: 0, threads: [] })
    expect(index.count({ [CH]: 200, [`msg:${hex(4)}`]: 250 }).threads).toEqual([])
    expect(index.remove(hex(2))).toBe(true)
    expect(index.remove(hex(2))).toBe(false)
    expect(index.count({ [CH]: 100 }).messages).toBe(0)
    expect(index.remove(hex(4))).toBe(true)
    expect(index.count({}).threads).toEqual([])
  })

  const rowArb = fc.record({
    n: fc.integer({ min: 0, max: 60 }),
    createdAt: fc.integer({ min: 0, max: 50 }),
    mine: fc.boolean(),
    root: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  })
  const ctxArb = fc.record({
    channel: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
    threads: fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 50 })), {
      maxLength: 4,
    }),
    msgs: fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 50 })), {
      maxLength: 10,
    }),
  })

  it('property: always equals the full recount', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 60 }), ctxArb, (rows, ctx) => {
        const index = new UnreadIndex(CH, ME)
        const seen = new Set<string>()
        const top: UnreadRow[] = []
        const threads = new Map<string, UnreadRow[]>()
        for (const r of rows) {
          const row: IndexedRow = {
            id: hex(r.n),
            createdAt: r.createdAt,
            pubkey: r.mine ? ME : THEM,
            ...(r.root === undefined ? {} : { root: hex(1000 + r.root) }),
          }
          index.add(row)
          if (seen.has(row.id)) continue
          seen.add(row.id)
          if (row.root === undefined) top.push(row)
          else {
            if (!threads.has(row.root)) threads.set(row.root, [])
            threads.get(row.root)!.push(row)
          }
        }
        const contexts: Record<string, number> = {}
        if (ctx.channel !== undefined) contexts[CH] = ctx.channel
        for (const [t, v] of ctx.threads) contexts[`thread:${hex(1000 + t)}`] = v
        for (const [m, v] of ctx.msgs) contexts[`msg:${hex(m)}`] = v
        const full = unreadCount({
          channel: CH,
          topLevel: top,
          threads: [...threads].map(([root, replies]) => ({ root, replies })),
          me: ME,
          contexts,
        })
        const fast = index.count(contexts)
        expect(fast.messages).toBe(full.messages)
        expect([...fast.threads].sort()).toEqual([...full.threads].sort())
        expect(fast.firstUnread?.id).toBe(full.firstUnread?.id)
      }),
      { numRuns: 400 },
    )
  })
})
