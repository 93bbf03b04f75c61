/**
 * The head of a stored answer (newest first, ties latest arrival first): which events went to the
 * relay after those of their second the device holds, and are taken oldest first as live arrivals.
 */
import type { NostrEvent } from 'nostr-tools/core'
import { describe, expect, it } from 'vitest'
import { BacklogHead } from '../src/groups/backlog-head'

const ev = (content: string, created_at: number) => ({ id: content, created_at, content }) as NostrEvent
const names = (events: NostrEvent[]) => events.map((e) => e.content)

describe('BacklogHead', () => {
  it('holds what comes before the first event held, and gives it back oldest first', () => {
    const head = new BacklogHead()
    head.start()
    expect(head.hold(ev('c', 10), 5)).toBe(true)
    expect(head.hold(ev('b', 10), 5)).toBe(true)
    expect(names(head.met(10))).toEqual(['b', 'c'])
    // Listed after an event held of its second: it arrived before it.
    expect(head.hold(ev('a', 10), 5)).toBe(false)
    expect(head.end()).toEqual([])
  })

  it('an event held of a newer second does not end the head of an older one', () => {
    const head = new BacklogHead()
    head.start()
    // The device holds "later" (second 11) and part of second 10; another device, its clock
    // behind, wrote c and d into second 10 after what the device holds of it.
    expect(names(head.met(11))).toEqual([])
    expect(head.hold(ev('d', 10), 5)).toBe(true)
    expect(head.hold(ev('c', 10), 5)).toBe(true)
    expect(names(head.met(10))).toEqual(['c', 'd'])
    expect(head.hold(ev('a', 10), 5)).toBe(false)
  })

  it('takes what is older than every row held, and the rest of its second, as a page', () => {
    const head = new BacklogHead()
    head.start()
    expect(head.hold(ev('y', 4), 5)).toBe(false)
    // Listed after an event of its second taken as a page: older still.
    expect(head.hold(ev('x', 4), 4)).toBe(false)
    expect(head.end()).toEqual([])
  })

  it('has no head while the group holds nothing, nor once the answer ended', () => {
    const head = new BacklogHead()
    head.start()
    expect(head.hold(ev('a', 10), undefined)).toBe(false)
    expect(head.hold(ev('b', 10), 5)).toBe(false)
    head.start()
    expect(head.hold(ev('c', 10), 5)).toBe(true)
    expect(names(head.end())).toEqual(['c'])
    expect(head.hold(ev('d', 10), 5)).toBe(false)
  })
})
