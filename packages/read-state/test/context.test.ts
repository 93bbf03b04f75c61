import { describe, expect, it } from 'vitest'
import {
  contextKind,
  contextTarget,
  effective,
  InvalidEventIdError,
  isUnread,
  messageContext,
  replyFrontier,
  threadContext,
} from '../src'

const X = 'ab'.repeat(32)
const M = 'cd'.repeat(32)

describe('contextKind (regex rule)', () => {
  it('recognises well-formed thread: and msg: keys', () => {
    expect(contextKind(`thread:${X}`)).toBe('thread')
    expect(contextKind(`msg:${X}`)).toBe('msg')
    expect(contextTarget(`thread:${X}`)).toBe(X)
    expect(contextTarget(`msg:${M}`)).toBe(M)
  })
  it.each([
    'thread:SHORT',
    `thread:${X.toUpperCase()}`,
    'msg:not-hex',
    'msg:',
    `msg:thread:${X}`,
    `thread:${X}0`,
  ])('%s is opaque', (key) => {
    expect(contextKind(key)).toBe('opaque')
    expect(contextTarget(key)).toBeUndefined()
  })
  it('bare keys are channels', () => {
    expect(contextKind("wss://groups.example.com'general")).toBe('channel')
    expect(contextKind(X)).toBe('channel')
  })
  it('builders refuse ids that would become opaque keys', () => {
    expect(threadContext(X)).toBe(`thread:${X}`)
    expect(messageContext(M)).toBe(`msg:${M}`)
    expect(() => threadContext(X.toUpperCase())).toThrow(InvalidEventIdError)
    expect(() => messageContext('abc')).toThrow(InvalidEventIdError)
  })
})

describe('effective (hierarchical frontier)', () => {
  const parentOf = (ctx: string) =>
    contextKind(ctx) === 'thread' || contextKind(ctx) === 'msg' ? 'ch' : undefined
  it('channel: its own value', () =>
    expect(effective('ch', { ch: 150, [`thread:${X}`]: 300 }, parentOf)).toBe(150))
  it('spec example: thread 100, channel 150 → 150; reply at 140 read, 160 unread', () => {
    const merged = { [`thread:${X}`]: 100, ch: 150 }
    const f = effective(`thread:${X}`, merged, parentOf)
    expect(f).toBe(150)
    expect(isUnread(140, f)).toBe(false)
    expect(isUnread(160, f)).toBe(true)
    expect(isUnread(150, f)).toBe(false)
  })
  it('keeps a newer thread value', () =>
    expect(effective(`thread:${X}`, { [`thread:${X}`]: 300, ch: 150 }, parentOf)).toBe(300))
  it('msg: the parent is the channel, not the thread (msg 90, thread 200, channel 50 → 90)', () => {
    expect(effective(`msg:${M}`, { [`msg:${M}`]: 90, [`thread:${X}`]: 200, ch: 50 }, parentOf)).toBe(90)
  })
  it('decision j: a reply folds in its thread (→ 200)', () => {
    expect(
      replyFrontier({ [`msg:${M}`]: 90, [`thread:${X}`]: 200, ch: 50 }, { channel: 'ch', root: X, id: M }),
    ).toBe(200)
    expect(replyFrontier({}, { channel: 'ch', root: X, id: M })).toBeUndefined()
  })
  it('one side present; both missing → unknown (unread)', () => {
    expect(effective(`thread:${X}`, { ch: 300 }, parentOf)).toBe(300)
    expect(effective(`thread:${X}`, {}, parentOf)).toBeUndefined()
    expect(isUnread(1, undefined)).toBe(true)
  })
  it('unresolvable parent or no resolver → own value', () => {
    expect(effective(`thread:${X}`, { [`thread:${X}`]: 100, ch: 300 }, () => undefined)).toBe(100)
    expect(effective(`thread:${X}`, { [`thread:${X}`]: 100, ch: 300 })).toBe(100)
  })
  it('opaque keys never take part in the hierarchy', () => {
    expect(effective('thread:SHORT', { 'thread:SHORT': 1, ch: 300 }, () => 'ch')).toBe(1)
  })
  it('a cyclic resolver terminates', () => {
    const cyclic = (c: string) => (c === `thread:${X}` ? `msg:${M}` : `thread:${X}`)
    expect(effective(`thread:${X}`, { [`msg:${M}`]: 5 }, cyclic)).toBe(5)
  })
})
