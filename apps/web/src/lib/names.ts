/**
 * Names from other people (kind 0 display names, group names, role names) must not rearrange or
 * spill over the text around them, nor hide what they are:
 * - bidirectional overrides, embeddings, isolates and marks are removed, as are other control
 *   characters, so a name cannot reorder what follows it;
 * - zero-width and other invisible format characters are removed (a ZWJ inside an emoji
 *   sequence, a ZWNJ between two Arabic-script letters, and the tag characters of a flag stay),
 *   as are the blank "filler" letters, so "Gen\u200Beral" is "General" and no name is empty-looking;
 * - after NFC, a run of combining marks on one character keeps its first {@link MAX_MARKS} (one
 *   enclosing mark at most), so hundreds of stacked marks cannot climb over the header
 *   (Vietnamese needs two);
 * - whitespace collapses, and a name keeps at most {@link MAX_NAME_GRAPHEMES} characters as the
 *   reader counts them (grapheme clusters), the last one an ellipsis when cut.
 * What is left is rendered in `<bdi>` / `dir="auto"` so its direction stays its own, and CSS keeps
 * it inside its box (one line, ellipsis).
 */

/** U+061C, U+200E/F, U+202A–202E (embeddings, overrides), U+2066–2069 (isolates). */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const OTHER_CONTROLS = /[\u0000-\u001F\u007F-\u009F]/g
/** Letters that draw nothing (Hangul fillers, Khmer inherent vowels) and U+2800 braille blank. */
const BLANK_LETTERS = /[\u115F\u1160\u17B4\u17B5\u2800\u3164\uFFA0]/g
/** Stacked combining marks kept on one character. */
export const MAX_MARKS = 3
/** Grapheme clusters a name keeps. */
export const MAX_NAME_GRAPHEMES = 64
/** UTF-16 units of input looked at: anything longer is hostile or a mistake, and cut first. */
const MAX_INPUT = 2048

const PICTOGRAPH = /\p{Extended_Pictographic}/u
const ARABIC = /\p{Script=Arabic}/u
const BLACK_FLAG = '\u{1F3F4}'

/**
 * Invisible format characters (`\p{Cf}`, combining grapheme joiner U+034F) and lone surrogates removed, except where
 * they make something visible: ZWJ between two pictographs (👩‍💻), ZWNJ between two Arabic-script
 * letters, tag characters after a black flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿).
 */
function dropInvisible(s: string): string {
  const cps = [...s]
  let out = ''
  let inFlagTags = false
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i] as string
    const code = c.codePointAt(0) as number
    const isTag = code >= 0xe0020 && code <= 0xe007f
    if (isTag) {
      if (inFlagTags) {
        out += c
        if (code === 0xe007f) inFlagTags = false
      }
      continue
    }
    inFlagTags = c === BLACK_FLAG
    if (!/\p{Cf}|\p{Cs}|\u034F/u.test(c)) {
      out += c
      continue
    }
    const after = cps[i + 1] ?? ''
    if (c === '\u200D' && PICTOGRAPH.test(lastBase(out)) && PICTOGRAPH.test(after)) out += c
    else if (c === '\u200C' && ARABIC.test(lastCodePoint(out)) && ARABIC.test(after)) out += c
  }
  return out
}

function lastCodePoint(s: string): string {
  if (!s) return ''
  const last = s.codePointAt(s.length - 1) as number
  // A low surrogate ends a pair: take both halves.
  return last >= 0xdc00 && last <= 0xdfff && s.length >= 2 ? s.slice(-2) : s.slice(-1)
}

/** The last code point of `s` that is not a mark or an emoji modifier (❤️ before its ZWJ is ❤). */
function lastBase(s: string): string {
  const cps = [...s.slice(-32)]
  for (let i = cps.length - 1; i >= 0; i--) {
    const c = cps[i] as string
    if (!/[\p{M}\p{Emoji_Modifier}]/u.test(c)) return c
  }
  return ''
}

/**
 * Each run of combining marks cut to its first `max`, of which at most one enclosing mark
 * (`\p{Me}`: a circle, a keycap, U+0489), since those draw as wide as a letter or wider.
 */
function clampMarks(s: string, max: number): string {
  return s.replace(/\p{M}+/gu, (run) => {
    let kept = ''
    let count = 0
    let enclosing = false
    for (const mark of run) {
      if (count === max) break
      const isEnclosing = /\p{Me}/u.test(mark)
      if (isEnclosing && enclosing) continue
      enclosing ||= isEnclosing
      kept += mark
      count++
    }
    return kept
  })
}

const segmenter =
  typeof Intl !== 'undefined' && 'Segmenter' in Intl
    ? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
    : undefined

/** At most `max` grapheme clusters; a longer name ends in "…" (counted among them). */
function clampLength(s: string, max: number): string {
  // A grapheme is at least one code unit: no more units than `max`, no more graphemes either.
  if (s.length <= max) return s
  const parts = segmenter ? [...segmenter.segment(s)].map((g) => g.segment) : [...s]
  if (parts.length <= max) return s
  return `${parts
    .slice(0, max - 1)
    .join('')
    .trimEnd()}…`
}

/**
 * Free text beside a name (a group's or a person's about): its combining-mark runs clamped like a
 * name's, after NFC, so a description cannot climb over the header or widen a card either. Lines,
 * spacing and length are its own.
 * @example tameMarks(`About${'\u0301'.repeat(500)}`).length // 8: "About" and three marks on its t
 */
export function tameMarks(text: string): string {
  return clampMarks(text.normalize('NFC'), MAX_MARKS).normalize('NFC')
}

/**
 * A name safe to show: bidi, control and invisible characters removed, combining-mark runs
 * clamped, whitespace collapsed, trimmed, and at most {@link MAX_NAME_GRAPHEMES} characters.
 * Idempotent: a clean name is its own clean form.
 * @example cleanName('\u202Egnp.exe') // 'gnp.exe'
 * @example cleanName('Gen\u200Beral') // 'General'
 * @example cleanName(`Z${'\u0301'.repeat(500)}`).length // 4
 */
export function cleanName(name: string): string {
  const known = cleaned.get(name)
  if (known !== undefined) return known
  const clean = cleanNameOnce(name)
  // The same few names are cleaned for every row that shows them: kept, within a bound.
  if (name.length > 256) return clean
  if (cleaned.size >= CLEANED_MAX) cleaned.clear()
  cleaned.set(name, clean)
  return clean
}

const cleaned = new Map<string, string>()
const CLEANED_MAX = 2000

function cleanNameOnce(name: string): string {
  const cut = name.length > MAX_INPUT
  const input = cut ? `${[...name.slice(0, MAX_INPUT)].join('')}…` : name
  const visible = dropInvisible(input.replace(BIDI_CONTROLS, '').replace(OTHER_CONTROLS, ' '))
    .replace(BLANK_LETTERS, ' ')
    .normalize('NFC')
  // NFC again: a dropped enclosing mark may leave the marks around it out of canonical order.
  const text = clampMarks(visible, MAX_MARKS).normalize('NFC').replace(/\s+/g, ' ').trim()
  return clampLength(text, MAX_NAME_GRAPHEMES)
}
