import { describe, expect, it } from 'vitest'
import { foldMembership, membershipAfterReply } from '../src/index'
import { alice, bob, bobSecret, relayKey, relaySecret, signed, state } from './helpers'

const put = (at: number, who = alice) =>
  signed(
    relaySecret,
    9000,
    [
      ['h', 'g'],
      ['p', who],
    ],
    { createdAt: at },
  )
const remove = (at: number, who = alice) =>
  signed(
    relaySecret,
    9001,
    [
      ['h', 'g'],
      ['p', who],
    ],
    { createdAt: at },
  )

describe('foldMembership', () => {
  it('is unknown without any event naming me', () => {
    expect(foldMembership([], alice)).toEqual({ status: 'unknown' })
    expect(foldMembership([put(10, bob), remove(11, bob)], alice)).toEqual({ status: 'unknown' })
  })

  it('9000 means member, 9001 removed', () => {
    expect(foldMembership([put(10)], alice)).toEqual({ status: 'member' })
    expect(foldMembership([remove(10)], alice)).toEqual({ status: 'removed' })
  })

  it('the newest wins, whatever the order of the input', () => {
    expect(foldMembership([put(10), remove(20)], alice)).toEqual({ status: 'removed' })
    expect(foldMembership([remove(20), put(10)], alice)).toEqual({ status: 'removed' })
    expect(foldMembership([remove(10), put(20)], alice)).toEqual({ status: 'member' })
    expect(foldMembership([put(20), remove(10)], alice)).toEqual({ status: 'member' })
  })

  it('an exact tie prefers removal, in either order', () => {
    expect(foldMembership([put(10), remove(10)], alice)).toEqual({ status: 'removed' })
    expect(foldMembership([remove(10), put(10)], alice)).toEqual({ status: 'removed' })
  })

  it('falls back to 39002 when no 9000/9001 names me; absence from 39002 proves nothing', () => {
    expect(foldMembership([state(39002, 'g', [['p', alice]])], alice)).toEqual({ status: 'member' })
    expect(foldMembership([state(39002, 'g', [['p', bob]])], alice)).toEqual({ status: 'unknown' })
    expect(foldMembership([put(10), state(39002, 'g', [['p', bob]], 20)], alice)).toEqual({
      status: 'member',
    })
  })

  it('a 39002 listing me newer than my removal means re-added; an older one does not', () => {
    expect(foldMembership([remove(10), state(39002, 'g', [['p', alice]], 20)], alice)).toEqual({
      status: 'member',
    })
    expect(foldMembership([remove(20), state(39002, 'g', [['p', alice]], 10)], alice)).toEqual({
      status: 'removed',
    })
  })

  it('ignores other kinds, so a whole timeline can be folded', () => {
    const chat = signed(bobSecret, 9, [
      ['h', 'g'],
      ['p', alice],
    ])
    expect(foldMembership([chat, put(10)], alice)).toEqual({ status: 'member' })
  })

  it('believes only trusted authors when told whom to trust', () => {
    const forged = signed(
      bobSecret,
      9000,
      [
        ['h', 'g'],
        ['p', alice],
      ],
      { createdAt: 30 },
    )
    const trusted = (pk: string) => pk === relayKey
    expect(foldMembership([remove(10), forged], alice, { trusted })).toEqual({ status: 'removed' })
    expect(foldMembership([remove(10), forged], alice)).toEqual({ status: 'member' })
  })
})

describe('membershipAfterReply', () => {
  it('9021 accepted means pending since now', () => {
    expect(membershipAfterReply(9021, { ok: true, message: '' }, 1234)).toEqual({
      status: 'pending',
      since: 1234,
    })
  })

  it('9021 duplicate: means already a member', () => {
    expect(membershipAfterReply(9021, { ok: false, message: 'duplicate: already a member' }, 1)).toEqual({
      status: 'member',
    })
    expect(membershipAfterReply(9021, { ok: true, message: 'duplicate: already a member' }, 1)).toEqual({
      status: 'member',
    })
  })

  it("9021 refused keeps the relay's text", () => {
    for (const message of [
      'restricted: group is closed, you need an invite code',
      'blocked: unknown member',
      'invalid: group not found',
      '',
    ]) {
      expect(membershipAfterReply(9021, { ok: false, message }, 1)).toEqual({
        status: 'refused',
        reason: message,
      })
    }
  })

  it('a timed-out publish changes nothing: no reply is not a refusal', () => {
    expect(membershipAfterReply(9021, { ok: false, message: '', timedOut: true }, 1)).toBeUndefined()
    expect(membershipAfterReply(9022, { ok: false, message: 'timeout', timedOut: true }, 1)).toBeUndefined()
  })

  it('9022 accepted means removed; refused changes nothing', () => {
    expect(membershipAfterReply(9022, { ok: true, message: '' }, 1)).toEqual({ status: 'removed' })
    expect(membershipAfterReply(9022, { ok: false, message: 'duplicate: not a member' }, 1)).toBeUndefined()
  })
})
