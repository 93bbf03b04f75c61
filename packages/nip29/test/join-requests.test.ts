import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { GroupId, pendingJoinRequests } from '../src/index'
import { alice, aliceSecret, bob, bobSecret, carol, carolSecret, relaySecret, signed } from './helpers'

const g = GroupId.parse('club')
const at = (secret: Uint8Array, template: ReturnType<GroupId['joinRequest']>, createdAt: number) =>
  signed(secret, template.kind, template.tags, { content: template.content, createdAt })

describe('pendingJoinRequests', () => {
  const aliceAsks = at(aliceSecret, g.joinRequest({ reason: 'hi, I run the bakery', code: 'bread' }), 100)
  const bobAsks = at(bobSecret, g.joinRequest(), 90)
  const carolAsks = at(carolSecret, g.joinRequest({ reason: '  ' }), 110)

  it('lists unanswered 9021s, oldest first, with reason and code', () => {
    expect(pendingJoinRequests([carolAsks, aliceAsks, bobAsks])).toEqual([
      { pubkey: bob, event: bobAsks },
      { pubkey: alice, reason: 'hi, I run the bakery', code: 'bread', event: aliceAsks },
      { pubkey: carol, event: carolAsks },
    ])
  })

  it('drops a request once a 9000 or 9001 for that key comes at or after it', () => {
    const admitAlice = at(relaySecret, g.putUser(alice), 100)
    const removeBob = at(relaySecret, g.removeUser(bob), 95)
    const oldCarol = at(relaySecret, g.putUser(carol), 50)
    const pending = pendingJoinRequests([aliceAsks, bobAsks, carolAsks, admitAlice, removeBob, oldCarol])
    expect(pending.map((r) => r.pubkey)).toEqual([carol])
  })

  it('a 9022 by the requester withdraws it; a newer 9021 asks again', () => {
    const bobLeaves = at(bobSecret, g.leaveRequest(), 91)
    expect(pendingJoinRequests([bobAsks, bobLeaves])).toEqual([])
    const bobAgain = at(bobSecret, g.joinRequest({ reason: 'again' }), 92)
    expect(pendingJoinRequests([bobAsks, bobLeaves, bobAgain])).toEqual([
      { pubkey: bob, reason: 'again', event: bobAgain },
    ])
  })

  it('filters by group when asked, and skips junk', () => {
    const elsewhere = at(carolSecret, GroupId.parse('other').joinRequest(), 120)
    const list = pendingJoinRequests([elsewhere, aliceAsks, null as never, { kind: 9021 } as never], {
      groupId: 'club',
    })
    expect(list.map((r) => r.pubkey)).toEqual([alice])
  })

  it('property: a key is pending iff its newest request is newer than every answer', () => {
    const secrets = [aliceSecret, bobSecret]
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            who: fc.integer({ min: 0, max: 1 }),
            kind: fc.constantFrom(9021, 9000, 9001),
            t: fc.integer({ min: 0, max: 5 }),
          }),
          {
            maxLength: 6,
          },
        ),
        (plan) => {
          const events = plan.map((p) => {
            const who = secrets[p.who] as Uint8Array
            if (p.kind === 9021) return at(who, g.joinRequest(), p.t)
            const pk = p.who === 0 ? alice : bob
            return at(relaySecret, p.kind === 9000 ? g.putUser(pk) : g.removeUser(pk), p.t)
          })
          const pending = new Set(pendingJoinRequests(events).map((r) => r.pubkey))
          for (const [i, pk] of [alice, bob].entries()) {
            const asks = plan.filter((p) => p.who === i && p.kind === 9021).map((p) => p.t)
            const answers = plan.filter((p) => p.who === i && p.kind !== 9021).map((p) => p.t)
            const expected = asks.length > 0 && Math.max(...asks) > Math.max(-1, ...answers)
            expect(pending.has(pk)).toBe(expected)
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})
