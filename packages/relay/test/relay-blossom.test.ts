import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { blossomAuthTemplate, encodeAuthHeader, parseBlobDescriptor } from '@roost/nip29'
import { finalizeEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { parseCli } from '../src/cli'
import { startRelay } from '../src/index'
import { connect, publish, relay, type User, user } from './helpers'

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const now = () => Math.floor(Date.now() / 1000)

function auth(
  who: User,
  body: Uint8Array = PNG,
  over: Partial<Parameters<typeof blossomAuthTemplate>[0]> = {},
) {
  const template = blossomAuthTemplate({
    verb: 'upload',
    sha256: sha(body),
    expiration: now() + 300,
    ...over,
  })
  return encodeAuthHeader(finalizeEvent(template, who.sk))
}

const httpOf = (ws: string) => ws.replace(/^ws/, 'http')

function put(base: string, body: Uint8Array, headers: Record<string, string>) {
  return fetch(`${base}/upload`, { method: 'PUT', body: new Uint8Array(body), headers })
}

/** A relay with one group whose only member is `alice` (an admin). */
async function relayWithMember(opts: Parameters<typeof relay>[0] = {}) {
  const alice = user()
  const r = await relay(opts)
  const groupId = await r.createGroup({ name: 'Pics', admins: [alice.pk] })
  return { r, base: r.mediaUrl, alice, groupId }
}

/** A raw GET whose path is sent exactly as written (fetch would normalise `..`). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const u = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('the relay serves Blossom on its media port', () => {
  it('takes a member upload and serves it back by hash with its type (GET and HEAD)', async () => {
    const { r, base, alice } = await relayWithMember()
    const res = await put(base, PNG, { authorization: auth(alice), 'content-type': 'image/png' })
    expect(res.status).toBe(200)
    const d = parseBlobDescriptor(await res.json())
    expect(d).toMatchObject({ sha256: sha(PNG), size: PNG.length, type: 'image/png' })
    expect(d.url).toBe(`${base}/${sha(PNG)}.png`)

    const got = await fetch(`${base}/${sha(PNG)}`)
    expect(got.status).toBe(200)
    expect(got.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await got.arrayBuffer())).toEqual(PNG)
    const head = await fetch(d.url, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(PNG.length))
    expect(head.headers.get('content-type')).toBe('image/png')
    // NIP-11, on the relay's port, says where Blossom is.
    const info = await (await fetch(httpOf(r.url), { headers: { accept: 'application/nostr+json' } })).json()
    expect(info.roost.blossom).toEqual({ url: base, max_upload: 20 * 1024 * 1024, uploads: 'invited' })
  })

  it('answers 404 for an unknown hash', async () => {
    const { base } = await relayWithMember()
    const res = await fetch(`${base}/${'ab'.repeat(32)}`)
    expect(res.status).toBe(404)
  })

  it('refuses a body whose hash the authorization does not name, and a mismatching X-SHA-256', async () => {
    const { base, alice } = await relayWithMember()
    const other = Buffer.from('not the png')
    const wrong = await put(base, PNG, { authorization: auth(alice, other) })
    expect(wrong.status).toBe(403)
    expect(wrong.headers.get('x-reason')).toMatch(/does not name/)
    const claimed = await put(base, PNG, { authorization: auth(alice), 'x-sha-256': sha(other) })
    expect([400, 401]).toContain(claimed.status)
    expect((await fetch(`${base}/${sha(PNG)}`)).status).toBe(404)
  })

  it('refuses expired, forged and wrong-verb authorizations, and none at all', async () => {
    const { base, alice } = await relayWithMember()
    const expired = await put(base, PNG, {
      authorization: auth(alice, PNG, { createdAt: now() - 60, expiration: now() - 10 }),
    })
    expect(expired.status).toBe(401)
    expect(expired.headers.get('x-reason')).toMatch(/expir/)
    const mallory = user()
    const event = finalizeEvent(
      blossomAuthTemplate({ verb: 'upload', sha256: sha(PNG), expiration: now() + 300 }),
      mallory.sk,
    )
    const forged = await put(base, PNG, { authorization: encodeAuthHeader({ ...event, pubkey: alice.pk }) })
    expect(forged.status).toBe(401)
    const del = await put(base, PNG, { authorization: auth(alice, PNG, { verb: 'delete' }) })
    expect(del.status).toBe(401)
    const none = await put(base, PNG, {})
    expect(none.status).toBe(401)
    expect((await fetch(`${base}/${sha(PNG)}`)).status).toBe(404)
  })

  it('refuses a key that is a member of no group here, and one removed from its group', async () => {
    const { r, base, alice, groupId } = await relayWithMember()
    const stranger = user()
    const res = await put(base, PNG, { authorization: auth(stranger) })
    expect(res.status).toBe(403)
    expect(res.headers.get('x-reason')).toMatch(/someone else let into a group/)

    const bob = user()
    const ws = await connect(r.url, alice)
    expect(
      (
        await publish(
          ws,
          alice.sign({
            kind: 9000,
            tags: [
              ['h', groupId],
              ['p', bob.pk],
            ],
          }),
        )
      ).ok,
    ).toBe(true)
    expect((await put(base, PNG, { authorization: auth(bob) })).status).toBe(200)
    expect(
      (
        await publish(
          ws,
          alice.sign({
            kind: 9001,
            tags: [
              ['h', groupId],
              ['p', bob.pk],
            ],
          }),
        )
      ).ok,
    ).toBe(true)
    const body = Buffer.from('second file')
    expect((await put(base, body, { authorization: auth(bob, body) })).status).toBe(403)
  })

  it('refuses an upload over --max-upload, declared or streamed, and stores nothing', async () => {
    const { r, base, alice } = await relayWithMember({ maxUpload: 16 })
    const big = Buffer.alloc(64, 7)
    const res = await put(base, big, { authorization: auth(alice, big) })
    expect(res.status).toBe(413)
    expect((await fetch(`${base}/${sha(big)}`)).status).toBe(404)
    const info = await (await fetch(httpOf(r.url), { headers: { accept: 'application/nostr+json' } })).json()
    expect(info.roost.blossom.max_upload).toBe(16)
    await expect(startRelay({ maxUpload: 0 })).rejects.toThrow(/maxUpload/)
    expect(parseCli(['--max-upload', '1048576', '--blob-dir', 'media'])).toMatchObject({
      ok: true,
      options: { maxUpload: 1048576, blobDir: 'media' },
    })
    expect(parseCli(['--max-upload', '-1'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/max-upload/),
    })
  })

  it('never serves a file outside the blob store (path traversal)', async () => {
    const { base, alice } = await relayWithMember()
    expect((await put(base, PNG, { authorization: auth(alice) })).status).toBe(200)
    for (const path of [
      '/../../../../etc/passwd',
      '/..%2f..%2f..%2fetc%2fpasswd',
      `/${sha(PNG)}/../../../etc/passwd`,
      `/.incoming/${sha(PNG)}`,
      `/${sha(PNG).toUpperCase()}`,
    ]) {
      const res = await rawGet(base, path)
      expect(res.body, path).not.toMatch(/root:|"uploaders"|sha256/)
      expect(res.status, path).toBe(404)
    }
    // An extension only names a type: `.json` is the blob itself, never its upload record.
    const record = await rawGet(base, `/${sha(PNG)}.json`)
    expect(record.body).not.toMatch(/uploaders|sha256/)
  })

  it('keeps blobs beside a SQLite file, across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-relay-media-'))
    const db = join(dir, 'relay.db')
    const alice = user()
    const first = await startRelay({ port: 0, db })
    await first.createGroup({ name: 'Pics', admins: [alice.pk] })
    expect(
      (await put(first.mediaUrl, PNG, { authorization: auth(alice), 'content-type': 'image/png' })).status,
    ).toBe(200)
    await first.close()
    expect(readFileSync(join(dir, 'blobs', sha(PNG)))).toEqual(PNG)
    const second = await startRelay({ port: 0, db })
    try {
      const res = await fetch(`${second.mediaUrl}/${sha(PNG)}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('image/png')
    } finally {
      await second.close()
    }
  })
})
