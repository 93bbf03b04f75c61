import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseCli } from '../src/cli'
import { startRelay, type UploadQuota } from '../src/index'
import { UploadQuotas } from '../src/media/upload-quota'
import { relay, T0, TestClock, type User, user } from './helpers'
import { putBlob, sha, uploadAuth } from './media-helpers'

const NIP11 = { accept: 'application/nostr+json' }
const DAY = 86_400

/** A relay on a test clock whose operator group has `alice` and `bob` as members, and upload helpers. */
async function setup(uploadQuota?: Partial<UploadQuota>, maxUpload?: number) {
  const clock = new TestClock(T0)
  const r = await relay({
    clock: clock.now,
    ...(uploadQuota && { uploadQuota }),
    ...(maxUpload !== undefined && { maxUpload }),
  })
  const alice = user(clock)
  const bob = user(clock)
  await r.createGroup({ name: 'Pics', members: [alice.pk, bob.pk] })
  let n = 0
  /** A body of `size` bytes no other upload has. */
  const body = (size = 16) => {
    const b = Buffer.alloc(size, 0x61)
    b.write(`${n++}:`)
    return b
  }
  const auth = (who: User, b: Buffer) =>
    uploadAuth(who, b, { createdAt: clock.now(), expiration: clock.now() + 300 })
  /** Uploads `b` as `who`: status, reason, Retry-After. */
  const upload = async (who: User, b: Buffer = body()) => {
    const res = await putBlob(r.mediaUrl, b, { authorization: auth(who, b) })
    await res.text()
    return {
      status: res.status,
      reason: res.headers.get('x-reason') ?? '',
      retry: res.headers.get('retry-after'),
    }
  }
  return { r, clock, alice, bob, body, auth, upload }
}

describe('daily upload quotas', () => {
  it('past its daily count a key gets 429 with the reason and Retry-After; others still upload; a new UTC day starts over', async () => {
    const { clock, alice, bob, upload } = await setup({ uploadsPerKeyPerDay: 3 })
    for (let i = 0; i < 3; i++) expect((await upload(alice)).status).toBe(200)
    const over = await upload(alice)
    expect(over).toEqual({
      status: 429,
      reason: 'daily upload quota reached for this key: 3 uploads a day; the count starts over at 00:00 UTC',
      retry: String(DAY - (clock.now() % DAY)),
    })
    expect((await upload(bob)).status).toBe(200)
    clock.advance(DAY - (clock.now() % DAY))
    expect((await upload(alice)).status).toBe(200)
  })

  it('by default a key gets 100 uploads a day (the flood of small uploads is bounded)', async () => {
    const { alice, upload } = await setup()
    for (let batch = 0; batch < 10; batch++) {
      const statuses = await Promise.all(Array.from({ length: 10 }, () => upload(alice)))
      expect(statuses.map((s) => s.status)).toEqual(Array(10).fill(200))
    }
    expect(await upload(alice)).toMatchObject({
      status: 429,
      reason: expect.stringMatching(/100 uploads a day/),
    })
  })

  it('uploads sent at once cannot overshoot a byte quota together: exactly what fits is stored', async () => {
    const { r, alice, body, upload } = await setup({ bytesPerKeyPerDay: 50_000 })
    const bodies = Array.from({ length: 12 }, () => body(10_000))
    const answers = await Promise.all(bodies.map((b) => upload(alice, b)))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5)
    const refused = answers.filter((a) => a.status === 429)
    expect(refused).toHaveLength(7)
    expect(refused[0]?.reason).toMatch(/^daily upload quota reached for this key: 50000 bytes a day/)
    const stored = await Promise.all(bodies.map(async (b) => (await fetch(`${r.mediaUrl}/${sha(b)}`)).status))
    expect(stored.filter((s) => s === 200)).toHaveLength(5)
  })

  it('the relay’s totals cap everyone together', async () => {
    const count = await setup({ uploadsPerDay: 2 })
    expect((await count.upload(count.alice)).status).toBe(200)
    expect((await count.upload(count.bob)).status).toBe(200)
    expect(await count.upload(count.bob)).toMatchObject({
      status: 429,
      reason: expect.stringMatching(/^this relay's daily upload quota is reached: 2 uploads a day/),
    })
    const bytes = await setup({ bytesPerDay: 100 })
    expect((await bytes.upload(bytes.alice, bytes.body(60))).status).toBe(200)
    expect(await bytes.upload(bytes.bob, bytes.body(60))).toMatchObject({
      status: 429,
      reason: expect.stringMatching(/100 bytes a day/),
    })
    expect((await bytes.upload(bytes.bob, bytes.body(40))).status).toBe(200)
  })

  it('refuses a body that would not fit before reading it, in HEAD /upload too, and an undeclared one as it outgrows the room', async () => {
    const { r, alice, body, auth, upload } = await setup({ bytesPerKeyPerDay: 1_000 })
    expect((await upload(alice, body(600))).status).toBe(200)
    const big = body(500)
    const pre = await fetch(`${r.mediaUrl}/upload`, {
      method: 'HEAD',
      headers: { authorization: auth(alice, big), 'x-sha-256': sha(big), 'x-content-length': '500' },
    })
    expect([pre.status, pre.headers.get('retry-after')]).toEqual([429, expect.stringMatching(/^\d+$/)])
    expect((await upload(alice, big)).status).toBe(429)
    // Streamed without a length: cut off past the room left, refused as over quota (not too large).
    const streamed = await fetch(`${r.mediaUrl}/upload`, {
      method: 'PUT',
      headers: { authorization: auth(alice, big) },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(big))
          controller.close()
        },
      }),
      duplex: 'half',
    } as RequestInit)
    expect([streamed.status, streamed.headers.get('x-reason')]).toEqual([
      429,
      expect.stringMatching(/1000 bytes a day/),
    ])
    expect((await fetch(`${r.mediaUrl}/${sha(big)}`)).status).toBe(404)
    // What was refused took no room: 400 bytes still fit.
    expect((await upload(alice, body(400))).status).toBe(200)
  })

  it('an upload refused as too large uses none of the quota', async () => {
    const { alice, body, upload } = await setup({ uploadsPerKeyPerDay: 2 }, 100)
    for (let i = 0; i < 3; i++) expect((await upload(alice, body(500))).status).toBe(413)
    expect((await upload(alice)).status).toBe(200)
    expect((await upload(alice)).status).toBe(200)
    expect((await upload(alice)).status).toBe(429)
  })

  it('NIP-11 names the quotas in `limitation`; flags set them; bad values are refused', async () => {
    const { r } = await setup()
    const info = await (await fetch(r.url.replace(/^ws/, 'http'), { headers: NIP11 })).json()
    expect(info.limitation).toMatchObject({
      max_uploads_per_key_per_day: 100,
      max_upload_bytes_per_key_per_day: 200 * 1024 * 1024,
      max_uploads_per_day: 2_000,
      max_upload_bytes_per_day: 2 * 1024 * 1024 * 1024,
    })
    const set = await setup({ uploadsPerKeyPerDay: 5, bytesPerDay: 0 })
    const info2 = await (await fetch(set.r.url.replace(/^ws/, 'http'), { headers: NIP11 })).json()
    expect(info2.limitation).toMatchObject({ max_uploads_per_key_per_day: 5, max_upload_bytes_per_day: 0 })
    expect(
      parseCli([
        '--max-uploads-per-key-per-day',
        '20',
        '--max-upload-bytes-per-key-per-day',
        '1048576',
        '--max-uploads-per-day',
        '0',
        '--max-upload-bytes-per-day',
        '1073741824',
      ]),
    ).toMatchObject({
      ok: true,
      options: {
        uploadQuota: {
          uploadsPerKeyPerDay: 20,
          bytesPerKeyPerDay: 1048576,
          uploadsPerDay: 0,
          bytesPerDay: 1073741824,
        },
      },
    })
    expect(parseCli(['--max-uploads-per-day', '-1'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--max-uploads-per-day/),
    })
    await expect(startRelay({ uploadQuota: { bytesPerDay: -1 } })).rejects.toThrow(/uploadQuota\.bytesPerDay/)
  })
})

