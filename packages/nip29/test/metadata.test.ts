import { describe, expect, it } from 'vitest'
import {
  GroupId,
  GroupMetadata,
  GroupReference,
  InvalidEventError,
  type InvalidEventReason,
} from '../src/index'
import { aliceSecret, RELAY, relayKey, signed, state } from './helpers'

function reason(event: unknown): InvalidEventReason | undefined {
  try {
    GroupMetadata.parse(event as never)
    return undefined
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidEventError)
    return (err as InvalidEventError).reason
  }
}

describe('GroupMetadata.parse', () => {
  it('reads every 39000 tag of the current spec', () => {
    const m = GroupMetadata.parse(
      state(39000, 'pizza', [
        ['name', 'Pizza Lovers'],
        ['picture', 'https://pizza.example/p.png'],
        ['banner', 'https://pizza.example/b.png'],
        ['about', 'a group for pizza lovers'],
        ['private'],
        ['restricted'],
        ['hidden'],
        ['closed'],
        ['livekit'],
        ['supported_kinds', '9', '11', '1111'],
        ['parent', 'food'],
        ['child', 'napoli'],
        ['child', 'roma'],
      ]),
    )
    expect(m).toMatchObject({
      id: 'pizza',
      relayKey,
      createdAt: 1_700_000_000,
      name: 'Pizza Lovers',
      picture: 'https://pizza.example/p.png',
      banner: 'https://pizza.example/b.png',
      about: 'a group for pizza lovers',
      private: true,
      restricted: true,
      hidden: true,
      closed: true,
      livekit: true,
      supportedKinds: [9, 11, 1111],
      parent: 'food',
      children: ['napoli', 'roma'],
    })
  })

  it('defaults: public, unrestricted, visible, open, no LiveKit, all kinds, no parent', () => {
    const m = GroupMetadata.parse(state(39000, 'g', []))
    expect([m.private, m.restricted, m.hidden, m.closed, m.livekit]).toEqual([
      false,
      false,
      false,
      false,
      false,
    ])
    expect(m.name).toBeUndefined()
    expect(m.supportedKinds).toBeUndefined()
    expect(m.parent).toBeUndefined()
    expect(m.children).toEqual([])
  })

  it('ignores the legacy public/open tags and unknown tags', () => {
    const m = GroupMetadata.parse(
      state(39000, 'g', [['public'], ['open'], ['original_relay', 'x'], ['-'], ['x']]),
    )
    expect([m.private, m.closed]).toEqual([false, false])
  })

  it('tells supported_kinds absent (all kinds) from present and empty (no kinds)', () => {
    const all = GroupMetadata.parse(state(39000, 'g', []))
    expect(all.supports(9)).toBe(true)
    expect(all.supports(30023)).toBe(true)
    const none = GroupMetadata.parse(state(39000, 'g', [['supported_kinds']]))
    expect(none.supportedKinds).toEqual([])
    expect(none.supports(9)).toBe(false)
    const some = GroupMetadata.parse(
      state(39000, 'g', [['supported_kinds', '11', 'x', '-1', '1.5', ' 9 ', '11']]),
    )
    expect(some.supportedKinds).toEqual([11, 9])
    expect(some.supports(9)).toBe(true)
    expect(some.supports(7)).toBe(false)
  })

  it('takes the first name, drops empty and repeated children, and an empty parent', () => {
    const m = GroupMetadata.parse(
      state(39000, 'g', [
        ['name', 'First'],
        ['name', 'Second'],
        ['child', 'a'],
        ['child', ''],
        ['child', 'a'],
        ['parent', ''],
      ]),
    )
    expect(m.name).toBe('First')
    expect(m.children).toEqual(['a'])
    expect(m.parent).toBeUndefined()
  })

  it('rejects other kinds, a missing or blank d tag, and non-events', () => {
    expect(reason(signed(aliceSecret, 9, [['d', 'g']]))).toBe('wrong-kind')
    expect(reason(signed(aliceSecret, 39000, [['name', 'x']]))).toBe('missing-d')
    expect(reason(signed(aliceSecret, 39000, [['d']]))).toBe('missing-d')
    expect(reason(signed(aliceSecret, 39000, [['d', ' ']]))).toBe('bad-d')
    expect(reason(null)).toBe('malformed')
    expect(reason({ kind: 39000 })).toBe('malformed')
    // A kind that cannot be turned into text (found by fast-check) still gets the typed error.
    expect(reason({ kind: Object.create(null), tags: [] })).toBe('wrong-kind')
    expect(reason({ kind: { toString: 1 }, tags: [] })).toBe('wrong-kind')
  })

  it('with the relay key given, refuses state signed by anyone else', () => {
    const forged = signed(aliceSecret, 39000, [
      ['d', 'g'],
      ['name', 'Fake'],
    ])
    expect(reason(forged)).toBeUndefined()
    expect(() => GroupMetadata.parse(forged, { relayKey })).toThrow(InvalidEventError)
    try {
      GroupMetadata.parse(forged, { relayKey })
    } catch (err) {
      expect((err as InvalidEventError).reason).toBe('wrong-author')
    }
    expect(GroupMetadata.parse(state(39000, 'g', [['name', 'Real']]), { relayKey }).name).toBe('Real')
  })

  it('naddr round-trips through GroupReference, with and without an invite code', () => {
    const m = GroupMetadata.parse(state(39000, 'pizza', [['name', 'Pizza']]))
    const plain = GroupReference.parse(m.naddr('WSS://Groups.Example.com/'))
    expect([plain.id.value, plain.relay, plain.relayKey, plain.invite]).toEqual([
      'pizza',
      RELAY,
      relayKey,
      undefined,
    ])
    const invited = GroupReference.parse(m.naddr(RELAY, 'welcome'))
    expect([invited.id.value, invited.relay, invited.relayKey, invited.invite]).toEqual([
      'pizza',
      RELAY,
      relayKey,
      'welcome',
    ])
  })

  it('toFields feeds a full-replace 9002 that reproduces the metadata', () => {
    const event = state(39000, 'g', [
      ['name', 'N'],
      ['about', 'A'],
      ['closed'],
      ['supported_kinds'],
      ['parent', 'p'],
      ['child', 'c'],
    ])
    const m = GroupMetadata.parse(event)
    const edit = GroupId.parse('g').editMetadata({ ...m.toFields(), name: 'New' }, { createdAt: 1 })
    expect(edit.tags).toEqual([
      ['h', 'g'],
      ['name', 'New'],
      ['about', 'A'],
      ['closed'],
      ['supported_kinds'],
      ['parent', 'p'],
      ['child', 'c'],
    ])
    expect(
      GroupMetadata.parse(state(39000, 'g', [['picture', 'p'], ['banner', 'b'], ['livekit']])).toFields(),
    ).toEqual({
      picture: 'p',
      banner: 'b',
      livekit: true,
    })
  })
})
