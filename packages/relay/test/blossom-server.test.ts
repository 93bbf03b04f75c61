import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { blossomAuthTemplate, encodeAuthHeader, parseBlobDescriptor } from '@roost/nip29'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { byteRange } from '../src/media/blob-types'
import { createBlossomHandler } from '../src/media/blossom-server'
import { serve } from './media-helpers'

const NOW = 1_750_000_000
const member = generateSecretKey()
const stranger = generateSecretKey()
const members = new Set([getPublicKey(member)])
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

function auth(secret: Uint8Array, over: Partial<Parameters<typeof blossomAuthTemplate>[0]> = {}): string {
  const template = blossomAuthTemplate({
    verb: 'upload',
    sha256: sha(PNG),
    expiration: NOW + 300,
    createdAt: NOW - 5,
    ...over,
  })
  return encodeAuthHeader(finalizeEvent(template, secret))
}

async function blossom(over: Partial<Parameters<typeof createBlossomHandler>[0]> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'roost-blossom-'))
  const base = await serve(
    createBlossomHandler({
      dir,
      mayUpload: async (pk) => members.has(pk) || 'uploads are for members of a group on this relay',
      clock: () => NOW,
      maxBytes: 1024,
      ...over,
    }),
  )
  return { base, dir }
}

function put(base: string, body: Uint8Array<ArrayBuffer>, headers: Record<string, string>) {
  return fetch(`${base}/upload`, { method: 'PUT', body, headers })
}

describe('Blossom server: PUT /upload (BUD-02)', () => {
  it('stores a member upload by its SHA-256 and answers the descriptor', async () => {
    const { base, dir } = await blossom()
    const res = await put(base, PNG, { authorization: auth(member), 'content-type': 'image/png' })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    const d = parseBlobDescriptor(await res.json())
    expect(d).toEqual({
      url: `${base}/${sha(PNG)}.png`,
      sha256: sha(PNG),
      size: PNG.length,
      type: 'image/png',
      uploaded: NOW,
    })
    expect(readdirSync(dir).sort()).toEqual(['.incoming', sha(PNG), `${sha(PNG)}.json`])
    expect(readdirSync(join(dir, '.incoming'))).toEqual([])

    const again = await put(base, PNG, { authorization: auth(member), 'content-type': 'text/html' })
    expect(((await again.json()) as { type: string }).type).toBe('image/png')
  })

  it('builds URLs from the configured public URL, not the Host header', async () => {
    const { base } = await blossom({ publicUrl: 'https://media.example/' })
    const res = await put(base, PNG, {
      authorization: auth(member, { servers: ['media.example'] }),
      'content-type': 'image/png',
    })
    expect(((await res.json()) as { url: string }).url).toBe(`https://media.example/${sha(PNG)}.png`)
    const elsewhere = await put(base, PNG, { authorization: auth(member, { servers: ['other.example'] }) })
    expect(elsewhere.status).toBe(401)
    expect(elsewhere.headers.get('x-reason')).toMatch(/another server/)
  })

  it('refuses without a valid authorization (401) and for non-members (403), storing nothing', async () => {
    const { base, dir } = await blossom()
    const cases: [Record<string, string>, number, RegExp][] = [
      [{}, 401, /missing Authorization/],
      [{ authorization: 'Bearer x' }, 401, /Nostr/],
      [{ authorization: auth(member, { expiration: NOW - 1, createdAt: NOW - 10 }) }, 401, /expired/],
      [{ authorization: auth(member, { verb: 'delete' }) }, 401, /not for upload/],
      [{ authorization: auth(stranger) }, 403, /members/],
      [{ authorization: auth(member, { sha256: 'e'.repeat(64) }) }, 403, /does not name this blob/],
      [{ authorization: auth(member), 'x-sha-256': 'e'.repeat(64) }, 401, /does not name this blob/],
      [{ authorization: auth(member), 'x-sha-256': 'nothex' }, 400, /X-SHA-256/],
    ]
    for (const [headers, status, reason] of cases) {
      const res = await put(base, PNG, headers)
      expect([res.status, res.headers.get('x-reason')]).toEqual([status, expect.stringMatching(reason)])
      await res.text()
    }
    expect(readdirSync(dir).filter((f) => !f.startsWith('.'))).toEqual([])
  })

  it('refuses a tampered authorization', async () => {
    const { base } = await blossom()
    const event = finalizeEvent(
      blossomAuthTemplate({ verb: 'upload', sha256: sha(PNG), expiration: NOW + 300, createdAt: NOW }),
      stranger,
    )
    const forged = encodeAuthHeader({ ...JSON.parse(JSON.stringify(event)), pubkey: getPublicKey(member) })
    const res = await put(base, PNG, { authorization: forged })
    expect(res.status).toBe(401)
    expect(res.headers.get('x-reason')).toBe('bad signature')
  })

  it('enforces the size cap from Content-Length and while streaming', async () => {
    const { base, dir } = await blossom({ maxBytes: 16 })
    const big = new Uint8Array(17).fill(1)
    const declared = await put(base, big, { authorization: auth(member, { sha256: sha(big) }) })
    expect(declared.status).toBe(413)

    // A chunked body of unknown length: the server stops at the cap and stores nothing.
    const status = await new Promise<number | string>((resolve) => {
      const u = new URL(`${base}/upload`)
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'PUT',
          headers: { authorization: auth(member, { sha256: sha(new Uint8Array(64)) }) },
        },
        (res) => resolve(res.statusCode ?? 0),
      )
      req.on('error', (err) => resolve((err as NodeJS.ErrnoException).code ?? 'error'))
      for (let i = 0; i < 8; i++) req.write(new Uint8Array(8))
      req.end()
    })
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(status)
    expect(readdirSync(dir).filter((f) => !f.startsWith('.'))).toEqual([])
    expect(readdirSync(join(dir, '.incoming'))).toEqual([])
  })

  it('answers HEAD /upload preflight checks (BUD-06)', async () => {
    const { base } = await blossom()
    const head = (headers: Record<string, string>) => fetch(`${base}/upload`, { method: 'HEAD', headers })
    const ok = { authorization: auth(member), 'x-sha-256': sha(PNG), 'x-content-length': String(PNG.length) }
    expect((await head(ok)).status).toBe(200)
    expect((await head({ ...ok, 'x-content-length': '999999' })).status).toBe(413)
    expect((await head({ ...ok, authorization: auth(stranger) })).status).toBe(403)
    expect((await head({ authorization: auth(member), 'x-sha-256': sha(PNG) })).status).toBe(411)
    expect((await head({ authorization: auth(member) })).status).toBe(400)
  })
})

