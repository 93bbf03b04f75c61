import { describe, expect, test } from 'vitest'
import { cacheName, precacheList, SHELL_PAGE, strategyFor } from '../../src/pwa/cache-rules'

const ORIGIN = 'http://127.0.0.1:7777'

describe('service worker rules', () => {
  const list = precacheList([
    'index.html',
    'assets/main-abc.js',
    'assets/main-abc.js.map',
    'sw.js',
    'sw.js.map',
    'icons/icon-192.png',
    'manifest.webmanifest',
    '.vite/manifest.json',
  ])

  test('precaches the built shell, not source maps, the worker or hidden files', () => {
    expect(list).toEqual(['/assets/main-abc.js', '/icons/icon-192.png', SHELL_PAGE, '/manifest.webmanifest'])
  })

  test('a different build gets a different cache', () => {
    expect(cacheName(list)).toMatch(/^roost-shell-[0-9a-f]{8}$/)
    expect(cacheName(list)).toBe(cacheName([...list]))
    expect(cacheName(precacheList(['index.html', 'assets/main-def.js']))).not.toBe(cacheName(list))
  })

  test('pages come from the network first, shell files from the cache, everything else is left alone', () => {
    const set = new Set(list)
    const req = (url: string, mode = 'cors', method = 'GET', accept?: string) => ({
      url,
      mode,
      method,
      accept,
    })
    expect(strategyFor(req(`${ORIGIN}/#/g/x`, 'navigate'), ORIGIN, set)).toBe('page')
    expect(strategyFor(req(`${ORIGIN}/some/route`, 'navigate'), ORIGIN, set)).toBe('page')
    expect(strategyFor(req(`${ORIGIN}/assets/main-abc.js`), ORIGIN, set)).toBe('shell-file')
    expect(strategyFor(req(`${ORIGIN}/assets/other.js`), ORIGIN, set)).toBe('network')
    // NIP-11 on the relay's own origin, other origins, and writes never touch the cache.
    expect(strategyFor(req(`${ORIGIN}/`, 'cors', 'GET', 'application/nostr+json'), ORIGIN, set)).toBe(
      'network',
    )
    expect(strategyFor(req('https://cdn.example.com/assets/main-abc.js'), ORIGIN, set)).toBe('network')
    expect(strategyFor(req(`${ORIGIN}/upload`, 'cors', 'PUT'), ORIGIN, set)).toBe('network')
    expect(strategyFor(req('not a url'), ORIGIN, set)).toBe('network')
  })
})
