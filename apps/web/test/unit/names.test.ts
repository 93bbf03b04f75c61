import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { cleanName, MAX_MARKS, MAX_NAME_GRAPHEMES } from '../../src/lib/names'

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/
// biome-ignore lint/suspicious/noControlCharactersInRegex: checking that none are left
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })
const graphemes = (s: string) => [...segmenter.segment(s)].length
/** The longest run of combining marks. */
const longestMarkRun = (s: string) => Math.max(0, ...[...s.matchAll(/\p{M}+/gu)].map((m) => [...m[0]].length))
/** Invisible format characters left, other than the ones an emoji, a flag or Arabic needs. */
function strayInvisible(s: string): string[] {
  const cps = [...s]
  const out: string[] = []
  cps.forEach((c, i) => {
    if (!/\p{Cf}|\p{Cs}|\u034F/u.test(c)) return
    const code = c.codePointAt(0) as number
    if (code >= 0xe0020 && code <= 0xe007f) return // flag tags
    const next = cps[i + 1] ?? ''
    if (c === '\u200D' && /\p{Extended_Pictographic}/u.test(next)) return
    if (c === '\u200C' && /\p{Script=Arabic}/u.test(next)) return
    out.push(c)
  })
  return out
}

/** Names as hostile input mixes them: letters, marks, zero-width and bidi characters, emoji, spaces. */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom('a', 'G', 'é', 'ي', 'ب', '字', ' ', '\t', '👩', '💻', '❤', '\uFE0F', '🏴'),
      fc.constantFrom('\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD', '\u034F', '\u180E'),
      fc.constantFrom('\u202E', '\u2066', '\u200F', '\u0000', '\u3164', '\u115F', '\u{E0067}', '\u{E007F}'),
      fc.integer({ min: 0x300, max: 0x36f }).map((c) => String.fromCodePoint(c)),
      fc.integer({ min: 0x1ab0, max: 0x1aff }).map((c) => String.fromCodePoint(c)),
      fc.constantFrom('\u20DD', '\u20E3', '\u0488', '\u0489', '1'),
    ),
    { maxLength: 200 },
  )
  .map((parts) => parts.join(''))

describe('cleanName', () => {
  test('removes overrides, embeddings, isolates and marks, and other control characters', () => {
    expect(cleanName('\u202Egnp.exe')).toBe('gnp.exe')
    expect(cleanName('Ada\u2066 \u2069Lovelace\u200F')).toBe('Ada Lovelace')
    expect(cleanName('a\nb\tc')).toBe('a b c')
    expect(cleanName('  עברית  ')).toBe('עברית')
  })

  test('strips zero-width characters and blank fillers: a name cannot hide in them', () => {
    expect(cleanName('Gen\u200Beral')).toBe('General')
    expect(cleanName('\uFEFFGe\u2060n\u00ADe\u034Fral\u200D')).toBe('General')
    expect(cleanName('\u3164\u3164')).toBe('')
    expect(cleanName('\u200B\u200C\u200D')).toBe('')
  })

  test('keeps what the joiners are for: emoji sequences, a flag, Persian', () => {
    expect(cleanName('👩‍💻 Ada')).toBe('👩‍💻 Ada')
    expect(cleanName('❤️‍🔥')).toBe('❤️‍🔥')
    const scotland = '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'
    expect(cleanName(scotland)).toBe(scotland)
    expect(cleanName('می\u200Cخواهم')).toBe('می\u200Cخواهم')
    expect(cleanName('a\u200Cb')).toBe('ab')
  })

  test(`clamps a run of combining marks to ${MAX_MARKS}, after NFC (so é and Vietnamese stay whole)`, () => {
    const zalgo = `Z${'\u0301\u0316\u0334'.repeat(200)}algo`
    // NFC puts the marks in canonical order and composes Ź; three marks stay on it.
    expect(cleanName(zalgo)).toBe('\u0179\u0334\u0334\u0334algo')
    expect(cleanName('Nguye\u0302\u0303n')).toBe('Nguyễn')
    expect(cleanName('Đặng Thị Ngọc')).toBe('Đặng Thị Ngọc')
    expect(cleanName('e\u0301')).toBe('é')
    // One enclosing mark (they draw wide); a keycap stays a keycap.
    expect(cleanName('A\u20DD\u0489\u20DD\u0301')).toBe('A\u20DD\u0301')
    expect(cleanName('1\uFE0F\u20E3')).toBe('1\uFE0F\u20E3')
    // Zero-width characters between marks do not reset the count.
    expect(longestMarkRun(cleanName(`x${'\u0301\u200B'.repeat(100)}`))).toBe(MAX_MARKS)
  })

  test(`keeps at most ${MAX_NAME_GRAPHEMES} characters as the eye counts them, ending in … when cut`, () => {
    const long = 'W'.repeat(500)
    expect(cleanName(long)).toBe(`${'W'.repeat(MAX_NAME_GRAPHEMES - 1)}…`)
    const emoji = '👩‍💻'.repeat(100)
    expect(graphemes(cleanName(emoji))).toBe(MAX_NAME_GRAPHEMES)
    expect(cleanName(emoji).startsWith('👩‍💻'.repeat(MAX_NAME_GRAPHEMES - 1))).toBe(true)
    // A megabyte of marks is cut before any work is done on it.
    expect(cleanName(`A${'\u0301'.repeat(1_000_000)}`)).toBe('Á\u0301\u0301\u0301…')
  })

  test('property: nothing hostile survives, and the result is bounded', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.string({ unit: 'binary', maxLength: 300 })), (s) => {
        const out = cleanName(s)
        expect(BIDI.test(out)).toBe(false)
        expect(CONTROL.test(out)).toBe(false)
        expect(strayInvisible(out)).toEqual([])
        expect(longestMarkRun(out)).toBeLessThanOrEqual(MAX_MARKS)
        for (const run of out.matchAll(/\p{M}+/gu))
          expect(run[0].match(/\p{Me}/gu)?.length ?? 0).toBeLessThan(2)
        expect(graphemes(out)).toBeLessThanOrEqual(MAX_NAME_GRAPHEMES)
        expect(out).toBe(out.trim())
        expect(/\s\s/.test(out)).toBe(false)
      }),
      { numRuns: 500 },
    )
  })

  test('property: idempotent, and a plain name is kept as it is', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.string({ unit: 'binary', maxLength: 300 })), (s) => {
        expect(cleanName(cleanName(s))).toBe(cleanName(s))
      }),
      { numRuns: 500 },
    )
    const word = fc.string({
      unit: fc.constantFrom(...'abcXYZéñßøДжλ字한ا'.split('')),
      minLength: 1,
      maxLength: 12,
    })
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), (words) => {
        const name = words.join(' ').normalize('NFC')
        expect(cleanName(name)).toBe(name)
      }),
    )
  })
})
