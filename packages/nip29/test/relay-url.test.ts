import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidRelayUrlError, normalizeRelayUrl, RelayUrlCache, tryNormalizeRelayUrl } from '../src/index'

describe('normalizeRelayUrl', () => {
  it.each([
    ['wss://groups.example.com', 'wss://groups.example.com'],
    ['WSS://Groups.Example.COM', 'wss://groups.example.com'],
    ['wss://groups.example.com/', 'wss://groups.example.com'],
    ['wss://groups.example.com:443', 'wss://groups.example.com'],
    ['ws://groups.example.com:80/', 'ws://groups.example.com'],
    ['wss://groups.example.com:80', 'wss://groups.example.com:80'],
    ['ws://127.0.0.1:7777', 'ws://127.0.0.1:7777'],
    ['ws://localhost:7777/nip29/', 'ws://localhost:7777/nip29'],
    ['wss://relay.example.com/Path//', 'wss://relay.example.com/Path'],
    ['  wss://groups.example.com  ', 'wss://groups.example.com'],
    ['groups.example.com', 'wss://groups.example.com'],
    ['groups.example.com:4443/x', 'wss://groups.example.com:4443/x'],
    ['wss://relay.example.com/#frag', 'wss://relay.example.com'],
    ['wss://relay.example.com/?b=1', 'wss://relay.example.com?b=1'],
    ['wss://bücher.example', 'wss://xn--bcher-kva.example'],
    ['wss://[::1]:443/', 'wss://[::1]'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeRelayUrl(input)).toBe(expected)
    expect(normalizeRelayUrl(expected)).toBe(expected)
  })

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['https://groups.example.com', 'https'],
    ['http://groups.example.com', 'http'],
    ['ftp://groups.example.com', 'other scheme'],
    ['wss://', 'no host'],
    ['wss://user:pw@groups.example.com', 'credentials'],
    ['wss://groups example.com', 'whitespace'],
    ["wss://groups.example.com'general", 'the group code separator'],
    ['wss://groups.example.com:99999', 'bad port'],
  ])('rejects %j (%s) with InvalidRelayUrlError', (input) => {
    expect(() => normalizeRelayUrl(input)).toThrow(InvalidRelayUrlError)
    expect(tryNormalizeRelayUrl(input)).toBeUndefined()
  })

  it('rejects non-strings with a typed error', () => {
    expect(() => normalizeRelayUrl(42 as unknown as string)).toThrow(InvalidRelayUrlError)
    expect(tryNormalizeRelayUrl(null)).toBeUndefined()
  })
})

describe('RelayUrlCache', () => {
  const inputs = fc.oneof(
    fc.constantFrom(
      'WSS://Groups.Example.COM/',
      'groups.example.com',
      'ws://127.0.0.1:7777/nip29/',
      'https://groups.example.com',
      "wss://a'b",
      '',
      ' ',
    ),
    fc.webUrl().map((u) => u.replace(/^https?/, 'wss')),
    fc.string(),
  )

  it('property: answers as normalizeRelayUrl does, throwing the same errors, and holds at most its limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(inputs, { maxLength: 30 }), (limit, urls) => {
        const cache = new RelayUrlCache(limit)
        for (const url of [...urls, ...urls]) {
          let want: string | Error
          try {
            want = normalizeRelayUrl(url)
          } catch (err) {
            want = err as Error
          }
          if (typeof want === 'string') expect(cache.normalize(url)).toBe(want)
          else expect(() => cache.normalize(url)).toThrow(want.message)
          expect(cache.tryNormalize(url)).toBe(typeof want === 'string' ? want : undefined)
          expect(cache.size).toBeLessThanOrEqual(limit)
        }
      }),
    )
  })

  it('remembers valid inputs only, and each cache its own', () => {
    const a = new RelayUrlCache()
    const b = new RelayUrlCache()
    a.normalize('Groups.Example.com')
    expect(a.tryNormalize('not a url')).toBeUndefined()
    expect(a.tryNormalize(42)).toBeUndefined()
    expect([a.size, b.size, new RelayUrlCache(0).limit]).toEqual([1, 0, 1_024])
  })
})
