import { describe, expect, it } from 'vitest'
import {
  coordinate,
  deletionTemplate,
  liveFilter,
  loadFilter,
  ownCoordinateFilter,
  readSlot,
  readStateTags,
} from '../src'

const ev = (tags: string[][], extra: Partial<{ kind: number; content: string; pubkey: string }> = {}) => ({
  kind: 30078,
  content: 'Ax',
  pubkey: 'a'.repeat(64),
  tags,
  ...extra,
})
const T = ['t', 'read-state']

describe('readSlot (event envelope)', () => {
  it.each([
    ['no d tag', [T], 'no-d-tag'],
    ['d without prefix', [['d', 'appdata'], T], 'bad-d-prefix'],
    ['d other:foo', [['d', 'other:foo'], T], 'bad-d-prefix'],
    ['d tag without value', [['d'], T], 'bad-d-prefix'],
    ['two d tags, both valid', [['d', 'read-state:a'], ['d', 'read-state:b'], T], 'multiple-d-tags'],
    ['empty slot', [['d', 'read-state:'], T], 'bad-slot'],
    ['65-character slot', [['d', `read-state:${'a'.repeat(65)}`], T], 'bad-slot'],
    ['non-ASCII slot', [['d', 'read-state:café'], T], 'bad-slot'],
    ['no t tag', [['d', 'read-state:a']], 'no-t-tag'],
    [
      't with another value only',
      [
        ['d', 'read-state:a'],
        ['t', 'other'],
      ],
      'no-t-tag',
    ],
    ['two read-state t tags', [['d', 'read-state:a'], T, T], 'multiple-t-tags'],
  ])('%s is ignored', (_n, tags, reason) => {
    expect(readSlot(ev(tags))).toEqual({ ok: false, reason })
  })

  it('accepts a 64-character slot, control characters (ASCII) and an extra t tag', () => {
    expect(readSlot(ev([['d', `read-state:${'a'.repeat(64)}`], T]))).toEqual({
      ok: true,
      slotId: 'a'.repeat(64),
    })
    expect(readSlot(ev([['d', 'read-state:hello world\n'], T]))).toEqual({
      ok: true,
      slotId: 'hello world\n',
    })
    expect(readSlot(ev([['t', 'other'], ['d', 'read-state:x'], T]))).toEqual({ ok: true, slotId: 'x' })
  })

  it('ignores other kinds, other authors and oversized content', () => {
    const tags = [['d', 'read-state:x'], T]
    expect(readSlot(ev(tags, { kind: 30079 }))).toEqual({ ok: false, reason: 'wrong-kind' })
    expect(readSlot(ev(tags), { pubkey: 'b'.repeat(64) })).toEqual({ ok: false, reason: 'wrong-author' })
    expect(readSlot(ev(tags, { content: 'A'.repeat(87_473) }))).toEqual({ ok: false, reason: 'too-large' })
    expect(readSlot(ev(tags, { content: 'A'.repeat(100) }), { maxContentLength: 99 })).toEqual({
      ok: false,
      reason: 'too-large',
    })
  })
})

describe('envelope builders', () => {
  const pk = 'ab'.repeat(32)
  it('publishes exactly one d and one t tag', () => {
    expect(readStateTags('s1')).toEqual([
      ['d', 'read-state:s1'],
      ['t', 'read-state'],
    ])
  })
  it('builds the spec filters', () => {
    expect(loadFilter(pk, 1_700_000_000)).toEqual({
      kinds: [30078],
      authors: [pk],
      '#t': ['read-state'],
      since: 1_700_000_000 - 7 * 86400,
    })
    expect(loadFilter(pk, 1000, 100).since).toBe(900)
    expect(liveFilter(pk)).toEqual({ kinds: [30078], authors: [pk], '#t': ['read-state'] })
    expect(ownCoordinateFilter(pk, 's1')).toEqual({ kinds: [30078], authors: [pk], '#d': ['read-state:s1'] })
  })
  it('builds a NIP-09 deletion with a and k tags', () => {
    expect(coordinate(pk, 's1')).toBe(`30078:${pk}:read-state:s1`)
    expect(deletionTemplate(pk, ['s1', 's2'], 5)).toEqual({
      kind: 5,
      created_at: 5,
      content: '',
      tags: [
        ['a', `30078:${pk}:read-state:s1`],
        ['a', `30078:${pk}:read-state:s2`],
        ['k', '30078'],
      ],
    })
  })
})
