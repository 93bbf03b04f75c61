import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools/core'
import { describe, expect, it } from 'vitest'
import type { GroupSnapshot } from '../src'
import { event, ME, offlineGroup } from './group-fixtures'

const AUTHORS = [ME, '3'.repeat(64), '4'.repeat(64)]

/** What a reader sees of a snapshot's rows (their objects are rebuilt, their content is not). */
const view = (s: GroupSnapshot) => ({
  messages: s.messages.map((m) => [m.id, m.reactions.map((r) => `${r.emoji}${r.count}`), m.thread?.comments]),
  threads: s.threads.map((t) => [t.root.id, t.comments.map((c) => c.id)]),
})

type Op =
  | { op: 'row'; kind: 9 | 11; author: number; at: number }
  | { op: 'comment'; root: number; author: number; at: number }
  | { op: 'react'; target: number; author: number; at: number }
  | { op: 'delete'; target: number }
  | { op: 'snapshot' }

const author = fc.integer({ min: 0, max: 2 })
const at = fc.integer({ min: 1, max: 20 })
const target = fc.nat(30)
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('row' as const),
      kind: fc.constantFrom(9 as const, 11 as const),
      author,
      at,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('comment' as const), root: target, author, at }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('react' as const), target, author, at }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), target }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('snapshot' as const) }) },
)

describe('Group snapshot rows, built on first read', () => {
  it('show the rows as of the snapshot, however late they are read', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), fc.boolean(), (ops, older) => {
        const eager = offlineGroup()
        const lazy = offlineGroup()
        const rows: NostrEvent[] = []
        const taken: { now: ReturnType<typeof view>; later: GroupSnapshot }[] = []
        let n = 0
        for (const o of ops) {
          let e: NostrEvent | undefined
          const pick = (i: number) => rows[i % Math.max(rows.length, 1)]
          if (o.op === 'snapshot') {
            taken.push({ now: view(eager.snapshot()), later: lazy.snapshot() })
            continue
          }
          if (o.op === 'row') e = event(o.kind, AUTHORS[o.author]!, o.at, [], `r${n++}`)
          else if (o.op === 'comment') {
            const root = pick(o.root)
            if (root)
              e = event(
                1111,
                AUTHORS[o.author]!,
                o.at,
                [
                  ['E', root.id, '', root.pubkey],
                  ['K', String(root.kind)],
                ],
                `c${n++}`,
              )
          } else if (o.op === 'react') {
            const t = pick(o.target)
            if (t) e = event(7, AUTHORS[o.author]!, o.at, [['e', t.id]], n++ % 2 ? '+' : '🔥')
          } else {
            const t = pick(o.target)
            if (t) e = event(5, t.pubkey, 21, [['e', t.id]], '')
          }
          if (!e) continue
          if (e.kind === 9 || e.kind === 11) rows.push(e)
          eager.ingest(e, { fromStore: true, older })
          lazy.ingest(e, { fromStore: true, older })
        }
        for (const t of taken) expect(view(t.later)).toEqual(t.now)
        expect(view(lazy.snapshot())).toEqual(view(eager.snapshot()))
      }),
      { numRuns: 200 },
    )
  })

  it('are frozen and the same arrays on every read of one snapshot', () => {
    const g = offlineGroup()
    g.ingest(event(9, AUTHORS[1]!, 5, [], 'hello'), { fromStore: true })
    const s = g.snapshot()
    expect(Object.isFrozen(s)).toBe(true)
    expect(s.messages).toBe(s.messages)
    expect(s.threads).toBe(s.threads)
    expect(s.messages.map((m) => m.content)).toEqual(['hello'])
    expect({ ...s }.messages).toBe(s.messages)
    g.ingest(event(9, AUTHORS[2]!, 6, [], 'later'), { fromStore: true })
    expect(s.messages.map((m) => m.content)).toEqual(['hello'])
    expect(g.snapshot().messages.map((m) => m.content)).toEqual(['hello', 'later'])
  })
})
