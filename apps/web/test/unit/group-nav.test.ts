import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { type NavGroup, nextGroup } from '../../src/lib/group-nav'

const g = (key: string, unread = 0, status = 'member'): NavGroup => ({ key, unread, access: { status } })

describe('nextGroup (Alt+↑/↓, Alt+Shift+↑/↓)', () => {
  const groups = [g('a'), g('b', 2), g('c'), g('d', 1), g('e', 4, 'pending')]

  test('steps to the neighbour and stops at the ends', () => {
    expect(nextGroup(groups, 'c', 1, false)).toBe('d')
    expect(nextGroup(groups, 'c', -1, false)).toBe('b')
    expect(nextGroup(groups, 'a', -1, false)).toBe('a')
    expect(nextGroup(groups, 'e', 1, false)).toBe('e')
    expect(nextGroup(groups, undefined, 1, false)).toBe('a')
    expect(nextGroup(groups, undefined, -1, false)).toBe('e')
    expect(nextGroup([], undefined, 1, false)).toBeUndefined()
  })

  test('with Shift, skips read groups and groups it is not a member of, wrapping around', () => {
    expect(nextGroup(groups, 'a', 1, true)).toBe('b')
    expect(nextGroup(groups, 'b', 1, true)).toBe('d')
    expect(nextGroup(groups, 'd', 1, true)).toBe('b')
    expect(nextGroup(groups, 'b', -1, true)).toBe('d')
    expect(nextGroup([g('a'), g('b')], 'a', 1, true)).toBeUndefined()
  })

  test('property: the answer is always a listed group, and with Shift an unread member group other than the current', () => {
    const arb = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 8 }).chain((keys) =>
      fc.tuple(
        fc.constant(keys),
        fc.array(fc.nat(3), { minLength: keys.length, maxLength: keys.length }),
        fc.array(fc.constantFrom('member', 'pending', 'unknown'), {
          minLength: keys.length,
          maxLength: keys.length,
        }),
        fc.option(fc.constantFrom(...keys, 'gone'), { nil: undefined }),
        fc.constantFrom(-1 as const, 1 as const),
      ),
    )
    fc.assert(
      fc.property(arb, ([keys, unread, status, current, dir]) => {
        const list = keys.map((k, i) => g(k, unread[i], status[i]))
        const plain = nextGroup(list, current, dir, false)
        if (list.length > 0) expect(keys).toContain(plain)
        const unreadNext = nextGroup(list, current, dir, true)
        const candidates = list.filter(
          (x) => x.unread > 0 && x.access.status === 'member' && x.key !== current,
        )
        if (candidates.length === 0) expect(unreadNext).toBeUndefined()
        else expect(candidates.map((x) => x.key)).toContain(unreadNext)
      }),
    )
  })
})