describe('Blossom server: DELETE /<sha256> (BUD-02)', () => {
  const del = (base: string, secret: Uint8Array, hash = sha(PNG), verb: 'delete' | 'upload' = 'delete') =>
    fetch(`${base}/${hash}`, {
      method: 'DELETE',
      headers: { authorization: auth(secret, { verb, sha256: hash }) },
    })

  it('deletes a blob for its uploader; a second uploader keeps it until they delete too', async () => {
    const second = generateSecretKey()
    members.add(getPublicKey(second))
    const { base, dir } = await blossom()
    await (await put(base, PNG, { authorization: auth(member), 'content-type': 'image/png' })).text()
    await (await put(base, PNG, { authorization: auth(second) })).text()

    const first = await del(base, member)
    expect([first.status, await first.text()]).toEqual([200, 'released'])
    expect((await fetch(`${base}/${sha(PNG)}`)).status).toBe(200)
    expect((await del(base, member)).status).toBe(403)

    const last = await del(base, second)
    expect([last.status, await last.text()]).toEqual([200, 'deleted'])
    expect((await fetch(`${base}/${sha(PNG)}`)).status).toBe(404)
    expect(readdirSync(dir).filter((f) => !f.startsWith('.'))).toEqual([])
    expect((await del(base, second)).status).toBe(404)
  })

  it('refuses strangers, other verbs and authorizations for another blob', async () => {
    const { base } = await blossom()
    await (await put(base, PNG, { authorization: auth(member) })).text()
    expect((await del(base, stranger)).status).toBe(403)
    const upload = await del(base, member, sha(PNG), 'upload')
    expect([upload.status, upload.headers.get('x-reason')]).toEqual([401, 'authorization is not for delete'])
    const other = await fetch(`${base}/${sha(PNG)}`, {
      method: 'DELETE',
      headers: { authorization: auth(member, { verb: 'delete', sha256: 'f'.repeat(64) }) },
    })
    expect([other.status, other.headers.get('x-reason')]).toEqual([
      401,
      'authorization does not name this blob',
    ])
    expect((await fetch(`${base}/${sha(PNG)}`, { method: 'DELETE' })).status).toBe(401)
    expect((await fetch(`${base}/${sha(PNG)}`)).status).toBe(200)
  })

  it('keeps the record consistent under concurrent uploads and deletes', async () => {
    const { base } = await blossom()
    const uploads = Array.from({ length: 6 }, () =>
      put(base, PNG, { authorization: auth(member), 'content-type': 'image/png' }),
    )
    for (const res of await Promise.all(uploads)) expect(res.status).toBe(200)
    const [a, b] = await Promise.all([del(base, member), del(base, member)])
    expect([a?.status, b?.status].sort()).toEqual([200, 404])
    expect((await fetch(`${base}/${sha(PNG)}`)).status).toBe(404)
  })
})

