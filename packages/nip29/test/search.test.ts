import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { contentMatches, foldSearchText, MAX_SEARCH_TERMS, searchTerms, searchWords } from '../src/index'

describe('NIP-50 search text', () => {
  it('takes the words of a query, lower-cased, without key:value extensions, at most 8', () => {
    expect(searchTerms('Hello, Wörld! include:spam domain:x.com')).toEqual(['hello', 'wörld'])
    expect(searchTerms('a b c d e f g h i j')).toHaveLength(MAX_SEARCH_TERMS)
    expect(searchTerms(' !!! ')).toEqual([])
    expect(searchTerms('a a A')).toEqual(['a'])
  })

  it('matches a content holding every term as a word prefix, diacritics folded', () => {
    expect(contentMatches('Crème BRÛLÉE tonight', searchTerms('creme bru'))).toBe(true)
    expect(contentMatches('Crème BRÛLÉE tonight', searchTerms('creme pie'))).toBe(false)
    expect(contentMatches('unbroken', searchTerms('broken'))).toBe(false)
    expect(contentMatches('anything', [])).toBe(false)
    expect(searchWords('Crème brûlée, crème!')).toEqual(['creme', 'brulee'])
    expect(foldSearchText('ÀÉÎ')).toBe('aei')
  })

  it('any word of a content, or a prefix of it, finds that content', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 6 }), fc.nat(), fc.nat(), (parts, i, cut) => {
        const content = parts.join(' ')
        const words = searchWords(content)
        if (words.length === 0) return
        const word = words[i % words.length] as string
        const prefix = word.slice(0, 1 + (cut % word.length))
        expect(contentMatches(content, searchTerms(prefix))).toBe(true)
      }),
    )
  })
})
