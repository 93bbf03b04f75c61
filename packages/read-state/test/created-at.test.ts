import { describe, expect, it } from 'vitest'
import { createdAtFor } from '../src'

describe('createdAtFor (clock skew, decision e)', () => {
  it('spec vector: relays at 1700001000 and 1700001500, clock 1700001200 → 1700001501', () => {
    expect(createdAtFor(1700001200, [1700001000, 1700001500])).toBe(1700001501)
  })
  it('uses the clock when it is ahead', () => expect(createdAtFor(1700001600, [1700001500])).toBe(1700001600))
  it('clock equal to the max → max + 1', () => expect(createdAtFor(5, [5])).toBe(6))
  it('no prior blob → the clock (floored)', () => {
    expect(createdAtFor(1700000000, [])).toBe(1700000000)
    expect(createdAtFor(1700000000.9, [])).toBe(1700000000)
  })
  it('two publishes in one second strictly increase', () => {
    const first = createdAtFor(100, [])
    expect(createdAtFor(100, [first])).toBe(101)
  })
})
