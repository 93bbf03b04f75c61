import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildImeta, type ImetaFields, InvalidArgumentError, imetaOf, parseImeta } from '../src/index'

const x = 'a'.repeat(64)
const url = 'https://blossom.example/aaaa.png'

describe('buildImeta (NIP-92)', () => {
  it('writes every field in order', () => {
    expect(
      buildImeta({
        url,
        m: 'image/png',
        x,
        size: 1234,
        dim: { width: 640, height: 480 },
        blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj',
        alt: 'a cat, asleep',
      }),
    ).toEqual([
      'imeta',
      `url ${url}`,
      'm image/png',
      `x ${x}`,
      'size 1234',
      'dim 640x480',
      'blurhash LEHV6nWB2yk8pyo0adR*.7kCMdnj',
      'alt a cat, asleep',
    ])
    expect(buildImeta({ url })).toEqual(['imeta', `url ${url}`])
  })

  it('refuses each invalid field by name', () => {
    const cases: [Partial<ImetaFields>, string][] = [
      [{ url: 'javascript:alert(1)' }, 'url'],
      [{ url: 'file:///etc/passwd' }, 'url'],
      [{ m: 'png' }, 'm'],
      [{ x: 'A'.repeat(64) }, 'x'],
      [{ size: -1 }, 'size'],
      [{ size: 1.5 }, 'size'],
      [{ dim: { width: 0, height: 10 } }, 'dim'],
      [{ dim: { width: 10, height: 1e9 } }, 'dim'],
      [{ blurhash: 'has space in it' }, 'blurhash'],
      [{ alt: 'a'.repeat(5000) }, 'alt'],
    ]
    for (const [fields, argument] of cases) {
      try {
        buildImeta({ url, ...fields } as ImetaFields)
        expect.unreachable(argument)
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidArgumentError)
        expect((err as InvalidArgumentError).argument).toBe(argument)
      }
    }
  })
})

describe('parseImeta / imetaOf', () => {
  it('reads what buildImeta writes', () => {
    const fields: ImetaFields = { url, m: 'image/webp', x, size: 9, dim: { width: 1, height: 2 }, alt: 'x y' }
    expect(parseImeta(buildImeta(fields))).toEqual(fields)
  })

  it('drops invalid fields instead of trusting them, and needs an http(s) url', () => {
    expect(
      parseImeta([
        'imeta',
        `url ${url}`,
        'dim 99999999x1',
        'size -3',
        'x nothex',
        'm IMAGE/PNG',
        'junk',
        'url https://other.example',
      ]),
    ).toEqual({ url, m: 'image/png' })
    expect(parseImeta(['imeta', 'url data:image/png;base64,AAAA'])).toBeUndefined()
    expect(parseImeta(['imeta', 'm image/png'])).toBeUndefined()
    expect(parseImeta(['p', url])).toBeUndefined()
    expect(parseImeta('imeta' as never)).toBeUndefined()
  })

  it('collects one entry per url from an event', () => {
    const other = 'http://files.example/b.pdf'
    const event = {
      tags: [
        ['h', 'g'],
        ['imeta', `url ${url}`, 'm image/png'],
        ['imeta', `url ${other}`, 'm application/pdf'],
        ['imeta', `url ${url}`, 'm image/jpeg'],
        ['imeta', 42],
      ] as string[][],
    }
    expect(imetaOf(event)).toEqual([
      { url, m: 'image/png' },
      { url: other, m: 'application/pdf' },
    ])
    expect(imetaOf({} as never)).toEqual([])
  })

  it('property: parse never throws and only returns validated fields', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom(`url ${url}`, 'dim 1x1', `x ${x}`, 'size 10'))),
        (entries) => {
          const parsed = parseImeta(['imeta', ...entries])
          if (parsed === undefined) return
          expect(parsed.url.startsWith('http')).toBe(true)
          if (parsed.size !== undefined)
            expect(Number.isSafeInteger(parsed.size) && parsed.size >= 0).toBe(true)
          if (parsed.dim !== undefined) expect(parsed.dim.width > 0 && parsed.dim.height > 0).toBe(true)
          expect(parseImeta(buildImeta(parsed))).toEqual(parsed)
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('GroupId.message with media', () => {
  it('carries one imeta tag per attachment, which imetaOf reads back', async () => {
    const { GroupId } = await import('../src/index')
    const media: ImetaFields[] = [
      { url, m: 'image/png', x, size: 10, dim: { width: 4, height: 3 } },
      { url: 'https://blossom.example/bbbb', m: 'application/pdf', x: 'b'.repeat(64), size: 99 },
    ]
    const t = GroupId.parse('g').message(`look ${url}`, { media })
    expect(t.tags.filter((tag) => tag[0] === 'imeta')).toHaveLength(2)
    expect(imetaOf(t)).toEqual(media)
    expect(() => GroupId.parse('g').message('x', { media: [{ url: 'javascript:alert(1)' }] })).toThrow(
      InvalidArgumentError,
    )
  })
})
