/**
 * Group state must be reconstructible from the canonical sequence of moderation events (spec §1.8).
 * Random joins, leaves, adds and removals go over the wire, one per second; afterwards the relay's
 * state, its 39001/39002, and @roost/nip29's fold of the stored 9000/9001 must all agree.
 * (Two admin changes for one user within the same second are ambiguous to any fold — the relay
 * applies them in arrival order, as every production relay does — so the clock moves between ops.
 * Relay-made 9000/9001 are always given distinct, increasing created_at.)
 */
import { foldMembership } from '@roost/nip29'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, relay, TestClock, user } from './helpers'

const clock = new TestClock()
const users = Array.from({ length: 4 }, () => user(clock))
const admin = user(clock)

type Op = { type: 'join' | 'leave' | 'add' | 'remove' | 'promote'; who: number }
const op: fc.Arbitrary<Op> = fc.record({
  type: fc.constantFrom('join', 'leave', 'add', 'remove', 'promote'),
  who: fc.integer({ min: 0, max: users.length - 1 }),
})

describe('membership is the fold of the stored moderation events', () => {
  it('relay state, 39001/39002 and foldMembership agree after any sequence of joins, leaves and moderation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), fc.boolean(), async (ops, closed) => {
        const r = await relay({ previousMinimum: 0, clock: clock.now })
        try {
          const c = await connect(r.url)
          const g = await r.createGroup({ admins: [admin.pk], closed })
          let n = 0
          for (const { type, who } of ops) {
            clock.advance(1)
            const u = users[who]!
            const content = String(n++)
            if (type === 'join') await publish(c, u.sign({ kind: 9021, tags: h(g), content }))
            if (type === 'leave') await publish(c, u.sign({ kind: 9022, tags: h(g), content }))
            if (type === 'add') await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', u.pk]), content }))
            if (type === 'remove')
              await publish(c, admin.sign({ kind: 9001, tags: h(g, ['p', u.pk]), content }))
            if (type === 'promote')
              await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', u.pk, 'moderator']), content }))
          }
          const state = r.state(g)!
          const events = (await fetch(c, [{ kinds: [9000, 9001], '#h': [g] }])).events
          for (const u of users) {
            const folded = foldMembership(
              events.filter((e) => e.tags.some((t) => t[0] === 'p' && t[1] === u.pk)),
              u.pk,
            )
            expect(folded.status === 'member').toBe(state.members.includes(u.pk))
          }
          const s = await fetch(c, [{ kinds: [39001, 39002], '#d': [g], authors: [r.pubkey] }])
          const pTags = (kind: number) =>
            s.events
              .find((e) => e.kind === kind)!
              .tags.filter((t) => t[0] === 'p')
              .map((t) => t.slice(1))
          expect(
            pTags(39002)
              .map((t) => t[0])
              .sort(),
          ).toEqual(state.members)
          expect(pTags(39001).sort()).toEqual(state.admins.map((a) => [a.pubkey, ...a.roles]).sort())
        } finally {
          await r.close()
        }
      }),
      { numRuns: 10 },
    )
  })
})