describe('UploadQuotas (pure)', () => {
  it('property: whatever runs side by side, what is kept never passes a cap, and refused room comes back', () => {
    const op = fc.record({
      key: fc.constantFrom('a', 'b', 'c'),
      declared: fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
      received: fc.integer({ min: 0, max: 400 }),
      outcome: fc.constantFrom('settle', 'release'),
    })
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.integer({ min: 0, max: 40 }), (ops, order) => {
        const quota = { uploadsPerKeyPerDay: 4, bytesPerKeyPerDay: 700, uploadsPerDay: 9, bytesPerDay: 1500 }
        const quotas = new UploadQuotas(quota, () => T0)
        const kept = new Map<string, { count: number; bytes: number }>()
        const open: {
          key: string
          size: number
          outcome: string
          ticket: { limit: number; settle(n: number): void; release(): void }
        }[] = []
        const finish = (i: number) => {
          const [t] = open.splice(i % open.length, 1)
          if (!t) return
          // A body never exceeds its declared length, nor the room its ticket was given.
          const size = Math.min(t.size, t.ticket.limit)
          if (t.outcome === 'release') return t.ticket.release()
          t.ticket.settle(size)
          const k = kept.get(t.key) ?? { count: 0, bytes: 0 }
          kept.set(t.key, { count: k.count + 1, bytes: k.bytes + size })
        }
        for (const [i, o] of ops.entries()) {
          const taken = quotas.take(o.key, o.declared)
          if ('ticket' in taken)
            open.push({
              key: o.key,
              size: o.declared ?? o.received,
              outcome: o.outcome,
              ticket: taken.ticket,
            })
          if ((i + order) % 3 === 0) finish(i + order)
        }
        while (open.length > 0) finish(order)
        const all = [...kept.values()]
        for (const k of all) {
          expect(k.count).toBeLessThanOrEqual(quota.uploadsPerKeyPerDay)
          expect(k.bytes).toBeLessThanOrEqual(quota.bytesPerKeyPerDay)
        }
        expect(all.reduce((n, k) => n + k.count, 0)).toBeLessThanOrEqual(quota.uploadsPerDay)
        expect(all.reduce((n, k) => n + k.bytes, 0)).toBeLessThanOrEqual(quota.bytesPerDay)
        // With everything settled or released, a key with room left gets it again.
        for (const key of ['a', 'b', 'c']) {
          const k = kept.get(key) ?? { count: 0, bytes: 0 }
          const total = all.reduce((n, x) => n + x.count, 0)
          const totalBytes = all.reduce((n, x) => n + x.bytes, 0)
          const fits = k.count < 4 && k.bytes + 1 <= 700 && total < 9 && totalBytes + 1 <= 1500
          expect(quotas.check(key, 1) === undefined, key).toBe(fits)
        }
      }),
    )
  })
})
