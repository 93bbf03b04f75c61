import { unreadCount } from '@roost/read-state'
import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools/core'
import { describe, expect, it } from 'vitest'
import { CHANNEL, event, ME, movingReadState, offlineGroup, RELAY_KEY } from './group-fixtures'

const OTHERS = ['3'.repeat(64), '4'.repeat(64)]

type Op =
  | { op: 'row'; kind: 9 | 1 | 11; author: number; at: number }
  | { op: 'comment'; root: number; author: number; at: number }
  | { op: 'modDelete'; target: number }
  | { op: 'authorDelete'; target: number }
  | { op: 'mark'; ctx: 'channel' | 'thread' | 'msg'; target: number; at: number }

const author = fc.integer({ min: 0, max: 2 }) // 0 = us
const at = fc.integer({ min: 1, max: 12 }) // few seconds: many ties on created_at
const target = fc.nat(40)
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant('row' as const), kind: fc.constantFrom(9, 1, 11), author, at }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('comment' as const), root: target, author, at }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('modDelete' as const), target }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('authorDelete' as const), target }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('mark' as const),
      ctx: fc.constantFrom('channel' as const, 'thread' as const, 'msg' as const),
      target,
      at,
    }),
  },
)

describe('Group.unread() with an incremental index', () => {
  it('equals the full unreadCount recount after every random arrival, deletion and mark', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(opArb, fc.boolean()), { maxLength: 60 }),
        fc.boolean(),
        fc.boolean(),
        (ops, ownMarks, checkEach) => {
          const rs = movingReadState()
          const g = offlineGroup({ readState: rs })
          const sent: NostrEvent[] = [] // every event made so far, so ops can point at earlier ones
          const pick = (i: number) => sent[i % Math.max(1, sent.length)]
          const late: NostrEvent[] = [] // arrive at the end, newest made first: roots after their comments
          const check = () => {
            const s = g.snapshot()
            const full = unreadCount({
              channel: CHANNEL,
              me: ME,
              contexts: rs.contexts,
              topLevel: s.messages,
              threads: s.threads.map((t) => ({ root: t.root.id, replies: t.comments })),
            })
            expect(s.unread).toBe(full.messages)
            expect(s.unreadThreads).toEqual(full.threads)
            expect(g.group.unread()).toBe(full.messages)
          }
          let n = 0
          for (const [o, deferred] of ops) {
            n++
            let e: NostrEvent | undefined
            if (o.op === 'row') {
              const pubkey = o.author === 0 ? ME : (OTHERS[o.author - 1] as string)
              e = event(o.kind, pubkey, o.at, o.kind === 11 ? [['title', `t${n}`]] : [], `row ${n}`)
            } else if (o.op === 'comment') {
              // A root that may be a kind 11, a kind 9 (not a thread), or not loaded yet.
              const root = pick(o.root)?.id ?? 'f'.repeat(64)
              const pubkey = o.author === 0 ? ME : (OTHERS[o.author - 1] as string)
              e = event(
                1111,
                pubkey,
                o.at,
                [
                  ['E', root],
                  ['K', '11'],
                  ['e', root],
                ],
                `comment ${n}`,
              )
            } else if (o.op === 'modDelete') {
              const victim = pick(o.target)
              if (victim) e = event(9005, RELAY_KEY, 20, [['e', victim.id]], '')
            } else if (o.op === 'authorDelete') {
              const victim = pick(o.target)
              if (victim) e = event(5, victim.pubkey, 20, [['e', victim.id]], '')
            } else {
              const t = pick(o.target)
              const ctx =
                o.ctx === 'channel' ? CHANNEL : o.ctx === 'thread' ? `thread:${t?.id}` : `msg:${t?.id}`
              if (ownMarks && o.ctx === 'channel') g.group.markRead(o.at)
              else rs.markRead(ctx, o.at) // another device's blob
            }
            if (e) {
              sent.push(e)
              // Half the events come back from the store (a restart), half from the relay.
              if (deferred) late.push(e)
              else g.ingest(e, { fromStore: n % 2 === 0 })
            }
            // Without a check per step the index is first built from the whole timeline at once.
            if (checkEach) check()
          }
          check()
          for (const e of late.reverse()) {
            g.ingest(e)
            check()
          }
          void g.close()
        },
      ),
      { numRuns: 300 },
    )
  })

  it('recounts when another device’s blob moves a frontier, without any new event', () => {
    const rs = movingReadState()
    const g = offlineGroup({ readState: rs })
    const rows = [1, 2, 3, 4].map((t) => event(9, OTHERS[0] as string, t, [], `m${t}`))
    const root = event(11, OTHERS[1] as string, 5, [['title', 'plans']], 'what next?')
    const reply = event(
      1111,
      OTHERS[0] as string,
      6,
      [
        ['E', root.id],
        ['K', '11'],
        ['e', root.id],
      ],
      'friday',
    )
    g.ingestMany([...rows, root, reply])
    expect(g.snapshot().unread).toBe(5)
    expect(g.snapshot().unreadThreads).toEqual([root.id])
    let updates = 0
    g.subscribe((e) => {
      if (e.type === 'updated') updates++
    })
    rs.markRead(CHANNEL, 3) // the blob arrives
    expect(g.snapshot().unread).toBe(2)
    rs.markRead(`thread:${root.id}`, 6)
    expect(g.snapshot().unreadThreads).toEqual([])
    rs.markRead(`msg:${rows[3]!.id}`, 4)
    expect(g.group.unread()).toBe(1) // only the thread root is left
    return Promise.resolve().then(() => expect(updates).toBe(1)) // coalesced into one `updated`
  })
})
