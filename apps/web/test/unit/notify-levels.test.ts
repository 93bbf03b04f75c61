import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import {
  countBadge,
  loadNotifyLevels,
  notifies,
  quietBadge,
  saveNotifyLevels,
  titleCount,
} from '../../src/model/notify-levels'
import type { NotifyLevel } from '../../src/model/types'

const member = { status: 'member' } as const

describe('notification levels', () => {
  test('all notifies for everything; mentions only and muted only for mentions', () => {
    expect(notifies('all', false)).toBe(true)
    expect(notifies('mentions', false)).toBe(false)
    expect(notifies('muted', false)).toBe(false)
    for (const l of ['all', 'mentions', 'muted'] as const) expect(notifies(l, true)).toBe(true)
  })

  test('a muted group shows no count badge; the title counts unread of all-groups and mentions of the rest', () => {
    expect(countBadge({ unread: 4, notify: 'muted' })).toBe(0)
    expect(countBadge({ unread: 4, notify: 'mentions' })).toBe(0)
    expect(quietBadge({ unread: 4, notify: 'mentions' })).toBe(4)
    expect(quietBadge({ unread: 4, notify: 'all' })).toBe(0)
    expect(quietBadge({ unread: 4, notify: 'muted' })).toBe(0)
    expect(
      titleCount([
        { unread: 3, mentions: 1, notify: 'all', access: member },
        { unread: 5, mentions: 2, notify: 'mentions', access: member },
        { unread: 7, mentions: 1, notify: 'muted', access: member },
        { unread: 9, mentions: 9, notify: 'all', access: { status: 'pending', since: 1 } },
      ]),
    ).toBe(3 + 2 + 1)
  })

  test('property: the title never counts less than the mentions, nor more than everything unread', () => {
    const level = fc.constantFrom<NotifyLevel>('all', 'mentions', 'muted')
    const group = fc
      .record({ unread: fc.nat(50), extra: fc.nat(50), notify: level })
      .map((g) => ({ unread: g.unread + g.extra, mentions: g.unread, notify: g.notify, access: member }))
    fc.assert(
      fc.property(fc.array(group), (groups) => {
        const n = titleCount(groups)
        expect(n).toBeGreaterThanOrEqual(groups.reduce((s, g) => s + g.mentions, 0))
        expect(n).toBeLessThanOrEqual(groups.reduce((s, g) => s + g.unread, 0))
      }),
    )
  })
})

describe('stored levels', () => {
  const saved = new Map<string, string>()
  beforeEach(() => {
    saved.clear()
    ;(globalThis as { localStorage?: unknown }).localStorage = {
      getItem: (k: string) => saved.get(k) ?? null,
      setItem: (k: string, v: string) => void saved.set(k, v),
    }
  })
  afterEach(() => {
    delete (globalThis as { localStorage?: unknown }).localStorage
  })

  test('round-trip per account, keeping only non-default levels', () => {
    saveNotifyLevels('me', { "wss://r'a": 'muted', "wss://r'b": 'all', "wss://r'c": 'mentions' })
    expect(loadNotifyLevels('me')).toEqual({ "wss://r'a": 'muted', "wss://r'c": 'mentions' })
    expect(loadNotifyLevels('someone-else')).toEqual({})
  })

  test('damaged or foreign entries read as the defaults', () => {
    saved.set('roost.notify.me', '{not json')
    expect(loadNotifyLevels('me')).toEqual({})
    saved.set('roost.notify.me', JSON.stringify({ a: 'loud', b: 'muted', c: 1 }))
    expect(loadNotifyLevels('me')).toEqual({ b: 'muted' })
    saved.set('roost.notify.me', '[1,2]')
    expect(loadNotifyLevels('me')).toEqual({})
  })
})
