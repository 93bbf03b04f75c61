import { describe, expect, it } from 'vitest'
import { GroupId, InvalidArgumentError, InvalidGroupIdError } from '../src/index'
import { alice, relayKey } from './helpers'

describe('GroupId.parse', () => {
  it('trims and keeps any other characters (the spec no longer restricts the charset)', () => {
    expect(GroupId.parse('  pizza-lovers ').value).toBe('pizza-lovers')
    expect(GroupId.parse('_').value).toBe('_')
    expect(GroupId.parse('Ünïcode grüppe').value).toBe('Ünïcode grüppe')
    expect(GroupId.parse("it's").value).toBe("it's")
    expect(String(GroupId.parse('abc'))).toBe('abc')
  })

  it('rejects blank ids, control characters and non-strings with InvalidGroupIdError', () => {
    for (const bad of ['', '   ', 'a\u0000b', 'a\nb', 'tab\tid', 42, undefined]) {
      expect(() => GroupId.parse(bad as string)).toThrow(InvalidGroupIdError)
    }
  })

  it('passes a GroupId through and compares by value', () => {
    const id = GroupId.parse('a')
    expect(GroupId.parse(id)).toBe(id)
    expect(id.equals(GroupId.parse(' a '))).toBe(true)
    expect(id.equals(GroupId.parse('b'))).toBe(false)
  })
})

describe('GroupId filters', () => {
  const id = GroupId.parse('general')

  it('builds the h tag and the timeline filter', () => {
    expect(id.hTag()).toEqual(['h', 'general'])
    expect(id.timelineFilter(100)).toEqual({ '#h': ['general'], limit: 100 })
    expect(() => id.timelineFilter(-1)).toThrow(InvalidArgumentError)
  })

  it('builds the state filter for 39000–39005, with the relay key once known', () => {
    expect(id.stateFilter()).toEqual({ kinds: [39000, 39001, 39002, 39003, 39004, 39005], '#d': ['general'] })
    expect(id.stateFilter(relayKey)).toEqual({
      kinds: [39000, 39001, 39002, 39003, 39004, 39005],
      '#d': ['general'],
      authors: [relayKey],
    })
    expect(() => id.stateFilter('nope')).toThrow(InvalidArgumentError)
  })

  it('splits the state filter in two for relays that refuse mixed metadata kinds', () => {
    expect(id.stateFilters(relayKey)).toEqual([
      { kinds: [39000, 39001, 39002, 39003], '#d': ['general'], authors: [relayKey] },
      { kinds: [39004, 39005], '#d': ['general'], authors: [relayKey] },
    ])
  })

  it('builds the membership filter for my 9000/9001', () => {
    expect(id.membershipFilter(alice)).toEqual({ kinds: [9000, 9001], '#h': ['general'], '#p': [alice] })
    expect(() => id.membershipFilter('ALICE')).toThrow(InvalidArgumentError)
  })
})
