import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type Contexts, mergeContexts } from '../src'

const contextsArb = fc
  .dictionary(
    fc.constantFrom('a', 'b', 'c', 'd', 'thread:x', 'é', '__proto__'),
    fc.integer({ min: 0, max: 50 }),
    {
      maxKeys: 7,
    },
  )
  .map((d) => mergeContexts(d))

describe('mergeContexts', () => {
  it('spec example: desktop and mobile blobs', () => {
    expect(
      mergeContexts(
        { 'ctx:AAA': 1700000100, 'ctx:BBB': 1700000050 },
        { 'ctx:AAA': 1700000200, 'ctx:CCC': 1700000080 },
      ),
    ).toEqual({ 'ctx:AAA': 1700000200, 'ctx:BBB': 1700000050, 'ctx:CCC': 1700000080 })
  })

  it('spec test vectors: devices A and B', () => {
    const a = { 'group:general': 1700001000, 'group:dev': 1700000500 }
    const b = { 'group:general': 1700001200, 'group:random': 1700000800 }
    expect(mergeContexts(a, b)).toEqual({
      'group:general': 1700001200,
      'group:dev': 1700000500,
      'group:random': 1700000800,
    })
  })

  it('an incoming lower value never lowers state (mobile rollback case)', () => {
    expect(mergeContexts({ c: 100 }, { c: 50 })).toEqual({ c: 100 })
  })

  const eq = (a: Contexts, b: Contexts): void => {
    expect({ ...a }).toEqual({ ...b })
  }
  it('is commutative', () =>
    fc.assert(
      fc.property(contextsArb, contextsArb, (a, b) => {
        eq(mergeContexts(a, b), mergeContexts(b, a))
      }),
    ))
  it('is associative and n-ary equals pairwise', () =>
    fc.assert(
      fc.property(contextsArb, contextsArb, contextsArb, (a, b, c) => {
        eq(mergeContexts(mergeContexts(a, b), c), mergeContexts(a, mergeContexts(b, c)))
        eq(mergeContexts(a, b, c), mergeContexts(mergeContexts(a, b), c))
      }),
    ))
  it('is idempotent with {} as identity', () =>
    fc.assert(
      fc.property(contextsArb, (a) => {
        eq(mergeContexts(a, a), a)
        eq(mergeContexts(a, {}), a)
      }),
    ))
  it('is grow-only: the result is ≥ every input and holds every key', () =>
    fc.assert(
      fc.property(fc.array(contextsArb, { maxLength: 5 }), (maps) => {
        const m = mergeContexts(...maps)
        for (const map of maps) for (const k of Object.keys(map)) expect(m[k]).toBeGreaterThanOrEqual(map[k]!)
        for (const k of Object.keys(m)) expect(maps.some((map) => map[k] === m[k])).toBe(true)
      }),
    ))
})
