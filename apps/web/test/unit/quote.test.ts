import { nip19 } from 'nostr-tools'
import { describe, expect, test } from 'vitest'
import { leadingQuote, quoteFreeText } from '../../src/lib/quote'

const parent = 'ab'.repeat(32)
const other = 'cd'.repeat(32)
const link = `nostr:${nip19.neventEncode({ id: parent, relays: ['wss://r'], kind: 9 })}`

describe('the leading quote of a NIP-C7 reply', () => {
  test('a leading link naming the tagged event is the quote, and leaves the text', () => {
    expect(leadingQuote(`${link}\nyes`, [parent])).toEqual({ id: parent, text: 'yes' })
    expect(leadingQuote(`nostr:${nip19.noteEncode(parent)} yes`, [parent])).toEqual({
      id: parent,
      text: 'yes',
    })
  })

  test('with no q or e tag the link alone is the quote; naming another event, it stays in the text', () => {
    expect(leadingQuote(`${link}\nyes`, [])).toEqual({ id: parent, text: 'yes' })
    expect(leadingQuote(`${link}\nyes`, [other])).toBeUndefined()
    expect(leadingQuote(`see ${link}`, [parent])).toBeUndefined()
    expect(leadingQuote('plain', [parent])).toBeUndefined()
  })

  test('notifications and search show the text without the link', () => {
    const tags = [
      ['h', 'g'],
      ['q', parent, 'wss://r'],
    ]
    expect(quoteFreeText({ kind: 9, content: `${link}\nyes`, tags })).toBe('yes')
    expect(quoteFreeText({ kind: 1111, content: `${link}\nyes`, tags })).toBe(`${link}\nyes`)
  })
})
