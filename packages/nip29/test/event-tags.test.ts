import { describe, expect, it } from 'vitest'
import { GroupId, groupIdOf, newestEvent } from '../src/index'
import { aliceSecret, signed, state } from './helpers'

describe('groupIdOf', () => {
  it('reads the first h tag of a group event built here', () => {
    const e = signed(aliceSecret, 9, GroupId.parse('general').message('hi').tags)
    expect(groupIdOf(e)).toBe('general')
    expect(
      groupIdOf(
        signed(aliceSecret, 9, [
          ['h', 'a'],
          ['h', 'b'],
        ]),
      ),
    ).toBe('a')
  })

  it('is undefined without a usable h tag (state events use d)', () => {
    expect(groupIdOf(state(39000, 'general', []))).toBeUndefined()
    expect(groupIdOf(signed(aliceSecret, 9, [['h']]))).toBeUndefined()
    expect(groupIdOf(signed(aliceSecret, 9, [['h', ' ']]))).toBeUndefined()
    expect(groupIdOf(null as never)).toBeUndefined()
  })
})

describe('newestEvent', () => {
  it('picks the highest created_at, then the lowest id', () => {
    const a = { id: 'b'.repeat(64), created_at: 10 }
    const b = { id: 'a'.repeat(64), created_at: 10 }
    const c = { id: '0'.repeat(64), created_at: 9 }
    expect(newestEvent([a, b, c])).toBe(b)
    expect(newestEvent([c, b, a])).toBe(b)
    expect(newestEvent([c, { ...c, created_at: 11 }])?.created_at).toBe(11)
    expect(newestEvent([])).toBeUndefined()
  })
})
