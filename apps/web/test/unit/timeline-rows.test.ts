import { describe, expect, test } from 'vitest'
import { buildRows } from '../../src/components/Timeline'
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
})
