import { describe, expect, test } from 'vitest'
import { announcement } from '../../src/components/NewMessagesAnnouncer'
import type { MessageItem } from '../../src/model/types'

const names: Record<string, string> = { b: 'Bob', a: 'Ada', c: 'Cy', d: 'Dee' }
const nameOf = (pubkey: string) => names[pubkey] ?? pubkey
let n = 0
function msg(pubkey: string, content: string, extra: Partial<MessageItem> = {}): MessageItem {
  n++
  return { id: `m${n}`, pubkey, kind: 9, content, createdAt: n, reactions: [], ...extra }
}

describe('what the live region says about new messages', () => {
  test('one message is read with its author and text, on one line and cut short', () => {
    expect(announcement([msg('b', 'Lunch\n\nat noon?')], nameOf)).toBe('New message from Bob: Lunch at noon?')
    const long = announcement([msg('b', 'x'.repeat(500))], nameOf)
    expect(long.length).toBeLessThan(170)
    expect(long.endsWith('…')).toBe(true)
    expect(announcement([msg('a', '', { kind: 11, title: 'Release plan' })], nameOf)).toBe(
      'New message from Ada: Release plan',
    )
  })

  test('several are one summary naming who wrote, in order of arrival, each name once', () => {
    expect(announcement([msg('b', '1'), msg('b', '2'), msg('b', '3')], nameOf)).toBe(
      '3 new messages from Bob',
    )
    expect(announcement([msg('b', '1'), msg('a', '2'), msg('b', '3')], nameOf)).toBe(
      '3 new messages from Bob and Ada',
    )
    expect(announcement([msg('b', '1'), msg('a', '2'), msg('c', '3')], nameOf)).toBe(
      '3 new messages from Bob, Ada and Cy',
    )
    expect(announcement([msg('b', '1'), msg('a', '2'), msg('c', '3'), msg('d', '4')], nameOf)).toBe(
      '4 new messages from Bob, Ada and 2 others',
    )
  })

  test('nothing new says nothing', () => {
    expect(announcement([], nameOf)).toBe('')
  })
})
