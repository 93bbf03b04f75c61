import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import fc from 'fast-check'
import { nip19 } from 'nostr-tools'
import { describe, expect, test } from 'vitest'
import {
  type EmojiRow,
  encodeMentions,
  hasShortcode,
  mentionQuery,
  prepareDraft,
  replaceShortcodes,
  shortcodeTable,
} from '../../src/lib/compose'

/** The data file the app serves, read from the package. */
const rows = JSON.parse(
  readFileSync(
    createRequire(import.meta.url).resolve('emoji-picker-element-data/en/github/data.json'),
    'utf8',
  ),
) as EmojiRow[]
const loadShortcodes = async () => shortcodeTable(rows)

const ADA = 'a'.repeat(64)
const ADAL = 'b'.repeat(64)
const uri = (pk: string) => `nostr:${nip19.npubEncode(pk)}`

describe('encodeMentions', () => {
  test('turns picked labels into nostr:npub URIs, whole words only, longest first', () => {
    const picked = [
      { label: '@Ada', pubkey: ADA },
      { label: '@Ada Lovelace', pubkey: ADAL },
    ]
    expect(encodeMentions('hi @Ada!', picked)).toBe(`hi ${uri(ADA)}!`)
    expect(encodeMentions('@Ada Lovelace and @Ada', picked)).toBe(`${uri(ADAL)} and ${uri(ADA)}`)
    expect(encodeMentions('mail ada@Ada.org or @Adam', picked)).toBe('mail ada@Ada.org or @Adam')
    expect(encodeMentions('no picks @Ada', [])).toBe('no picks @Ada')
  })

  test('labels with regex characters are taken literally', () => {
    expect(encodeMentions('@a.b* x @aXb', [{ label: '@a.b*', pubkey: ADA }])).toBe(`${uri(ADA)} x @aXb`)
  })

  test('text without a picked label comes back unchanged', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const text = s.replaceAll('@', '')
        expect(encodeMentions(text, [{ label: '@Ada', pubkey: ADA }])).toBe(text)
      }),
    )
  })
})

describe('mentionQuery', () => {
  test('finds the @word before the caret, at the start or after a space', () => {
    expect(mentionQuery('@', 1)).toEqual({ start: 0, query: '' })
    expect(mentionQuery('hi @ad', 6)).toEqual({ start: 3, query: 'ad' })
    expect(mentionQuery('hi @ad there', 6)).toEqual({ start: 3, query: 'ad' })
    expect(mentionQuery('mail a@b', 8)).toBeUndefined()
    expect(mentionQuery('@ada done', 9)).toBeUndefined()
  })
})

describe('shortcodes', () => {
  test(':+1: and friends become emoji; unknown codes, times and code spans stay', async () => {
    const table = await loadShortcodes()
    expect(table.get('+1')).toMatch(/^👍/)
    expect(replaceShortcodes('nice :+1: :tada:', table)).toBe(`nice ${table.get('+1')} ${table.get('tada')}`)
    expect(replaceShortcodes(':nope-not-a-code: at 10:30:00', table)).toBe(':nope-not-a-code: at 10:30:00')
    expect(replaceShortcodes('`:+1:` :+1:', table)).toBe(`\`:+1:\` ${table.get('+1')}`)
    expect(hasShortcode('plain text')).toBe(false)
    expect(hasShortcode('a :+1:')).toBe(true)
  })

  test('prepareDraft replaces shortcodes and encodes mentions', async () => {
    const text = await prepareDraft('@Ada :+1:', [{ label: '@Ada', pubkey: ADA }], loadShortcodes)
    expect(text.startsWith(`${uri(ADA)} `)).toBe(true)
    expect(text).not.toContain(':+1:')
    // Without the table the shortcodes go as typed; the mentions are still encoded.
    const offline = await prepareDraft('@Ada :+1:', [{ label: '@Ada', pubkey: ADA }], () =>
      Promise.reject(new Error('offline')),
    )
    expect(offline).toBe(`${uri(ADA)} :+1:`)
  })
})
