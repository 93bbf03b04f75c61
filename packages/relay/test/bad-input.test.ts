import fc from 'fast-check'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { LIMITS } from '../src/index'
import { h, RawClient, relay, user } from './helpers'

const PREFIX = /^(duplicate|pow|blocked|rate-limited|invalid|restricted|mute|error|auth-required): /

describe('bad input and load', () => {
  it('answers malformed frames with NOTICE and keeps serving the connection', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    for (const frame of [
      'not json',
      '{}',
      '[]',
      '[1,2]',
      '["EVENT"]',
      '["CLOSE"]',
      '["REQ"]',
      '["FOO","x"]',
      'null',
    ]) {
      const from = raw.frames.length
      raw.send(frame)
      const notice = await raw.next((f) => f[0] === 'NOTICE', from)
      expect(notice[1]).toMatch(PREFIX)
    }
    raw.ws.send(Buffer.from([1, 2, 3]), { binary: true })
    await raw.next((f) => f[0] === 'NOTICE' && String(f[1]).includes('binary'))
    await raw.ping()
  })

  it('answers a badly shaped EVENT with exactly one OK false invalid: when its id can be read', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    const good = user().sign({ kind: 9, tags: h('x') })
    const shapes = [
      { id: good.id },
      { ...good, kind: -1 },
      { ...good, kind: 1.5 },
      { ...good, tags: [['h', 1]] },
      { ...good, tags: 'nope' },
      { ...good, content: 7 },
      { ...good, sig: 'zz' },
      { ...good, created_at: '1' },
    ]
    for (const e of shapes) raw.send(['EVENT', e])
    raw.send(['EVENT', good, 'extra'])
    await raw.ping()
    const oks = raw.frames.filter((f) => f[0] === 'OK')
    expect(oks).toHaveLength(shapes.length + 1)
    for (const ok of oks) {
      expect(ok[1]).toBe(good.id)
      expect(ok[2]).toBe(false)
      expect(ok[3]).toMatch(/^invalid: /)
    }
  })

  it('refuses bad REQs with CLOSED and a reason: bad filters, too many filters, too many subscriptions', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    expect((await raw.req('a', 1 as never)).closed).toBe('invalid: filter must be an object')
    expect((await raw.req('b', { kinds: ['x'] } as never)).closed).toMatch(/^invalid: kinds/)
    expect((await raw.req('c', { ids: ['abc'] })).closed).toMatch(/^invalid: ids/)
    expect((await raw.req('d', { limit: -1 })).closed).toMatch(/^invalid: limit/)
    expect((await raw.req('e', { '#hh': ['x'] })).closed).toMatch(/^invalid: tag filter/)
    const many = Array.from({ length: LIMITS.maxFilters + 1 }, () => ({ kinds: [1] }))
    expect((await raw.req('f', ...many)).closed).toMatch(/^blocked: too many filters/)
    raw.send(['REQ', 'x'.repeat(65), {}])
    expect((await raw.next((f) => f[0] === 'NOTICE'))[1]).toMatch(/^invalid: subscription id/)
    for (let i = 0; i < LIMITS.maxSubscriptions; i++) raw.send(['REQ', `s${i}`, { kinds: [1], limit: 0 }])
    expect((await raw.req('one-too-many', { limit: 0 })).closed).toMatch(/^blocked: too many subscriptions/)
    raw.send(['CLOSE', 's0'])
    expect((await raw.req('fits-again', { limit: 0 })).closed).toBeUndefined()
  })

  it('runs a filter with thousands of values (up to the message size) and answers EOSE', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    const many = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i))
    const filter: Record<string, unknown> = {
      ids: many(800, (i) => i.toString(16).padStart(64, '0')),
      kinds: many(LIMITS.maxFilterValues, String).map(Number),
    }
    for (const letter of 'abcdefghij') filter[`#${letter}`] = many(LIMITS.maxFilterValues, (i) => `v${i}`)
    expect(JSON.stringify(['REQ', 'huge', filter]).length).toBeLessThan(LIMITS.maxMessageLength)
    expect(await raw.req('huge', filter as never)).toEqual({ events: [] })
  })

  it('answers a malformed COUNT (NIP-45) with CLOSED so a waiting client is not left hanging', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    raw.send(['COUNT', 'c1'])
    expect(await raw.next((f) => f[0] === 'CLOSED' && f[1] === 'c1')).toEqual([
      'CLOSED',
      'c1',
      'invalid: a COUNT needs at least one filter',
    ])
    raw.send(['COUNT', 'c2', { kinds: 'x' }])
    expect(await raw.next((f) => f[0] === 'CLOSED' && f[1] === 'c2')).toEqual([
      'CLOSED',
      'c2',
      'invalid: kinds must be a list of integers from 0 to 65535',
    ])
  })

  it('refuses oversize messages with a reason and survives frames above the hard cap', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    const big = user().sign({ kind: 9, tags: h('x'), content: 'x'.repeat(LIMITS.maxMessageLength) })
    expect(await raw.publish(big)).toEqual({ ok: false, message: 'invalid: event too large' })
    const long = user().sign({ kind: 9, tags: h('x'), content: 'y'.repeat(LIMITS.maxContentLength + 1) })
    expect(await raw.publish(long)).toEqual({ ok: false, message: 'invalid: content too long' })
    raw.send(['REQ', 'big', { '#t': ['x'.repeat(LIMITS.maxMessageLength)] }])
    expect((await raw.next((f) => f[0] === 'CLOSED' && f[1] === 'big'))[2]).toBe('invalid: message too large')
    const doomed = await RawClient.open(r.url)
    const closed = new Promise<number>((resolve) => doomed.ws.once('close', (code) => resolve(code)))
    doomed.send(`["NOTICE","${'z'.repeat(LIMITS.maxMessageLength * 4 + 10)}"]`)
    expect(await closed).toBe(1009)
    await raw.ping()
  })

  it('rate-limits EVENTs per connection with rate-limited:', async () => {
    const r = await relay({ rateLimit: { events: 3, perSeconds: 3600 }, nonGroupKinds: [1] })
    const raw = await RawClient.open(r.url)
    const u = user()
    const results = []
    for (let i = 0; i < 5; i++) results.push(await raw.publish(u.sign({ kind: 1, content: String(i) })))
    expect(results.map((x) => x.ok)).toEqual([true, true, true, false, false])
    expect(results[3]!.message).toMatch(/^rate-limited: /)
    const other = await RawClient.open(r.url)
    expect((await other.publish(u.sign({ kind: 1, content: 'fresh connection' }))).ok).toBe(true)
  })

  it('fuzz: arbitrary frames never break the relay; every EVENT with a readable id gets exactly one OK', async () => {
    const r = await relay({ rateLimit: { events: 1_000_000, perSeconds: 1 } })
    const sk = generateSecretKey()
    const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`))
    const tag = fc.array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 4 })
    const signed = fc
      .record({
        kind: fc.oneof(
          fc.integer({ min: 0, max: 65535 }),
          fc.constantFrom(9, 9000, 9001, 9002, 9005, 9007, 9021, 9022),
        ),
        content: fc.string({ maxLength: 40 }),
        tags: fc.array(fc.oneof(tag, fc.constant(['h', 'fz']), fc.tuple(fc.constant('previous'), hex(8))), {
          maxLength: 5,
        }),
        created_at: fc.integer({ min: 0, max: 2 ** 32 }),
      })
      .map((t) => finalizeEvent({ ...t, tags: t.tags.map((x) => [...x]) }, sk))
    const mangled = fc
      .tuple(signed, fc.constantFrom('kind', 'content', 'tags', 'sig', 'pubkey', 'created_at'), fc.anything())
      .map(([e, key, value]) => ({ ...e, [key]: value }))
    const frame = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.json({ maxDepth: 3 }),
      fc
        .tuple(fc.constantFrom('EVENT', 'REQ', 'CLOSE', 'AUTH', 'COUNT'), fc.anything({ maxDepth: 2 }))
        .map((a) => JSON.stringify(a)),
      fc
        .tuple(fc.constantFrom('REQ'), fc.string({ maxLength: 10 }), fc.object({ maxDepth: 2 }))
        .map((a) => JSON.stringify(a)),
      signed.map((e) => JSON.stringify(['EVENT', e])),
      mangled.map((e) => JSON.stringify(['EVENT', e])),
    )
    const raw = await RawClient.open(r.url)
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 8 }), async (frames) => {
        const from = raw.frames.length
        const ids: string[] = []
        for (const f of frames) {
          raw.send(f)
          try {
            const m = JSON.parse(f) as unknown[]
            if (Array.isArray(m) && m[0] === 'EVENT' && m.length === 2) {
              const id = (m[1] as { id?: unknown } | null)?.id
              if (typeof id === 'string' && /^[0-9a-f]{64}$/.test(id)) ids.push(id)
            }
          } catch {}
        }
        await raw.ping()
        const oks = raw.frames.slice(from).filter((m) => m[0] === 'OK')
        for (const id of new Set(ids)) {
          const mine = oks.filter((m) => m[1] === id)
          expect(mine.length).toBe(ids.filter((x) => x === id).length)
          for (const ok of mine) if (ok[2] === false) expect(ok[3]).toMatch(PREFIX)
        }
        expect(oks.length).toBe(ids.length)
        expect(raw.ws.readyState).toBe(WebSocket.OPEN)
      }),
      { numRuns: 100 },
    )
    const fresh = await RawClient.open(r.url)
    await fresh.ping()
  })
})
