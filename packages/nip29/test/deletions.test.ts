import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { GroupId, InvalidArgumentError, KINDS, Withdrawals, withdrawnIds } from '../src/index'
import { alice, aliceSecret, bob, bobSecret, signed } from './helpers'

const id = GroupId.parse('general')
const mine = signed(aliceSecret, 9, [['h', 'general']], { content: 'oops' })
const myReaction = signed(aliceSecret, 7, [
  ['h', 'general'],
  ['e', mine.id],
  ['p', alice],
  ['k', '9'],
])
const theirs = signed(bobSecret, 9, [['h', 'general']], { content: 'hello' })

describe('GroupId.deleteOwn (NIP-09 kind 5)', () => {
  it('carries the h tag, an e tag per event and a k tag per kind', () => {
    const t = id.deleteOwn([mine, myReaction, mine], { reason: 'typo', createdAt: 1_700_000_100 })
    expect(t).toEqual({
      kind: KINDS.deletion,
      content: 'typo',
      created_at: 1_700_000_100,
      tags: [
        ['h', 'general'],
        ['e', mine.id],
        ['e', myReaction.id],
        ['k', '9'],
        ['k', '7'],
      ],
    })
  })

  it('takes one event and a previous tag', () => {
    const t = id.deleteOwn(myReaction, { previous: ['previous', 'abcd1234'], createdAt: 1 })
    expect(t.tags).toEqual([
      ['h', 'general'],
      ['e', myReaction.id],
      ['k', '7'],
      ['previous', 'abcd1234'],
    ])
    expect(t.content).toBe('')
  })

  it('refuses an empty list, events of two authors, and malformed events', () => {
    expect(() => id.deleteOwn([])).toThrow(InvalidArgumentError)
    expect(() => id.deleteOwn([mine, theirs])).toThrow(/one author/)
    expect(() => id.deleteOwn({ id: 'nope', pubkey: alice, kind: 9 })).toThrow(InvalidArgumentError)
    expect(() => id.deleteOwn({ id: mine.id, pubkey: 'x', kind: 9 })).toThrow(InvalidArgumentError)
    expect(() => id.deleteOwn({ id: mine.id, pubkey: alice, kind: -1 })).toThrow(InvalidArgumentError)
    expect(() => id.deleteOwn(null as never)).toThrow(InvalidArgumentError)
  })
})

describe('Withdrawals', () => {
  const ownDeletion = signed(aliceSecret, 5, id.deleteOwn(mine, { createdAt: 1 }).tags)
  const forged = signed(bobSecret, 5, [
    ['h', 'general'],
    ['e', mine.id],
  ])

  it("withdraws an event only by its author's own kind 5", () => {
    const w = Withdrawals.fold([mine, theirs, ownDeletion])
    expect(w.has(mine)).toBe(true)
    expect(w.has(theirs)).toBe(false)
    expect(Withdrawals.fold([mine, forged]).has(mine)).toBe(false)
    expect(withdrawnIds([forged, mine, theirs, ownDeletion])).toEqual([mine.id])
  })

  it('works whichever arrives first, and ignores other kinds and junk', () => {
    const w = Withdrawals.fold([ownDeletion, null as never, { kind: 5 } as never, theirs])
    expect(w.ids([theirs, mine])).toEqual([mine.id])
    const nineNaming = signed(aliceSecret, 9, [['e', mine.id]])
    expect(Withdrawals.fold([nineNaming]).has(mine)).toBe(false)
  })

  it('property: only events whose author named them are withdrawn', () => {
    const events = [mine, myReaction, theirs]
    const secrets = [aliceSecret, bobSecret]
    fc.assert(
      fc.property(
        fc.array(fc.record({ by: fc.integer({ min: 0, max: 1 }), targets: fc.subarray([0, 1, 2]) }), {
          maxLength: 6,
        }),
        (plan) => {
          const deletions = plan.map((p) =>
            signed(
              secrets[p.by] as Uint8Array,
              5,
              p.targets.map((t) => ['e', (events[t] as (typeof events)[0]).id]),
            ),
          )
          const w = Withdrawals.fold([...deletions, ...events])
          for (const e of events) {
            const expected = deletions.some((d) => d.pubkey === e.pubkey && d.tags.some((t) => t[1] === e.id))
            expect(w.has(e)).toBe(expected)
          }
        },
      ),
      { numRuns: 50 },
    )
  })
})

it('alice and bob differ (fixture sanity)', () => {
  expect(alice).not.toBe(bob)
})
