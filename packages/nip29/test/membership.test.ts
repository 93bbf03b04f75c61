import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools'
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

describe('foldMembership with our own answer: the relay’s events only, never our clock', () => {
  /** An unsigned stand-in: the fold reads kind, tags, created_at and id only. */
  const ev = (id: string, kind: number, at: number, names: boolean): NostrEvent => ({
    id,
    pubkey: relayKey,
    kind,
    created_at: at,
    tags:
      kind === 39002
        ? [['d', 'g'], ...(names ? [['p', alice]] : [])]
        : [
            ['h', 'g'],
            ['p', names ? alice : bob],
          ],
    content: '',
    sig: '',
  })
  const relayEvent = fc.record({
    kind: fc.constantFrom(9000, 9001, 39002),
    at: fc.integer({ min: 1_700_000_000, max: 1_700_000_100 }),
    names: fc.boolean(),
    later: fc.boolean(), // came after the relay answered our 9021
  })
  const reply = fc.constantFrom(
    { ok: true, message: '' },
    { ok: false, message: 'duplicate: already a member' },
    { ok: false, message: 'restricted: group is closed' },
  )

  it('a 9000 signed a second before our 9021 (our clock runs ahead) makes us a member', () => {
    const ours = ev('ours', 9021, 1_700_000_010, true)
    const answer = {
      membership: membershipAfterReply(9021, { ok: true, message: '' }, 1_700_000_010)!,
      known: [],
    }
    expect(foldMembership([ours], alice, { answer })).toEqual({ status: 'pending', since: 1_700_000_010 })
    expect(foldMembership([ours, ev('put', 9000, 1_700_000_008, true)], alice, { answer })).toEqual({
      status: 'member',
    })
  })

  it('an old 9001 known when the relay queued our request leaves us pending; a newer 9000 decides', () => {
    const old = ev('old', 9001, 1_700_000_050, true)
    const answer = { membership: { status: 'pending', since: 1_700_000_000 } as const, known: ['old'] }
    expect(foldMembership([old], alice, { answer }).status).toBe('pending')
    expect(foldMembership([old, ev('put', 9000, 1_700_000_051, true)], alice, { answer }).status).toBe(
      'member',
    )
  })

  it('any client clock offset gives the same membership, and the answer stands until newer relay evidence', () => {
    fc.assert(
      fc.property(
        fc.array(relayEvent, { maxLength: 8 }),
        reply,
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: -3600, max: 3600 }),
        fc.integer({ min: -3600, max: 3600 }),
        (raw, answered, relayNow, offsetA, offsetB) => {
          const events = raw.map((r, i) => ev(`e${i}`, r.kind, r.at, r.names))
          const known = events.filter((_, i) => !raw[i]!.later).map((e) => e.id)
          const fold = (offset: number) => {
            const now = 1_700_000_000 + relayNow + offset // our clock: the relay's plus the offset
            const membership = membershipAfterReply(9021, answered, now)!
            const ours = ev('ours', 9021, now, true) // our own request is in the timeline too
            return foldMembership([...events, ours], alice, { answer: { membership, known } })
          }
          const a = fold(offsetA)
          expect(a.status).toBe(fold(offsetB).status)
          // The model: relay evidence not known at the answer, and not older than what was, decides.
          const evidence = raw.map((r, i) => ({ ...r, id: `e${i}` })).filter((r) => r.names)
          const knownAt = Math.max(-Infinity, ...evidence.filter((r) => !r.later).map((r) => r.at))
          const fresh = evidence.some((r) => r.later && r.at >= knownAt)
          const folded = foldMembership(events, alice)
          const answer = membershipAfterReply(9021, answered, 0)!.status
          expect(a.status).toBe(fresh && folded.status !== 'unknown' ? folded.status : answer)
        },
      ),
    )
  })
})
