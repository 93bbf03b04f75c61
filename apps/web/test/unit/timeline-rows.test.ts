import { describe, expect, test } from 'vitest'
import { buildRows, lineTime } from '../../src/components/Timeline'
import type { MessageItem } from '../../src/model/types'

const ME = 'a'.repeat(64)
const BOB = 'b'.repeat(64)
const day = 1_700_000_000 - (1_700_000_000 % 86_400) + 12 * 3600

function msg(id: string, pubkey: string, createdAt: number, kind = 9): MessageItem {
  return { id, pubkey, kind, content: id, createdAt, reactions: [] }
}

describe('buildRows', () => {
  test('one day separator per day, the new-messages line before the first unread message of someone else', () => {
    const rows = buildRows(
      [msg('1', BOB, day), msg('2', ME, day + 10), msg('3', BOB, day + 20), msg('4', BOB, day + 86_400)],
      day + 5,
      ME,
    )
    expect(rows.map((r) => (r.type === 'msg' ? r.key : r.type))).toEqual([
      'day',
      '1',
      '2',
      'new',
      '3',
      'day',
      '4',
    ])
  })

  test('no line when everything is read or no frontier is known', () => {
    const messages = [msg('1', BOB, day), msg('2', BOB, day + 10)]
    expect(buildRows(messages, day + 10, ME).some((r) => r.type === 'new')).toBe(false)
    expect(buildRows(messages, undefined, ME).some((r) => r.type === 'new')).toBe(false)
  })

  test('consecutive messages of one author within five minutes are compact; threads never are', () => {
    const rows = buildRows(
      [msg('1', BOB, day), msg('2', BOB, day + 60), msg('3', BOB, day + 600), msg('4', BOB, day + 610, 11)],
      undefined,
      ME,
    )
    const compact = rows.filter((r) => r.type === 'msg').map((r) => (r.type === 'msg' ? r.compact : null))
    expect(compact).toEqual([false, true, false, false])
  })

  test('messages the reader watched arrive get no line, whatever their time; the first unseen one does', () => {
    const list = [
      msg('1', BOB, day),
      msg('2', BOB, day + 10),
      msg('3', BOB, day + 10),
      msg('4', BOB, day + 10),
    ]
    const keys = (seen?: Set<string>) =>
      buildRows(list, seen ? 0 : day + 5, ME, seen).map((r) => (r.type === 'msg' ? r.key : r.type))
    // Seen while at the end: 1, 2 and 4 (4 sorts after 3 though it arrived first, same second).
    expect(keys(new Set(['1', '2', '4']))).toEqual(['day', '1', '2', 'new', '3', '4'])
    expect(keys(new Set(['1', '2', '3', '4']))).toEqual(['day', '1', '2', '3', '4'])
    // Without a seen set the frontier decides, as when the group was opened.
    expect(keys()).toEqual(['day', '1', 'new', '2', '3', '4'])
  })

  test('a message that arrives out of view in the second the reader last read still gets the line', () => {
    // Opened with everything up to `day + 10` read; 1 and 2 watched arrive; 3 arrives in that
    // same second while the reader is scrolled away.
    const list = [msg('1', BOB, day), msg('2', BOB, day + 10), msg('3', BOB, day + 10)]
    const seen = new Set(['1', '2'])
    const keys = buildRows(list, lineTime(day + 10, day + 10), ME, seen).map((r) =>
      r.type === 'msg' ? r.key : r.type,
    )
    expect(keys).toEqual(['day', '1', '2', 'new', '3'])
  })

  test('older pages loaded after the reader watched the end get no line, even in the same second', () => {
    const list = [msg('0a', BOB, day + 10), msg('0b', BOB, day + 10), msg('1', BOB, day + 10)]
    const rows = buildRows(list, lineTime(day + 10, day + 10), ME, new Set(['1']))
    expect(rows.some((r) => r.type === 'new')).toBe(false)
  })

  test('the line time: the frontier at opening until the watched messages are known, then their newest second or the frontier, whichever is later', () => {
    expect(lineTime(day, undefined)).toBe(day)
    expect(lineTime(undefined, undefined)).toBeUndefined()
    expect(lineTime(day, day + 10)).toBe(day + 9)
    expect(lineTime(day + 20, day + 10)).toBe(day + 19)
    expect(lineTime(undefined, day + 10)).toBe(day + 9)
  })
})
