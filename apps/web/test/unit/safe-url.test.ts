import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { safeHttpUrl, tokenize } from '../../src/lib/safe-url'

describe('safeHttpUrl', () => {
  test('keeps absolute http(s) URLs and refuses every other scheme', () => {
    expect(safeHttpUrl('https://example.com/a.png')).toBe('https://example.com/a.png')
    expect(safeHttpUrl(' http://example.com ')).toBe('http://example.com/')
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<b>',
      '/relative',
      '//x.org',
      'ftp://x.org',
      '',
      undefined,
    ]) {
      expect(safeHttpUrl(bad)).toBeUndefined()
    }
  })
})

describe('tokenize', () => {
  test('splits links out of text and leaves trailing punctuation as text', () => {
    expect(tokenize('see https://x.org/a. ok')).toEqual([
      { type: 'text', start: 0, text: 'see ' },
      { type: 'link', start: 4, href: 'https://x.org/a', text: 'https://x.org/a', image: false },
      { type: 'text', start: 19, text: '. ok' },
    ])
    expect(tokenize('pic https://x.org/cat.JPG')[1]).toMatchObject({ type: 'link', image: true })
  })

  test('a long run of trailing punctuation stays text, and past maxLinks links are text', () => {
    const dots = `https://a${'.'.repeat(60_000)}x`
    expect(tokenize(dots)).toEqual([
      {
        type: 'link',
        start: 0,
        href: 'https://a......x/'.replace('......', '.'.repeat(60_000)),
        text: dots,
        image: false,
      },
    ])
    const trailing = `https://a.b${'.'.repeat(60_000)}`
    expect(tokenize(trailing).map((t) => t.type)).toEqual(['link', 'text'])
    const many = 'https://a.b '.repeat(500)
    const tokens = tokenize(many, 3)
    expect(tokens.filter((t) => t.type === 'link')).toHaveLength(3)
    expect(tokens.map((t) => t.text).join('')).toBe(many)
  })

  test('HTML stays text: markup is never turned into a link or an element', () => {
    const tokens = tokenize('<img src=x onerror=alert(1)>')
    expect(tokens).toEqual([{ type: 'text', start: 0, text: '<img src=x onerror=alert(1)>' }])
  })

  test('property: the tokens spell the input back, and every link is http(s)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.webUrl(), fc.constantFrom(' ', '.', 'javascript:x', '<a>'))),
        (parts) => {
          const input = parts.join('')
          const tokens = tokenize(input)
          expect(tokens.map((t) => t.text).join('')).toBe(input)
          for (const t of tokens) {
            expect(input.slice(t.start, t.start + t.text.length)).toBe(t.text)
            if (t.type === 'link') expect(t.href).toMatch(/^https?:\/\//)
          }
        },
      ),
    )
  })
})
