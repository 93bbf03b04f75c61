import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { contentSecurityPolicy } from '../src/index'
import { resolveStaticPath } from '../src/static'
import { connect, fetch, relay } from './helpers'

function site() {
  const base = mkdtempSync(join(tmpdir(), 'roost-static-'))
  const root = join(base, 'www')
  mkdirSync(join(root, 'assets'), { recursive: true })
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>Roost</title>')
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)')
  writeFileSync(join(base, 'secret.txt'), 'top secret')
  symlinkSync(join(base, 'secret.txt'), join(root, 'leak.txt'))
  return root
}

/** A raw HTTP GET that sends the path exactly as given (fetch would normalise `..`). */
function get(url: string, path: string, method = 'GET') {
  const u = new URL(url.replace('ws://', 'http://'))
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, path, method }, (res) => {
        let body = ''
        res.on('data', (d) => {
          body += d
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      })
      req.on('error', reject)
      req.end()
    },
  )
}

describe('staticDir', () => {
  it('serves files with a Content-Security-Policy header and the right type', async () => {
    const r = await relay({ staticDir: site() })
    const index = await get(r.url, '/')
    expect(index.status).toBe(200)
    expect(index.body).toContain('<title>Roost</title>')
    expect(index.headers['content-security-policy']).toBe(contentSecurityPolicy(r.mediaUrl))
    expect(index.headers['x-content-type-options']).toBe('nosniff')
    const js = await get(r.url, '/assets/app.js')
    expect(js.headers['content-type']).toMatch(/^text\/javascript/)
    expect(js.body).toBe('console.log(1)')
    expect((await get(r.url, '/assets/app.js', 'HEAD')).body).toBe('')
    expect((await get(r.url, '/', 'POST')).status).toBe(405)
  })

  it('falls back to index.html for unknown paths without an extension, 404 for missing files', async () => {
    const r = await relay({ staticDir: site() })
    const route = await get(r.url, '/g/general?x=1')
    expect(route.status).toBe(200)
    expect(route.body).toContain('<title>Roost</title>')
    expect(route.headers['content-security-policy']).toBe(contentSecurityPolicy(r.mediaUrl))
    expect((await get(r.url, '/missing.js')).status).toBe(404)
  })

  it('never serves files outside the directory (.., encoded .., symlinks out)', async () => {
    const r = await relay({ staticDir: site() })
    for (const path of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/leak.txt',
      '/%00',
    ]) {
      const res = await get(r.url, path)
      expect(res.body).not.toContain('top secret')
      expect(res.status).toBeGreaterThanOrEqual(400)
    }
  })

  it('keeps NIP-11 and WebSockets on the same port', async () => {
    const r = await relay({ staticDir: site() })
    const info = await globalThis.fetch(r.url.replace('ws://', 'http://'), {
      headers: { Accept: 'application/nostr+json' },
    })
    expect(((await info.json()) as { self: string }).self).toBe(r.pubkey)
    const c = await connect(r.url)
    expect((await fetch(c, [{ kinds: [39000] }])).closed).toBeUndefined()
  })

  it('resolveStaticPath keeps every path inside the root', () => {
    const root = '/srv/www'
    expect(resolveStaticPath(root, '/a/b.js')).toBe('/srv/www/a/b.js')
    expect(resolveStaticPath(root, '/a/../b.js')).toBe('/srv/www/b.js')
    for (const bad of ['/../x', '/%2e%2e/x', '/a/%2e%2e/%2e%2e/x', '/%E0%A4%A', '/a\\..\\x', '/x%00'])
      expect(
        resolveStaticPath(root, bad) === undefined || resolveStaticPath(root, bad)!.startsWith(`${root}/`),
      ).toBe(true)
  })
})
