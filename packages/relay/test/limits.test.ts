/**
 * Resource limits: a public relay stays responsive while one client misbehaves. Each cap is set low
 * here so it is reached with little traffic; the defaults are in LIMITS.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { LIMITS, PROFILES } from '../src/index'
import { connect, h, publish, RawClient, relay, signMany, user } from './helpers'

/** A raw socket that records frames and how it was closed, and can stop reading (never-reading client). */
async function rawSocket(url: string) {
  const ws = new WebSocket(url)
  const frames: unknown[][] = []
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as unknown[]))
  ws.on('error', () => {})
  await new Promise<void>((resolve) => {
    ws.once('open', () => resolve())
    ws.once('close', () => resolve())
  })
  const socket = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket
  return {
    ws,
    frames,
    closed,
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    until: async (pred: (m: unknown[]) => boolean, timeoutMs = 20_000) => {
      const start = Date.now()
      while (!frames.some(pred)) {
        if (Date.now() - start > timeoutMs) throw new Error('timed out waiting for a frame')
        await new Promise((r) => setTimeout(r, 10))
      }
      return frames.find(pred) as unknown[]
    },
  }
}

/** Stores `n` kind 9 events of `size` characters in `group`, through one nostr-tools connection. */
async function fill(url: string, group: string, n: number, size: number): Promise<NostrEvent[]> {
  const c = await connect(url)
  const templates = Array.from({ length: n }, (_, i) => ({
    kind: 9,
    tags: h(group),
    content: `${i} ${'x'.repeat(size)}`,
  }))
  const out = await signMany(user(), templates)
  // In batches, so that no publish waits behind hundreds of others past nostr-tools' timeout.
  for (let i = 0; i < out.length; i += 50) {
    const answers = await Promise.all(out.slice(i, i + 50).map((e) => publish(c, e)))
    expect(answers.filter((a) => !a.ok)).toEqual([])
  }
  return out
}

const noRate = { rateLimit: { events: 0, perSeconds: 1 } }