describe('Blossom server: GET /list/<pubkey> (BUD-02)', () => {
  it("lists a key's uploads, newest first, only to that key", async () => {
    let now = NOW
    const dir = mkdtempSync(join(tmpdir(), 'roost-blossom-'))
    const base = await serve(
      createBlossomHandler({
        dir,
        mayUpload: async (pk) => members.has(pk) || 'uploads are for members of a group on this relay',
        clock: () => now,
      }),
    )
    const other = Buffer.from('second file')
    await (await put(base, PNG, { authorization: auth(member), 'content-type': 'image/png' })).text()
    now += 10
    await (
      await put(base, other, {
        authorization: auth(member, { sha256: sha(other) }),
        'content-type': 'text/plain',
      })
    ).text()
    const me = getPublicKey(member)
    const listAuth = (secret: Uint8Array) => ({
      authorization: encodeAuthHeader(
        finalizeEvent(blossomAuthTemplate({ verb: 'list', expiration: NOW + 300, createdAt: NOW }), secret),
      ),
    })

    const res = await fetch(`${base}/list/${me}`, { headers: listAuth(member) })
    expect(res.status).toBe(200)
    const list = ((await res.json()) as unknown[]).map(parseBlobDescriptor)
    expect(list.map((d) => [d.sha256, d.type, d.uploaded])).toEqual([
      [sha(other), 'text/plain', NOW + 10],
      [sha(PNG), 'image/png', NOW],
    ])
    const since = await fetch(`${base}/list/${me}?since=${NOW + 5}`, { headers: listAuth(member) })
    expect(((await since.json()) as unknown[]).length).toBe(1)
    const until = await fetch(`${base}/list/${me}?until=${NOW + 5}`, { headers: listAuth(member) })
    expect(((await until.json()) as { sha256: string }[]).map((d) => d.sha256)).toEqual([sha(PNG)])

    expect((await fetch(`${base}/list/${me}`, { headers: listAuth(stranger) })).status).toBe(403)
    expect((await fetch(`${base}/list/${me}`)).status).toBe(401)
    expect((await fetch(`${base}/list/${me}`, { headers: { authorization: auth(member) } })).status).toBe(401)
    const theirs = await fetch(`${base}/list/${getPublicKey(stranger)}`, { headers: listAuth(stranger) })
    expect(await theirs.json()).toEqual([])
  })
})

