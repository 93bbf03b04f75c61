import { describe, expect, it } from 'vitest'
import { GroupId, GroupParticipants, GroupPins, InvalidEventError } from '../src/index'
import { alice, aliceSecret, bob, carol, relayKey, signed, state } from './helpers'

const e1 = signed(aliceSecret, 9, [['h', 'g']], { content: '1' }).id
const e2 = signed(aliceSecret, 9, [['h', 'g']], { content: '2' }).id

describe('GroupParticipants (39004)', () => {
  it('lists distinct valid participant pubkeys in order', () => {
    const p = GroupParticipants.parse(
      state(39004, 'g', [
        ['participant', bob],
        ['participant', alice],
        ['participant', bob],
        ['participant', 'x'],
        ['p', carol],
      ]),
    )
    expect(p.id).toBe('g')
    expect(p.relayKey).toBe(relayKey)
    expect(p.pubkeys).toEqual([bob, alice])
    expect(p.contains(alice)).toBe(true)
    expect(p.contains(carol)).toBe(false)
  })

  it('refuses another author when given the relay key', () => {
    expect(() => GroupParticipants.parse(signed(aliceSecret, 39004, [['d', 'g']]), { relayKey })).toThrow(
      InvalidEventError,
    )
    expect(() => GroupPins.parse(signed(aliceSecret, 39005, [['d', 'g']]), { relayKey })).toThrow(
      InvalidEventError,
    )
    expect(GroupPins.parse(state(39005, 'g', [['e', e1]]), { relayKey }).ids).toEqual([e1])
  })

  it('rejects other kinds and a missing d tag', () => {
    expect(() => GroupParticipants.parse(state(39005, 'g', []))).toThrow(InvalidEventError)
    expect(() => GroupParticipants.parse(signed(aliceSecret, 39004, []))).toThrow(InvalidEventError)
  })
})

describe('GroupPins (39005)', () => {
  const address = `30023:${relayKey}:article`
  const pins = GroupPins.parse(
    state(39005, 'g', [
      ['e', e2],
      ['a', address],
      ['e', e1],
      ['e', e2],
      ['e', 'short'],
      ['a', 'bad'],
      ['x', e1],
    ]),
  )

  it('keeps the display order, ids and addresses apart', () => {
    expect(pins.pins).toEqual([
      { type: 'e', value: e2 },
      { type: 'a', value: address },
      { type: 'e', value: e1 },
    ])
    expect(pins.ids).toEqual([e2, e1])
    expect(pins.refs()).toEqual([e2, address, e1])
    expect(pins.addresses).toEqual([address])
    expect(pins.has(address)).toBe(true)
    expect(pins.has('f'.repeat(64))).toBe(false)
  })

  it('with/without give the full list a 9010 must carry', () => {
    const e3 = signed(aliceSecret, 9, [['h', 'g']], { content: '3' }).id
    expect(pins.with(e3)).toEqual([e2, address, e1, e3])
    expect(pins.with(e1)).toEqual([e2, address, e1])
    expect(pins.without(address)).toEqual([e2, e1])
    const t = GroupId.parse('g').pin(pins.without(e2), { createdAt: 1 })
    expect(t.tags).toEqual([
      ['h', 'g'],
      ['a', address],
      ['e', e1],
    ])
  })

  it('rejects other kinds', () => {
    expect(() => GroupPins.parse(state(39004, 'g', []))).toThrow(InvalidEventError)
  })
})
