import { TimelineWindow } from '@roost/nip29'
import fc from 'fast-check'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { backoffDelay, groupSubscriptionId, isPreviousRejection, Timeline } from '../src'

const me = generateSecretKey()
const mePk = getPublicKey(me)
const other = generateSecretKey()
const admin = generateSecretKey()
const adminPk = getPublicKey(admin)

function ev(secret: Uint8Array, kind: number, content: string, tags: string[][] = [], createdAt = 1_000) {
  return finalizeEvent({ kind, content, created_at: createdAt, tags: [['h', 'g'], ...tags] }, secret)
}

describe('Timeline (the render fold)', () => {
  it('folds reactions per emoji and pubkey onto their target, and marks ours', () => {
    const t = new Timeline(mePk, () => false)
    const msg = ev(other, 9, 'hi')
    t.add(ev(me, 7, '+', [['e', msg.id]], 1_001)) // before its target arrives
    t.add(msg)
    t.add(ev(other, 7, '+', [['e', msg.id]], 1_002))
    t.add(ev(other, 7, '🔥', [['e', msg.id]], 1_003))
    const [m] = t.messages()
    expect(m!.reactions).toEqual([
      { emoji: '+', count: 2, pubkeys: expect.arrayContaining([mePk, getPublicKey(other)]), mine: true },
      { emoji: '🔥', count: 1, pubkeys: [getPublicKey(other)], mine: false },
    ])
  })

  it('keeps row objects and the array identical until something changes', () => {
    const t = new Timeline(mePk, () => false)
    const a = ev(other, 9, 'a', [], 1)
    const b = ev(other, 9, 'b', [], 2)
    t.add(a)
    t.add(b)
    const first = t.messages()
    expect(t.messages()).toBe(first)
    t.add(ev(me, 7, '+', [['e', b.id]], 3))
    const second = t.messages()
    expect(second).not.toBe(first)
    expect(second[0]).toBe(first[0]) // untouched row: same object
    expect(second[1]).not.toBe(first[1])
    expect(Object.isFrozen(second)).toBe(true)
  })

  it('puts kind 1111 comments under their kind 11 thread, not in the channel', () => {
    const t = new Timeline(mePk, () => false)
    const root = ev(other, 11, 'body', [['title', 'Plan']], 10)
    t.add(root)
    t.add(
      ev(
        me,
        1111,
        'c1',
        [
          ['E', root.id, '', root.pubkey],
          ['K', '11'],
        ],
        11,
      ),
    )
    t.add(
      ev(
        other,
        1111,
        'c2',
        [
          ['E', root.id, '', root.pubkey],
          ['K', '11'],
        ],
        12,
      ),
    )
    expect(t.messages().map((m) => m.kind)).toEqual([11])
    expect(t.messages()[0]!.thread).toEqual({ title: 'Plan', comments: 2, lastCommentAt: 12 })
    expect(t.threads()[0]!.comments.map((c) => c.content)).toEqual(['c1', 'c2'])
  })

  it('applies a moderator’s 9005 and an author’s kind 5, but not a stranger’s', () => {
    const t = new Timeline(mePk, (pk) => pk === adminPk)
    const a = ev(other, 9, 'spam', [], 1)
    const b = ev(other, 9, 'regret', [], 2)
    const c = ev(other, 9, 'fine', [], 3)
    for (const e of [a, b, c]) t.add(e)
    t.add(ev(admin, 9005, '', [['e', a.id]], 4))
    t.add(ev(other, 5, '', [['e', b.id]], 5))
    t.add(ev(me, 5, '', [['e', c.id]], 6)) // not the author
    t.add(ev(me, 9005, '', [['e', c.id]], 7)) // not a moderator
    expect(t.messages().map((m) => m.content)).toEqual(['fine'])
  })

  it('quotes replies by id', () => {
    const t = new Timeline(mePk, () => false)
    const parent = ev(other, 9, 'q')
    const reply = ev(
      me,
      9,
      'a',
      [
        ['e', parent.id],
        ['q', parent.id, '', parent.pubkey],
      ],
      1_001,
    )
    t.add(parent)
    t.add(reply)
    expect(t.messages()[1]!.replyTo).toEqual([parent.id])
    expect(t.messages()[1]!.mine).toBe(true)
  })

  it('counts unread rows after a frontier, never our own', () => {
    const t = new Timeline(mePk, () => false)
    t.add(ev(other, 9, 'old', [], 5))
    t.add(ev(other, 9, 'new', [], 20))
    t.add(ev(me, 9, 'mine', [], 21))
    t.add(ev(other, 7, '+', [['e', 'x'.repeat(64)]], 22))
    expect(t.countAfter(10)).toBe(1)
    expect(t.countAfter(0)).toBe(2)
  })

  it('property: any arrival order gives each row once, by created_at, then in arrival order (decision 12)', () => {
    const events = Array.from({ length: 12 }, (_, i) =>
      ev(i % 2 ? other : me, i % 3 === 0 ? 1 : 9, `m${i}`, [], 100 + (i % 4)),
    )
    fc.assert(
      fc.property(
        fc.shuffledSubarray(events, { minLength: events.length }),
        fc.integer({ min: 0, max: 11 }),
        (order, dup) => {
          const t = new Timeline(mePk, () => false)
          for (const e of order) t.add(e)
          expect(t.add(order[dup]!)).toBe('duplicate')
          const sorted = [...order].sort(
            (a, b) => a.created_at - b.created_at || order.indexOf(a) - order.indexOf(b),
          )
          expect(t.messages().map((m) => m.id)).toEqual(sorted.map((e) => e.id))
        },
      ),
    )
  })

  it('property: the rows and the `previous` window keep one order, live or from history (decision 21)', () => {
    const events = Array.from({ length: 16 }, (_, i) => ev(i % 2 ? other : me, 9, `m${i}`, [], 100 + (i % 3)))
    fc.assert(
      fc.property(
        fc.shuffledSubarray(events, { minLength: events.length }),
        fc.array(fc.boolean(), { minLength: events.length, maxLength: events.length }),
        (order, older) => {
          const t = new Timeline(mePk, () => false)
          const window = new TimelineWindow()
          order.forEach((e, i) => {
            t.add(e, { older: older[i] })
            window.push(e, { older: older[i] })
          })
          expect(t.messages().map((m) => m.id)).toEqual(
            window
              .events()
              .reverse()
              .map((e) => e.id),
          )
        },
      ),
    )
  })
})