describe('Blossom server: GET/HEAD /<sha256> (BUD-01)', () => {
  it('serves the blob with its type, length, caching and safety headers', async () => {
    const { base } = await blossom()
    await (await put(base, PNG, { authorization: auth(member), 'content-type': 'image/png' })).text()
    for (const path of [`/${sha(PNG)}`, `/${sha(PNG)}.png`, `/${sha(PNG)}.jpg`]) {
      const res = await fetch(base + path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('image/png')
      expect(res.headers.get('content-length')).toBe(String(PNG.length))
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('content-security-policy')).toContain('sandbox')
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('content-disposition')).toBeNull()
      expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true)
    }
    expect((await fetch(`${base}/${sha(PNG)}`)).headers.get('accept-ranges')).toBe('bytes')
    const head = await fetch(`${base}/${sha(PNG)}`, { method: 'HEAD' })
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([
      200,
      String(PNG.length),
      '',
    ])
  })

  it('answers one byte range with 206, and 416 outside the blob', async () => {
    const { base } = await blossom()
    await (await put(base, PNG, { authorization: auth(member), 'content-type': 'image/png' })).text()
    const part = await fetch(`${base}/${sha(PNG)}`, { headers: { range: 'bytes=2-5' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 2-5/${PNG.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(PNG.subarray(2, 6))).toBe(true)
    const tail = await fetch(`${base}/${sha(PNG)}`, { headers: { range: 'bytes=-3' } })
    expect(Buffer.from(await tail.arrayBuffer()).equals(PNG.subarray(-3))).toBe(true)
    const outside = await fetch(`${base}/${sha(PNG)}`, { headers: { range: `bytes=${PNG.length}-` } })
    expect([outside.status, outside.headers.get('content-range')]).toEqual([416, `bytes */${PNG.length}`])
    const several = await fetch(`${base}/${sha(PNG)}`, { headers: { range: 'bytes=0-1,3-4' } })
    expect(several.status).toBe(200)
    expect((await several.arrayBuffer()).byteLength).toBe(PNG.length)
  })

  it('byteRange reads single ranges and ignores what it cannot honour', () => {
    expect(byteRange(undefined, 10)).toBeUndefined()
    expect(byteRange('bytes=0-0', 10)).toEqual({ start: 0, end: 0 })
    expect(byteRange('bytes=4-', 10)).toEqual({ start: 4, end: 9 })
    expect(byteRange('bytes=4-100', 10)).toEqual({ start: 4, end: 9 })
    expect(byteRange('bytes=-4', 10)).toEqual({ start: 6, end: 9 })
    expect(byteRange('bytes=-40', 10)).toEqual({ start: 0, end: 9 })
    expect(byteRange('bytes=10-', 10)).toBe('unsatisfiable')
    expect(byteRange('bytes=-0', 10)).toBe('unsatisfiable')
    expect(byteRange('bytes=0-', 0)).toBe('unsatisfiable')
    for (const ignored of [
      'bytes=5-3',
      'bytes=-',
      'items=0-1',
      'bytes=0-1,2-3',
      'bytes=abc',
      `bytes=${'9'.repeat(30)}-`,
    ]) {
      expect(byteRange(ignored, 10)).toBeUndefined()
    }
  })

  it('sends HTML and SVG as attachments, never as pages', async () => {
    const { base } = await blossom()
    const html = Buffer.from('<script>alert(document.cookie)</script>')
    await (
      await put(base, html, {
        authorization: auth(member, { sha256: sha(html) }),
        'content-type': 'text/html',
      })
    ).text()
    const res = await fetch(`${base}/${sha(html)}.html`)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/)
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
  })

  it('uses the extension for a blob stored without a type, and 404s the unknown', async () => {
    const { base } = await blossom()
    await (await put(base, PNG, { authorization: auth(member) })).text()
    expect((await fetch(`${base}/${sha(PNG)}`)).headers.get('content-type')).toBe('application/octet-stream')
    expect((await fetch(`${base}/${sha(PNG)}.png`)).headers.get('content-type')).toBe('image/png')
    const missing = await fetch(`${base}/${'0'.repeat(64)}`)
    expect([missing.status, missing.headers.get('x-reason')]).toEqual([404, 'blob not found'])
  })

  it('leaves every other path to the next handler and answers CORS preflight', async () => {
    const { base } = await blossom()
    for (const path of [
      '/',
      '/index.html',
      `/${'A'.repeat(64)}`,
      `/${'a'.repeat(63)}`,
      '/upload/x',
      `/${'a'.repeat(64)}/x`,
      `/${'a'.repeat(64)}.tar.gz`,
    ]) {
      const res = await fetch(base + path)
      expect([path, res.headers.get('x-fallthrough')]).toEqual([path, '1'])
    }
    const pre = await fetch(`${base}/upload`, { method: 'OPTIONS' })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-methods')).toContain('PUT')
    expect((await fetch(`${base}/${sha(PNG)}.png`, { method: 'DELETE' })).status).toBe(405)
    expect((await fetch(`${base}/${sha(PNG)}`, { method: 'POST' })).status).toBe(405)
  })
})
