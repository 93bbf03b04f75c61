/**
 * NIP-50 search text rules, shared by the relay (its live match; stored results use the database's
 * full-text index) and the client's local caches: the terms of a `search` string, the words of a
 * content, and whether a content matches.
 */

/** NIP-50 extensions (`key:value`) this relay does not implement: dropped from the query, as NIP-50 asks. */
const EXTENSION = /^(include|domain|language|sentiment|nsfw):\S*$/i
/** A word: letters, digits and their combining marks. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu
/** At most this many terms of one search are used (the rest are ignored). */
export const MAX_SEARCH_TERMS = 8
/** Longer terms are cut to this many characters (still matched as a prefix). */
const MAX_TERM = 64

/**
 * The terms of a NIP-50 `search` string: its words, lower-cased, without the `key:value`
 * extensions, each matched as a word prefix; an event matches when its content has every term.
 * An empty list (nothing searchable) matches nothing.
 *
 * @example
 * searchTerms('Hello, wörld! include:spam') // ['hello', 'wörld']
 */
export function searchTerms(search: string): string[] {
  const out = new Set<string>()
  for (const part of search.normalize('NFC').split(/\s+/)) {
    if (EXTENSION.test(part)) continue
    for (const m of part.toLowerCase().matchAll(WORD)) {
      const term = m[0].slice(0, MAX_TERM)
      if (foldSearchText(term) === '') continue // marks alone: no letter to look for
      out.add(term)
      if (out.size >= MAX_SEARCH_TERMS) return [...out]
    }
  }
  return [...out]
}

/**
 * Lower case without diacritics, so `Wörld` and `world` compare equal (as SQLite's FTS5 index
 * folds them).
 *
 * @example
 * foldSearchText('Crème BRÛLÉE') // 'creme brulee'
 */
export function foldSearchText(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()
}

/**
 * True when `content` has every term as the start of one of its words (the live side of a search
 * subscription; the stored side is the database's index).
 *
 * @example
 * contentMatches('Lunch at noon?', searchTerms('lun NOON')) // true
 */
export function contentMatches(content: string, terms: readonly string[]): boolean {
  if (terms.length === 0) return false
  const words = searchWords(content)
  return terms.every((t) => {
    const f = foldSearchText(t)
    return words.some((w) => w.startsWith(f))
  })
}

/**
 * The distinct folded words of a text (what a token index keys an event by; a term matches a word
 * it is a prefix of, after {@link foldSearchText}).
 *
 * @example
 * searchWords('Crème brûlée, crème!') // ['creme', 'brulee']
 */
export function searchWords(content: string): string[] {
  return [...new Set(foldSearchText(content).match(WORD) ?? [])]
}
