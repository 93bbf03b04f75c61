import { describe, expect, it } from 'vitest'
import {
  channelReadMark,
  InvalidEventIdError,
  mergeContexts,
  messageReadMark,
  threadReadMark,
  type UnreadRow,
  unreadCount,
} from '../src'

const ME = 'a'.repeat(64)
const THEM = 'b'.repeat(64)
const id = (n: number) => n.toString(16).padStart(64, '0')
const row = (n: number, createdAt: number, pubkey = THEM): UnreadRow => ({ id: id(n), createdAt, pubkey })
const CH = "wss://groups.example.com'general"

describe('unreadCount (decision k, hierarchical rule, Write Discipline)', () => {
  const top = [row(1, 100), row(2, 200), row(3, 300, ME), row(4, 400)]
  const root = id(50)
  const threads = [{ root, replies: [row(51, 350), row(52, 500)] }]

  it('with no read state everything not by us is unread', () => {
    const r = unreadCount({ channel: CH, topLevel: top, threads, me: ME, contexts: {} })
    expect(r.messages).toBe(3)
    expect(r.threads).toEqual([root])
    expect(r.firstUnread?.id).toBe(id(1))
  })

  it('equality is read; our own messages never count', () => {
    const r = unreadCount({ channel: CH, topLevel: top, me: ME, contexts: { [CH]: 200 } })
    expect(r.messages).toBe(1)
    expect(r.firstUnread?.createdAt).toBe(400)
  })

  it('marking the channel read with the same row set clears the badge, and a newer reply keeps the thread unread', () => {
    const mark = channelReadMark(CH, top)!
    expect(mark).toEqual({ ctx: CH, ts: 400 })
    const r = unreadCount({ channel: CH, topLevel: top, threads, me: ME, contexts: { [mark.ctx]: mark.ts } })
    expect(r.messages).toBe(0)
    // reply 51 (350) is covered by the channel term; reply 52 (500) is newer than every top-level message
    expect(r.threads).toEqual([root])
  })

  it('marking a thread read advances only thread:<root>; top-level rows stay unread', () => {
    const mark = threadReadMark(root, threads[0]!.replies)!
    expect(mark).toEqual({ ctx: `thread:${root}`, ts: 500 })
    const r = unreadCount({ channel: CH, topLevel: top, threads, me: ME, contexts: { [mark.ctx]: mark.ts } })
    expect(r.threads).toEqual([])
    expect(r.messages).toBe(3)
  })

  it('a per-message mark covers only that message, never a later reply (decision j folds in the thread)', () => {
    const m = messageReadMark(row(52, 500))
    expect(m).toEqual({ ctx: `msg:${id(52)}`, ts: 500 })
    const contexts = mergeContexts({ [m.ctx]: m.ts })
    const r = unreadCount({ channel: CH, topLevel: [], threads, me: ME, contexts })
    expect(r.threads).toEqual([root]) // reply 51 is still unread
    const both = mergeContexts(contexts, { [messageReadMark(row(51, 350)).ctx]: 350 })
    expect(unreadCount({ channel: CH, topLevel: [], threads, me: ME, contexts: both }).threads).toEqual([])
    // a top-level message marked read by its own msg: key
    expect(
      unreadCount({ channel: CH, topLevel: [row(9, 10)], contexts: { [`msg:${id(9)}`]: 10 } }).messages,
    ).toBe(0)
  })

  it('a thread whose only unread replies are ours is read', () => {
    const r = unreadCount({
      channel: CH,
      topLevel: [],
      threads: [{ root, replies: [row(60, 999, ME)] }],
      me: ME,
      contexts: {},
    })
    expect(r.threads).toEqual([])
  })

  it('mark helpers: no rows, no mark; ids must be 64 lowercase hex', () => {
    expect(channelReadMark(CH, [])).toBeUndefined()
    expect(threadReadMark(root, [])).toBeUndefined()
    expect(() => threadReadMark('ROOT', [row(1, 1)])).toThrow(InvalidEventIdError)
    expect(() => messageReadMark({ id: 'x', createdAt: 1 })).toThrow(InvalidEventIdError)
  })
})