describe('resource limits', () => {
  it('max_message_length counts bytes, not UTF-16 units', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    // 50,000 characters, 150,000 bytes: under the limit in UTF-16 units, over it in bytes.
    const euros = user().sign({ kind: 1, content: '€'.repeat(50_000) })
    expect(euros.content.length).toBeLessThan(LIMITS.maxMessageLength)
    expect(await raw.publish(euros)).toEqual({ ok: false, message: 'invalid: event too large' })
  })

  it('a slow reader is paced by bufferedAmount, not cut in the middle of a normal 500-event result', async () => {
    const r = await relay({ ...noRate, limits: { pacingBytes: 64 * 1024, maxBufferedBytes: 1024 * 1024 } })
    const g = await r.createGroup({ name: 'Big' })
    await fill(r.url, g, 500, 16_000) // about 8 MB of results
    const slow = await rawSocket(r.url)
    slow.ws.send(JSON.stringify(['REQ', 'all', { '#h': [g], limit: 500 }]))
    slow.pause()
    await new Promise((resolve) => setTimeout(resolve, 500))
    slow.resume()
    await slow.until((m) => m[0] === 'EOSE' && m[1] === 'all', 60_000)
    expect(slow.frames.filter((m) => m[0] === 'EVENT' && m[1] === 'all')).toHaveLength(500)
    expect(slow.ws.readyState).toBe(WebSocket.OPEN)
    slow.ws.terminate()
  }, 90_000)

  it('what one never-reading connection holds is bounded: past the memory cap it is closed', async () => {
    const r = await relay({ ...noRate, limits: { pacingBytes: 16 * 1024, maxBufferedBytes: 256 * 1024 } })
    const g = await r.createGroup({ name: 'Busy' })
    const sink = await rawSocket(r.url)
    sink.ws.send(JSON.stringify(['REQ', 'live', { '#h': [g], limit: 0 }]))
    await sink.until((m) => m[0] === 'EOSE')
    sink.pause()
    await fill(r.url, g, 600, 16_000) // about 10 MB broadcast to a reader that does not read
    sink.resume()
    expect(await sink.closed).toEqual({ code: 1008, reason: 'too slow to read' })
  }, 90_000)

  it('connections are capped in total and per IP, answered with a NOTICE and a reason', async () => {
    const perIp = await relay({ limits: { maxConnectionsPerIp: 2 } })
    const a = await rawSocket(perIp.url)
    const b = await rawSocket(perIp.url)
    const third = await rawSocket(perIp.url)
    expect(await third.closed).toMatchObject({ code: 1008 })
    expect(third.frames).toEqual([['NOTICE', 'blocked: too many connections from your address (at most 2)']])
    a.ws.terminate()
    await a.closed
    // A slot freed by a disconnect can be used again.
    const again = await RawClient.open(perIp.url)
    await again.ping()
    b.ws.terminate()

    const total = await relay({ limits: { maxConnections: 1 } })
    await RawClient.open(total.url)
    const over = await rawSocket(total.url)
    expect(await over.closed).toMatchObject({ code: 1008 })
    expect(over.frames).toEqual([['NOTICE', 'blocked: the relay is full (at most 1 connections)']])
  })

  it('subscriptions per connection, filters per REQ, values per tag filter and tags per event are capped with a reason', async () => {
    const r = await relay({
      limits: { maxSubscriptions: 2, maxFilters: 2, maxFilterValues: 3, maxEventTags: 4 },
    })
    const raw = await RawClient.open(r.url)
    expect((await raw.req('s1', { kinds: [1] })).closed).toBeUndefined()
    expect((await raw.req('s2', { kinds: [1] })).closed).toBeUndefined()
    expect((await raw.req('s3', { kinds: [1] })).closed).toBe('blocked: too many subscriptions (at most 2)')
    raw.send(['CLOSE', 's1'])
    expect((await raw.req('f', { kinds: [1] }, { kinds: [2] }, { kinds: [3] })).closed).toBe(
      'blocked: too many filters (at most 2)',
    )
    expect((await raw.req('v', { '#h': ['a', 'b', 'c', 'd'] })).closed).toBe('invalid: too many #h values')
    const tagged = user().sign({
      kind: 1,
      tags: [
        ['t', '1'],
        ['t', '2'],
        ['t', '3'],
        ['t', '4'],
        ['t', '5'],
      ],
    })
    expect(await raw.publish(tagged)).toEqual({ ok: false, message: 'invalid: too many tags (at most 4)' })
  })

  it('a per-connection query-cost budget keeps broadcast matching bounded (50 × 10 × 1,000-value filters are refused)', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    const values = Array.from({ length: LIMITS.maxFilterValues }, (_, i) => `v${i}`)
    const heavy = Array.from({ length: LIMITS.maxFilters }, () => ({ '#t': values }))
    const answers: (string | undefined)[] = []
    for (let i = 0; i < 50; i++) answers.push((await raw.req(`heavy${i}`, ...heavy)).closed)
    const refused = answers.filter((a) => a !== undefined)
    expect(refused.length).toBeGreaterThanOrEqual(49)
    expect(refused[0]).toMatch(
      /^blocked: subscriptions too costly \(\d+ filter values, at most 20000 per connection\)$/,
    )
    // Closing subscriptions frees the budget.
    for (let i = 0; i < 50; i++) raw.send(['CLOSE', `heavy${i}`])
    expect((await raw.req('light', { '#t': values })).closed).toBeUndefined()
  })

  it('NIP-11 limitation advertises every cap, with the operator’s values', async () => {
    const r = await relay({ limits: { maxConnectionsPerIp: 7, maxQueryCost: 1234 } })
    const res = await fetch(r.url.replace('ws://', 'http://'), {
      headers: { Accept: 'application/nostr+json' },
    })
    const info = (await res.json()) as { limitation: Record<string, unknown> }
    expect(info.limitation).toMatchObject({
      max_message_length: LIMITS.maxMessageLength,
      max_subscriptions: LIMITS.maxSubscriptions,
      max_filters: LIMITS.maxFilters,
      max_event_tags: LIMITS.maxEventTags,
      max_filter_values: LIMITS.maxFilterValues,
      max_query_cost: 1234,
      max_connections: LIMITS.maxConnections,
      max_connections_per_ip: 7,
      max_auth_keys: LIMITS.maxAuthKeys,
      created_at_upper_limit: 60,
    })
  })

  it('HTTP: NIP-11 and OPTIONS carry the safety headers; HTML answers add Permissions-Policy and COOP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-headers-'))
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>x</title>')
    const r = await relay({ staticDir: dir })
    const base = r.url.replace('ws://', 'http://')
    const nip11 = await fetch(base, { headers: { Accept: 'application/nostr+json' } })
    expect(nip11.headers.get('x-content-type-options')).toBe('nosniff')
    const options = await fetch(base, { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('x-content-type-options')).toBe('nosniff')
    const html = await fetch(`${base}/`)
    expect(html.headers.get('content-type')).toMatch(/^text\/html/)
    expect(html.headers.get('permissions-policy')).toMatch(/camera=\(\)/)
    expect(html.headers.get('cross-origin-opener-policy')).toBe('same-origin')
    expect(html.headers.get('x-content-type-options')).toBe('nosniff')
    await html.text()
  })
})

describe('the README’s future windows are the code’s', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const row = (first: string) =>
    readme
      .split('\n')
      .find((l) => l.startsWith(`| ${first}`))
      ?.split('|')
      .map((c) => c.trim())

  it('maxFutureSeconds is the default of the limits table, and each profile’s group window is in its own table', () => {
    expect(row('`maxFutureSeconds`')?.[2]).toBe(LIMITS.maxFutureSeconds.toLocaleString('en-US'))
    for (const [name, policy] of Object.entries(PROFILES)) {
      const said = row(`\`${name}\``)?.[2]
      expect(said, name).toBe(
        policy.futureWindow === undefined ? '`maxFutureSeconds` only' : `${policy.futureWindow} s`,
      )
    }
  })
})
