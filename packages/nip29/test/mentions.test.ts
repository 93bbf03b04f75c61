import fc from 'fast-check'
import { nip19 } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import {
  composeMentions,
  contentMentions,
  GroupId,
  InvalidArgumentError,
  mentionsPubkey,
  mentionUri,
  parseContent,
} from '../src/index'
import { alice, aliceSecret, bob, carol, relayKey, signed } from './helpers'

const npubBob = nip19.npubEncode(bob)
const eventId = signed(aliceSecret, 9, [['h', 'g']]).id

describe('composeMentions / mentionUri (NIP-27)', () => {
  it('writes nostr:npub URIs and lists each person once', () => {
    const { content, mentions } = composeMentions([
      'hi ',
      { pubkey: bob },
      ' and ',
      { pubkey: carol },
      ', ',
      { pubkey: bob },
    ])
    expect(content).toBe(`hi nostr:${npubBob} and nostr:${nip19.npubEncode(carol)}, nostr:${npubBob}`)
    expect(mentions).toEqual([bob, carol])
    expect(contentMentions(content)).toEqual([bob, carol])
  })

  it('writes an nprofile when relays are given', () => {
    const uri = mentionUri(bob, ['wss://relay.example'])
    expect(uri.startsWith('nostr:nprofile1')).toBe(true)
    expect(parseContent(uri)).toEqual([
      { type: 'mention', raw: uri, pubkey: bob, relays: ['wss://relay.example'] },
    ])
  })

  it('message() adds one p tag per mention after the reply tags', () => {
    const { content, mentions } = composeMentions([{ pubkey: bob }, ' look'])
    const t = GroupId.parse('g').message(content, {
      mentions: [...mentions, bob, carol],
      replyTo: eventId,
      createdAt: 1,
    })
    expect(t.tags).toEqual([
      ['h', 'g'],
      ['e', eventId],
      ['q', eventId],
      ['p', bob],
      ['p', carol],
    ])
  })

  it('refuses bad pubkeys', () => {
    expect(() => mentionUri('npub1xyz')).toThrow(InvalidArgumentError)
    expect(() => composeMentions([{ pubkey: 'ab' }])).toThrow(InvalidArgumentError)
    expect(() => composeMentions('x' as never)).toThrow(InvalidArgumentError)
    expect(() => GroupId.parse('g').message('x', { mentions: ['nope'] })).toThrow(InvalidArgumentError)
  })
})

describe('parseContent', () => {
  it('splits text, mentions, references and URLs', () => {
    const note = nip19.noteEncode(eventId)
    const nevent = nip19.neventEncode({ id: eventId, relays: ['wss://r.example'], author: alice, kind: 9 })
    const naddr = nip19.naddrEncode({
      kind: 39000,
      pubkey: relayKey,
      identifier: 'general',
      relays: ['wss://g.example'],
    })
    const content = `hey nostr:${npubBob}! see nostr:${note} and nostr:${nevent}, join nostr:${naddr} (https://example.com/a_(b)). bare ${npubBob}`
    const segments = parseContent(content)
    expect(segments.map((s) => s.type)).toEqual([
      'text',
      'mention',
      'text',
      'event',
      'text',
      'event',
      'text',
      'address',
      'text',
      'url',
      'text',
      'mention',
    ])
    expect(segments.map((s) => s.raw).join('')).toBe(content)
    expect(segments[1]).toMatchObject({ pubkey: bob })
    expect(segments[3]).toMatchObject({ id: eventId, relays: [] })
    expect(segments[5]).toMatchObject({ id: eventId, author: alice, kind: 9, relays: ['wss://r.example'] })
    expect(segments[7]).toMatchObject({ kind: 39000, pubkey: relayKey, identifier: 'general' })
    expect(segments[9]).toEqual({
      type: 'url',
      raw: 'https://example.com/a_(b)',
      url: 'https://example.com/a_(b)',
    })
    expect(segments[10]?.raw).toBe('). bare ')
  })

  it('leaves broken entities, foreign schemes and glued words as text', () => {
    const broken = `nostr:${npubBob.slice(0, -1)}q`
    for (const content of [
      broken,
      'javascript:alert(1)',
      `x${npubBob}`,
      'nostr:nsec1abcdefgh',
      'http://',
      'ftp://a.b',
    ]) {
      expect(parseContent(content)).toEqual([{ type: 'text', raw: content }])
    }
    expect(parseContent('')).toEqual([])
    expect(parseContent(42 as never)).toEqual([])
  })

  it('keeps over-long URLs as text', () => {
    const long = `https://a.example/${'x'.repeat(9000)}`
    expect(parseContent(`see ${long}`)).toEqual([{ type: 'text', raw: `see ${long}` }])
  })

  it('trims trailing punctuation from URLs but keeps query strings', () => {
    const s = parseContent('go to https://a.example/x?y=1&z=2, or https://b.example.')
    expect(s.filter((x) => x.type === 'url').map((x) => x.raw)).toEqual([
      'https://a.example/x?y=1&z=2',
      'https://b.example',
    ])
  })

  // Inputs that make a backtracking pattern take exponential time: a parser that backtracks on
  // them never ends, and the test fails at its deadline. Its speed is not asserted here.
  it('ends on hostile input, and its raw parts rebuild it', () => {
    const huge = `${'nostr:npub1'.repeat(20_000)}${'q'.repeat(100_000)} ${'https://'.repeat(10_000)} https://a.example/${')'.repeat(8000)} https://b${'.'.repeat(200_000)}`
    const segments = parseContent(huge)
    expect(segments.map((s) => s.raw).join('')).toBe(huge)
  })

  it('property: never throws, and the raw parts rebuild the content', () => {
    const pieces = fc.oneof(
      fc.string(),
      fc.constantFrom(
        `nostr:${npubBob}`,
        npubBob,
        'https://x.example/p?q=1',
        'nostr:',
        'npub1',
        '(',
        ')',
        '.',
        ' ',
      ),
    )
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
        const content = parts.join('')
        const segments = parseContent(content)
        expect(segments.map((s) => s.raw).join('')).toBe(content)
        for (let i = 1; i < segments.length; i++) {
          expect(segments[i - 1]?.type === 'text' && segments[i]?.type === 'text').toBe(false)
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('mentionsPubkey', () => {
  it('counts a content mention on any kind and a p tag on kinds 9 and 11', () => {
    const byContent = signed(aliceSecret, 1111, [['h', 'g']], { content: `hey nostr:${npubBob}` })
    const byTag = signed(aliceSecret, 9, [
      ['h', 'g'],
      ['p', bob],
    ])
    const reaction = signed(aliceSecret, 7, [
      ['h', 'g'],
      ['e', eventId],
      ['p', bob],
    ])
    expect(mentionsPubkey(byContent, bob)).toBe(true)
    expect(mentionsPubkey(byTag, bob)).toBe(true)
    expect(mentionsPubkey(reaction, bob)).toBe(false)
    expect(mentionsPubkey(byTag, carol)).toBe(false)
    expect(mentionsPubkey(byTag, 'junk')).toBe(false)
    expect(mentionsPubkey(null as never, bob)).toBe(false)
  })
})
