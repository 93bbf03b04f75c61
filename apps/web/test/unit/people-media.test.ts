import { describe, expect, test } from 'vitest'
import { mediaOf, textWithoutMedia } from '../../src/components/MessageMedia'
import { hostOf, mayAutoLoad, originOf, trustedOrigins } from '../../src/lib/media-hosts'

describe('which images load without a click', () => {
  test('the Blossom server from Settings and each relay’s own origin are trusted; others are not', () => {
    const trusted = trustedOrigins('https://blossom.example/path', [
      'wss://relay.example',
      'ws://127.0.0.1:7777',
    ])
    expect(mayAutoLoad('https://blossom.example/abc.png', trusted, false)).toBe(true)
    expect(mayAutoLoad('https://relay.example/abc.png', trusted, false)).toBe(true)
    expect(mayAutoLoad('http://127.0.0.1:7777/abc.png', trusted, false)).toBe(true)
    expect(mayAutoLoad('https://tracker.example/pixel.png', trusted, false)).toBe(false)
    expect(mayAutoLoad('http://relay.example/abc.png', trusted, false)).toBe(false) // another origin
    expect(mayAutoLoad('https://tracker.example/pixel.png', trusted, true)).toBe(true)
    expect(mayAutoLoad('not a url', trusted, true)).toBe(true)
    expect(mayAutoLoad('not a url', trusted, false)).toBe(false)
    expect(hostOf('https://img.example:8443/a.png')).toBe('img.example:8443')
  })
  test('a host the user allowed loads at once, and only that origin', () => {
    const trusted = trustedOrigins(undefined, [], [originOf('https://pics.example/me.png')!])
    expect(mayAutoLoad('https://pics.example/other.png', trusted, false)).toBe(true)
    expect(mayAutoLoad('http://pics.example/other.png', trusted, false)).toBe(false)
    expect(mayAutoLoad('https://pics.example.evil.example/a.png', trusted, false)).toBe(false)
    expect(mayAutoLoad('https://evil.example/?https://pics.example/', trusted, false)).toBe(false)
    expect(originOf('javascript:alert(1)')).toBeUndefined()
    expect(originOf('data:image/png;base64,AAAA')).toBeUndefined()
    expect(originOf('not a url')).toBeUndefined()
  })
})

describe('a message’s attachments', () => {
  const url = 'https://relay.example/aa.png'
  test('imeta files, plus bare image links; the text loses the URLs its attachments show', () => {
    const m = {
      content: `sunset\n${url}\nhttps://other.example/b.jpg and https://x.example/page`,
      media: [{ url, m: 'image/png', dim: { width: 4, height: 3 } }, { url: 'javascript:alert(1)' }],
    }
    expect(mediaOf(m)).toEqual([
      { url, m: 'image/png', dim: { width: 4, height: 3 } },
      { url: 'https://other.example/b.jpg' },
    ])
    expect(textWithoutMedia(m)).toBe('sunset\n\n and https://x.example/page')
  })
})
