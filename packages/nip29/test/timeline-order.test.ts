import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { orderTies, previousRefs, type TimelineTied, timelineOrder } from '../src/index'

const SECOND = 1_700_000_000

/** An event of one second with an id of our choosing and `previous` references to others. */
function tied(id: string, refs: string[] = []): TimelineTied {
  return { id, created_at: SECOND, tags: [['h', 'g'], ...(refs.length ? [['previous', ...refs]] : [])] }
}

const hex = (n: number, fill = '0') => n.toString(16).padStart(8, '0') + fill.repeat(56)
const ids = (events: readonly TimelineTied[]) => events.map((e) => e.id)

describe('previousRefs', () => {
  it('reads the values of every previous tag that can name an event: 8 to 64 lowercase hex', () => {
    const e = {
      tags: [
        ['previous', 'a1b2c3d4', 'ABCDEF12', 'a1b2c3', `${'f'.repeat(64)}`, `${'f'.repeat(65)}`],
        ['h', 'a1b2c3d4'],
        ['previous', '0123456789'],
      ],
    }
    expect(previousRefs(e)).toEqual(['a1b2c3d4', 'f'.repeat(64), '0123456789'])
  })
})

describe('orderTies (decision 21): the relay’s order, an event after the ones its previous names', () => {
  it('keeps the relay’s order when nothing is named, or when it already has each event after the ones it names', () => {
    const a = tied(hex(3))
    const b = tied(hex(1), [hex(3).slice(0, 8)])
    const c = tied(hex(2))
    const seq = new Map([
      [a.id, 1],
      [b.id, 2],
      [c.id, 3],
    ])
    expect(ids(orderTies([c, b, a], (e) => seq.get(e.id)!))).toEqual([a.id, b.id, c.id])
    // no sequence (0 for all): the id decides, as timelineOrder does
    expect(ids(orderTies([c, a], () => 0))).toEqual([c.id, a.id].sort())
  })

  it('puts an answer after its question when a relay ordering ties by id gave it first', () => {
    const question = tied(hex(9))
    const answer = tied(hex(1), [hex(9).slice(0, 8)])
    const followUp = tied(hex(5), [hex(1).slice(0, 8)])
    // the page of an id-ordered relay reversed: ids descending
    const seq = new Map([
      [question.id, -1],
      [followUp.id, -2],
      [answer.id, -3],
    ])
    expect(ids(orderTies([question, answer, followUp], (e) => seq.get(e.id)!))).toEqual([
      question.id,
      answer.id,
      followUp.id,
    ])
  })

  it('breaks a circle of references (forged ids) at the first event in the relay’s order, keeping every event once', () => {
    const a = tied(hex(1), [hex(2).slice(0, 8)])
    const b = tied(hex(2), [hex(1).slice(0, 8)])
    const c = tied(hex(3), [hex(2).slice(0, 8)])
    const seq = new Map([
      [c.id, 1],
      [b.id, 2],
      [a.id, 3],
    ])
    const out = ids(orderTies([a, b, c], (e) => seq.get(e.id)!))
    expect([...out].sort()).toEqual([a.id, b.id, c.id].sort())
    expect(out).toEqual(ids(orderTies([c, a, b], (e) => seq.get(e.id)!)))
  })

  describe('properties', () => {
    // A second of up to 12 events with distinct ids, each naming some earlier-made ones (acyclic:
    // a reference is only to an event made before, as a relay that checks `previous` ensures).
    const second = fc
      .uniqueArray(fc.integer({ min: 0, max: 0xffff }), { minLength: 1, maxLength: 12 })
      .chain((nums) =>
        fc.tuple(
          fc.constant(nums),
          fc.array(fc.array(fc.nat(nums.length), { maxLength: 3 }), {
            minLength: nums.length,
            maxLength: nums.length,
          }),
          fc.array(fc.integer({ min: -50, max: 50 }), { minLength: nums.length, maxLength: nums.length }),
        ),
      )
      .map(([nums, picks, seqs]) => {
        const events: TimelineTied[] = []
        for (const [i, n] of nums.entries()) {
          const refs = (picks[i] ?? [])
            .filter((p) => p < i)
            .map((p) => (events[p] as TimelineTied).id.slice(0, 8))
          events.push(tied(hex(n, 'a'), [...new Set(refs)]))
        }
        const seq = new Map(events.map((e, i) => [e.id, seqs[i] as number]))
        return { events, seq }
      })

    it('has every event once, each after the events of its second it names', () => {
      fc.assert(
        fc.property(second, ({ events, seq }) => {
          const out = orderTies(events, (e) => seq.get(e.id)!)
          expect([...ids(out)].sort()).toEqual([...ids(events)].sort())
          const at = new Map(out.map((e, i) => [e.id, i]))
          for (const e of out)
            for (const ref of previousRefs(e))
              for (const f of out) if (f.id.startsWith(ref)) expect(at.get(f.id)!).toBeLessThan(at.get(e.id)!)
        }),
      )
    })

    it('depends only on the events and their sequences, not on the order they are handed over', () => {
      fc.assert(
        fc.property(second, fc.integer(), ({ events, seq }, salt) => {
          const shuffled = [...events].sort(
            (a, b) => ((a.id.charCodeAt(3) ^ salt) & 7) - ((b.id.charCodeAt(3) ^ salt) & 7),
          )
          expect(ids(orderTies(shuffled, (e) => seq.get(e.id)!))).toEqual(
            ids(orderTies(events, (e) => seq.get(e.id)!)),
          )
        }),
      )
    })

    it('is the relay’s order (timelineOrder) when that order has every event after the ones it names', () => {
      fc.assert(
        fc.property(second, ({ events }) => {
          // sequences in the order the events were made: a relay checking `previous` took them so
          const seq = new Map(events.map((e, i) => [e.id, i]))
          const byRelay = [...events].sort((a, b) => timelineOrder(a, seq.get(a.id)!, b, seq.get(b.id)!))
          expect(ids(orderTies(events, (e) => seq.get(e.id)!))).toEqual(ids(byRelay))
        }),
      )
    })

    it('gives devices with different sequences one order when references chain the whole second', () => {
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.integer({ min: 0, max: 0xffff }), { minLength: 2, maxLength: 12 }),
          fc.array(fc.integer(), { minLength: 12, maxLength: 12 }),
          fc.array(fc.integer(), { minLength: 12, maxLength: 12 }),
          (nums, s1, s2) => {
            const events: TimelineTied[] = []
            for (const n of nums) {
              const last = events.at(-1)
              events.push(tied(hex(n, 'b'), last ? [last.id.slice(0, 8)] : []))
            }
            const one = new Map(events.map((e, i) => [e.id, s1[i] as number]))
            const two = new Map(events.map((e, i) => [e.id, s2[i] as number]))
            expect(ids(orderTies(events, (e) => one.get(e.id)!))).toEqual(ids(events))
            expect(ids(orderTies(events, (e) => two.get(e.id)!))).toEqual(ids(events))
          },
        ),
      )
    })
  })
})