describe('Timeline: one second’s rows after the rows their `previous` names (decision 21)', () => {
  it('property: a conversation in one second, each message naming the last, shows in that order however it arrived, live or in pages', () => {
    const chain: ReturnType<typeof ev>[] = []
    for (let i = 0; i < 10; i++) {
      const last = chain.at(-1)
      chain.push(ev(i % 2 ? other : me, 9, `m${i}`, last ? [['previous', last.id.slice(0, 8)]] : [], 500))
    }
    fc.assert(
      fc.property(
        fc.shuffledSubarray(chain, { minLength: chain.length }),
        fc.array(fc.boolean(), { minLength: chain.length, maxLength: chain.length }),
        (order, older) => {
          const t = new Timeline(mePk, () => false)
          order.forEach((e, i) => {
            t.add(e, { older: older[i] })
          })
          expect(t.messages().map((m) => m.content)).toEqual(chain.map((e) => e.content))
        },
      ),
    )
  })
})

describe('small pool rules', () => {
  it('backoff grows, stays within [half, full] of its ceiling, and never exceeds the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (attempt, r) => {
          const d = backoffDelay(attempt, { baseMs: 100, maxMs: 5_000 }, () => r)
          const ceiling = Math.min(5_000, 100 * 2 ** attempt)
          expect(d).toBeGreaterThanOrEqual(Math.floor(ceiling / 2))
          expect(d).toBeLessThanOrEqual(ceiling)
        },
      ),
    )
    expect(backoffDelay(0, {}, () => 0)).toBe(250)
  })

  it('group subscription ids are grp-<8 hex>, stable, and at most 64 characters', () => {
    const key = `wss://${'a'.repeat(200)}.example.com'${'b'.repeat(500)}`
    const id = groupSubscriptionId(key)
    expect(id).toMatch(/^grp-[0-9a-f]{8}$/)
    expect(groupSubscriptionId(key)).toBe(id)
    expect(groupSubscriptionId(key, 1)).not.toBe(id)
    expect(groupSubscriptionId("wss://a.com'x")).not.toBe(groupSubscriptionId("wss://b.com'x"))
  })

  it('recognises previous rejections from every relay family, and nothing else', () => {
    expect(isPreviousRejection("blocked: previous id 'abcd1234' wasn't found in this relay")).toBe(true)
    expect(isPreviousRejection("blocked: previous id 'abcd1234' wasn't found in this group")).toBe(true)
    expect(isPreviousRejection('blocked: at least 3 previous references are required, got 1')).toBe(true)
    expect(isPreviousRejection('blocked: event too old')).toBe(false)
    expect(isPreviousRejection('restricted: not a member')).toBe(false)
  })
})
