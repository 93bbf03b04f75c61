import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseBlobDescriptor } from '@roost/nip29'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { parseCli } from '../src/cli'
import { startRelay } from '../src/index'
import { relay, user } from './helpers'
import { PNG, putBlob, sha, uploadAuth } from './media-helpers'

const httpOf = (ws: string) => ws.replace(/^ws/, 'http')
const NIP11 = { accept: 'application/nostr+json' }

/** A relay with one group whose admin is `alice`, and the relay's own HTTP base (where the web client is). */
async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const alice = user()
  const r = await relay(opts)
  await r.createGroup({ name: 'Pics', admins: [alice.pk] })
  return { r, alice, app: httpOf(r.url), media: r.mediaUrl }
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const { port } = s.address() as AddressInfo
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

/** A raw GET with the headers given (fetch cannot set Host). */
function rawGet(base: string, path: string, headers: Record<string, string>) {
  const u = new URL(base)
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, path, headers }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      })
      req.on('error', reject)
      req.end()
    },
  )
}

function staticSite(): string {
  const root = mkdtempSync(join(tmpdir(), 'roost-media-site-'))
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>Roost</title>')
  return root
}

/** The sources a CSP directive lists. */
function directive(csp: string, name: string): string[] {
  const found = csp.split(';').find((d) => d.trim().startsWith(`${name} `))
  return found?.trim().split(/\s+/).slice(1) ?? []
}

