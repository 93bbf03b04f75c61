import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { snippet } from '../../src/lib/search-snippet'

describe('snippet (the text a search result shows)', () => {
  test('a short message shows whole, its whitespace folded', () => {
    expect(snippet('Tomatoes  ripen\n in August', 'august')).toBe('Tomatoes ripen in August')
  })

  test('a long message shows the part around the first word searched, with ellipses', () => {
    const text = `${'a'.repeat(400)} the zucchini harvest ${'b'.repeat(400)}`
    const s = snippet(text, 'Zucchini harvest')
    expect(s).toContain('zucchini harvest')
    expect(s.startsWith('…')).toBe(true)
    expect(s.endsWith('…')).toBe(true)
  })

  test('never longer than the width plus two ellipses, and shows the word when it is in the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), fc.string({ minLength: 1, maxLength: 12 }), (text, word) => {
        const w = word.replace(/\s+/g, '')
        const s = snippet(text, w)
        expect(s.length).toBeLessThanOrEqual(162)
        const flat = text.replace(/\s+/g, ' ').trim()
        if (w && flat.toLowerCase().includes(w.toLowerCase()) && w.length <= 100) {
          expect(s.toLowerCase()).toContain(w.toLowerCase())
        }
      }),
    )
  })
})
