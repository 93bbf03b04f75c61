import type { NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { TimelineWindow } from '../src/index'
import { alice, aliceSecret, bob, bobSecret, carolSecret, hexId, signed } from './helpers'

function fake(n: number, pubkey: string, createdAt = n, kind = 9): NostrEvent {
  return {
    id: hexId(n),
    pubkey,
    created_at: createdAt,
    kind,
    tags: [['h', 'g']],
    content: '',
    sig: '0'.repeat(128),
  }
}

describe('TimelineWindow.previousTag', () => {
  it('is undefined when the window is empty or holds only my events', () => {
    const w = new TimelineWindow()
    expect(w.previousTag(alice)).toBeUndefined()
    w.push(signed(aliceSecret, 9, [['h', 'g']]))
    expect(w.previousTag(alice)).toBeUndefined()
  })

  it('takes 8-hex prefixes of the 3 newest events by others, in one tag', () => {
    const w = new TimelineWindow()
    for (let n = 1; n <= 6; n++) w.push(fake(n, bob))
    expect(w.previousTag(alice)).toEqual([
      'previous',
      hexId(6).slice(0, 8),
      hexId(5).slice(0, 8),
      hexId(4).slice(0, 8),
    ])
  })

  it('excludes my own events', () => {
    const w = new TimelineWindow()
    w.push(fake(1, bob))
    w.push(fake(2, alice))
    w.push(fake(3, alice))
    expect(w.previousTag(alice)).toEqual(['previous', '00000001'])
  })

  it('uses events of any kind, real and signed', () => {
    const w = new TimelineWindow()
    const reaction = signed(bobSecret, 7, [['h', 'g']], { content: '+', createdAt: 5 })
    const put = signed(carolSecret, 9000, [['h', 'g']], { createdAt: 6 })
    w.push(reaction)
    w.push(put)
    expect(w.previousTag(alice)).toEqual(['previous', put.id.slice(0, 8), reaction.id.slice(0, 8)])
  })

  it('keeps prefixes distinct', () => {
    const w = new TimelineWindow()
    const a = { ...fake(1, bob), id: `abcdef01${'1'.repeat(56)}` }
    const b = { ...fake(2, bob), id: `abcdef01${'2'.repeat(56)}` }
    w.push(a)
    w.push(b)
    w.push(fake(3, bob, 0))
    expect(w.previousTag(alice)).toEqual(['previous', 'abcdef01', '00000003'])
  })
})

describe('TimelineWindow.push', () => {
  it('deduplicates by id', () => {
    const w = new TimelineWindow()
    const e = fake(1, bob)
    w.push(e)
    w.push({ ...e })
    expect(w.size).toBe(1)
  })

  it('keeps the newest 50, newest first, whatever the arrival order', () => {
    const w = new TimelineWindow()
    const order = Array.from({ length: 120 }, (_, i) => (i * 37) % 120)
    for (const n of order) w.push(fake(n + 1, bob))
    expect(w.size).toBe(50)
    expect(w.events().map((e) => e.created_at)).toEqual(Array.from({ length: 50 }, (_, i) => 120 - i))
    w.push(fake(500, bob, 1))
    expect(w.size).toBe(50)
    expect(w.events().some((e) => e.id === hexId(500))).toBe(false)
  })

  it('orders equal timestamps by id, and honours a custom capacity', () => {
    const w = new TimelineWindow(2)
    w.push(fake(3, bob, 10))
    w.push(fake(1, bob, 10))
    w.push(fake(2, bob, 10))
    expect(w.events().map((e) => e.id)).toEqual([hexId(1), hexId(2)])
    expect(new TimelineWindow(0).capacity).toBe(50)
  })

  it('clear empties it, so a refill starts fresh', () => {
    const w = new TimelineWindow()
    w.push(fake(1, bob))
    w.clear()
    expect([w.size, w.previousTag(alice)]).toEqual([0, undefined])
    w.push(fake(1, bob))
    expect(w.size).toBe(1)
  })

  it('ignores values that are not events', () => {
    const w = new TimelineWindow()
    for (const junk of [
      null,
      {},
      { id: 'short', created_at: 1 },
      { id: hexId(1) },
      { id: hexId(1), created_at: Number.NaN },
    ]) {
      w.push(junk as unknown as NostrEvent)
    }
    expect(w.size).toBe(0)
  })
})