describe('Blossom is served from an origin of its own', () => {
  it('takes uploads and serves blobs on the media port; the relay port serves no blob and takes no upload', async () => {
    const { r, alice, app, media } = await setup()
    expect(new URL(media).origin).toBe(media)
    expect(media).not.toBe(new URL(app).origin)

    const res = await putBlob(media, PNG, { authorization: uploadAuth(alice), 'content-type': 'image/png' })
    expect(res.status).toBe(200)
    const d = parseBlobDescriptor(await res.json())
    expect(d.url).toBe(`${media}/${sha(PNG)}.png`)
    const got = await fetch(d.url)
    expect([got.status, got.headers.get('content-type')]).toEqual([200, 'image/png'])

    // A link to the relay's port (older messages) is sent on to the media origin, never answered there.
    const old = await fetch(`${app}/${sha(PNG)}.png`, { redirect: 'manual' })
    expect([old.status, old.headers.get('location')]).toEqual([307, `${media}/${sha(PNG)}.png`])
    expect((await fetch(`${app}/${sha(PNG)}.png`)).headers.get('content-type')).toBe('image/png')

    // An upload to the relay's port is refused with where Blossom is, and stores nothing.
    const other = Buffer.from('sent to the wrong port')
    const misdirected = await putBlob(app, other, { authorization: uploadAuth(alice, other) })
    expect(misdirected.status).toBe(404)
    expect(misdirected.headers.get('x-reason')).toBe(`Blossom is served at ${media}`)
    expect((await fetch(`${media}/${sha(other)}`)).status).toBe(404)

    // NIP-11 names the media origin.
    const info = await (await fetch(app, { headers: NIP11 })).json()
    expect(info.roost.blossom.url).toBe(media)
    expect(r.mediaUrl).toBe(media)
  })

  it('the media port answers nothing but Blossom: no page, no NIP-11, no WebSocket', async () => {
    const { media } = await setup({ staticDir: staticSite() })
    for (const path of ['/', '/index.html', '/some/route']) {
      const res = await fetch(media + path)
      expect(res.status, path).toBe(404)
      expect(await res.text(), path).not.toContain('<title>Roost</title>')
    }
    const info = await fetch(media, { headers: NIP11 })
    expect([info.status, info.headers.get('content-type')]).toEqual([404, 'text/plain; charset=utf-8'])
    const ws = new WebSocket(media.replace(/^http/, 'ws'))
    const outcome = await new Promise<string>((resolve) => {
      ws.on('open', () => resolve('open'))
      ws.on('error', () => resolve('refused'))
    })
    ws.terminate()
    expect(outcome).toBe('refused')
  })

  it('never serves an upload as a script, worker or style: a code type is sent as text/plain, such loads get 403', async () => {
    const { app, media, alice } = await setup()
    const script = Buffer.from("self.addEventListener('fetch', (e) => e.respondWith(new Response('owned')))")
    const up = await putBlob(media, script, {
      authorization: uploadAuth(alice, script),
      'content-type': 'text/javascript',
    })
    expect(up.status).toBe(200)
    expect(((await up.json()) as { type: string }).type).toBe('text/plain')
    for (const type of [
      'application/javascript',
      'application/x-javascript',
      'text/css',
      'application/wasm',
    ]) {
      const body = Buffer.from(`/* ${type} */`)
      const res = await putBlob(media, body, { authorization: uploadAuth(alice, body), 'content-type': type })
      expect(((await res.json()) as { type: string }).type, type).toBe('text/plain')
      const served = await fetch(`${media}/${sha(body)}`)
      expect(served.headers.get('content-type'), type).toBe('text/plain; charset=utf-8')
    }
    const plain = await fetch(`${media}/${sha(script)}`)
    expect(plain.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff')
    expect(plain.headers.get('cross-origin-resource-policy')).toBe('cross-origin')
    expect(plain.headers.get('content-security-policy')).toMatch(/default-src 'none'.*sandbox/)
    expect(plain.headers.get('vary')).toBe('Sec-Fetch-Dest')

    for (const dest of [
      'script',
      'serviceworker',
      'worker',
      'sharedworker',
      'style',
      'iframe',
      'object',
      'font',
      'xslt',
      'json',
      'manifest',
      'paintworklet',
    ]) {
      const res = await fetch(`${media}/${sha(script)}.js`, { headers: { 'sec-fetch-dest': dest } })
      expect([dest, res.status], dest).toEqual([dest, 403])
      expect(res.headers.get('x-reason'), dest).toBe(`a blob is never served as ${dest}`)
      // Nor is the relay's port a way round: it refuses such a load instead of redirecting it.
      const viaApp = await fetch(`${app}/${sha(script)}.js`, {
        headers: { 'sec-fetch-dest': dest },
        redirect: 'manual',
      })
      expect([dest, viaApp.status]).toEqual([dest, 403])
    }
    for (const dest of ['image', 'video', 'audio', 'track', 'empty', 'document']) {
      const res = await fetch(`${media}/${sha(script)}`, { headers: { 'sec-fetch-dest': dest } })
      expect([dest, res.status]).toEqual([dest, 200])
    }
  })

  it("the web client's CSP names the media origin for images and media only", async () => {
    const { app, media } = await setup({ staticDir: staticSite() })
    for (const path of ['/', '/some/route']) {
      const csp = (await fetch(app + path)).headers.get('content-security-policy') ?? ''
      expect(directive(csp, 'img-src'), path).toContain(media)
      expect(directive(csp, 'media-src'), path).toContain(media)
      for (const name of ['default-src', 'script-src', 'style-src', 'worker-src', 'font-src', 'connect-src'])
        expect(directive(csp, name), `${path} ${name}`).not.toContain(media)
      expect(directive(csp, 'script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"])
      expect(directive(csp, 'worker-src')).toEqual(["'self'"])
    }
  })

  it('without a configured URL the media origin follows the host the browser used, and a forged Host changes nothing', async () => {
    const { r, app } = await setup({ staticDir: staticSite() })
    const port = new URL(r.mediaUrl).port
    const asLocalhost = await rawGet(app, '/', { host: `localhost:${new URL(app).port}` })
    expect(directive(String(asLocalhost.headers['content-security-policy']), 'img-src')).toContain(
      `http://localhost:${port}`,
    )
    const info = await rawGet(app, '/', { host: 'localhost', ...NIP11 })
    expect(JSON.parse(info.body).roost.blossom.url).toBe(`http://localhost:${port}`)
    for (const host of ["evil.example; script-src 'unsafe-inline'", 'a b', 'x/y']) {
      const res = await rawGet(app, '/', { host })
      const csp = String(res.headers['content-security-policy'])
      expect(directive(csp, 'script-src'), host).toEqual(["'self'", "'wasm-unsafe-eval'"])
      expect(directive(csp, 'img-src'), host).toContain(r.mediaUrl)
    }
  })

  it('--media-url names the public origin (descriptors, NIP-11, CSP); --url lends its host to the media port', async () => {
    const mediaPort = await freePort()
    const { r, alice, app } = await setup({
      mediaPort,
      mediaUrl: 'https://media.example',
      staticDir: staticSite(),
    })
    expect(r.mediaUrl).toBe('https://media.example')
    const local = `http://127.0.0.1:${mediaPort}`
    const res = await putBlob(local, PNG, {
      authorization: uploadAuth(alice, PNG, { servers: ['media.example'] }),
      'content-type': 'image/png',
    })
    expect(((await res.json()) as { url: string }).url).toBe(`https://media.example/${sha(PNG)}.png`)
    // An authorization for another server is refused (BUD-11).
    const elsewhere = await putBlob(local, PNG, {
      authorization: uploadAuth(alice, PNG, { servers: ['other.example'] }),
    })
    expect(elsewhere.status).toBe(401)
    expect((await (await fetch(app, { headers: NIP11 })).json()).roost.blossom.url).toBe(
      'https://media.example',
    )
    expect(directive((await fetch(app)).headers.get('content-security-policy') ?? '', 'img-src')).toContain(
      'https://media.example',
    )

    const behind = await relay({ urls: ['wss://relay.example'], mediaPort: await freePort() })
    expect(behind.mediaUrl).toBe(`https://relay.example:${new URL(behind.mediaUrl).port}`)
  })

  it('refuses a media URL that is not an http(s) origin, and a bad media port', async () => {
    for (const mediaUrl of [
      'ftp://media.example',
      'https://relay.example/media',
      'not a url',
      'https://u:p@m.example',
    ])
      await expect(startRelay({ mediaUrl }), mediaUrl).rejects.toThrow(/mediaUrl/)
    await expect(startRelay({ mediaPort: 70000 })).rejects.toThrow(/mediaPort/)
    expect(parseCli(['--media-port', '7790', '--media-url', 'https://media.example'])).toMatchObject({
      ok: true,
      options: { mediaPort: 7790, mediaUrl: 'https://media.example' },
    })
    expect(parseCli(['--media-url', 'https://relay.example/blobs'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--media-url/),
    })
    expect(parseCli(['--media-port', 'x'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--media-port/),
    })
  })
})
