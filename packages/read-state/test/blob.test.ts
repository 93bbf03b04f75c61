import { describe, expect, it } from 'vitest'
import { blobSize, isValidClientId, parseBlob, serializeBlob } from '../src'

const base = (contexts: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ v: 1, client_id: 'c', contexts, ...extra })

describe('parseBlob: whole-blob rules', () => {
  it.each([
    ['not json', 'not json', 'not-json'],
    ['truncated json', '{"v":1,', 'not-json'],
    ['an array', '["a"]', 'not-object'],
    ['null', 'null', 'not-object'],
    ['a number', '42', 'not-object'],
    ['v missing', '{"client_id":"c","contexts":{}}', 'bad-version'],
    ['v a string', '{"v":"1","client_id":"c","contexts":{}}', 'bad-version'],
    ['v 1.5', '{"v":1.5,"client_id":"c","contexts":{}}', 'bad-version'],
    ['v 2 (unknown, ignored)', '{"v":2,"client_id":"c","contexts":{"a":1}}', 'unknown-version'],
    ['client_id missing', '{"v":1,"contexts":{}}', 'missing-client-id'],
    ['client_id empty', '{"v":1,"client_id":"","contexts":{}}', 'bad-client-id'],
    ['client_id 65 chars', `{"v":1,"client_id":"${'x'.repeat(65)}","contexts":{}}`, 'bad-client-id'],
    ['client_id a number', '{"v":1,"client_id":7,"contexts":{}}', 'bad-client-id'],
    ['client_id null', '{"v":1,"client_id":null,"contexts":{}}', 'bad-client-id'],
    ['client_id a lone surrogate', '{"v":1,"client_id":"\\ud800","contexts":{}}', 'bad-client-id'],
    ['contexts missing', '{"v":1,"client_id":"c"}', 'missing-contexts'],
    ['contexts an array', base([]), 'bad-contexts'],
    ['contexts null', base(null), 'bad-contexts'],
    ['contexts a string', base('a'), 'bad-contexts'],
  ])('%s is rejected (%s)', (_name, text, reason) => {
    expect(parseBlob(text)).toEqual({ ok: false, reason })
  })

  it('decision c: v 1.0 is the integer 1 after JSON.parse', () => {
    const r = parseBlob('{"v":1.0,"client_id":"c","contexts":{"a":1e3}}')
    expect(r.ok && r.blob.contexts).toEqual({ a: 1000 })
  })

  it('accepts a 64-character client_id and an empty contexts object', () => {
    const r = parseBlob(`{"v":1,"client_id":"${'x'.repeat(64)}","contexts":{}}`)
    expect(r).toEqual({ ok: true, blob: { v: 1, clientId: 'x'.repeat(64), contexts: {} }, dropped: [] })
  })

  it('decision a: client_id length counts code points (64 emoji ok, 65 rejected)', () => {
    expect(isValidClientId('😀'.repeat(64))).toBe(true)
    expect(isValidClientId('😀'.repeat(65))).toBe(false)
    expect(parseBlob(base({}, { client_id: 'é'.repeat(64) })).ok).toBe(true)
  })

  it('ignores unknown top-level keys', () => {
    const r = parseBlob(base({ a: 1 }, { extra: true, nested: { x: 1 } }))
    expect(r.ok && r.blob.contexts).toEqual({ a: 1 })
  })

  it('uses the last value of a duplicate key', () => {
    const r = parseBlob('{"v":1,"client_id":"c","contexts":{"a":1,"a":5}}')
    expect(r.ok && r.blob.contexts).toEqual({ a: 5 })
  })
})

describe('parseBlob: entry rules (drop the entry, keep the blob)', () => {
  it('drops every non-integer or out-of-range timestamp and keeps the edges', () => {
    const r = parseBlob(
      base({
        good: 42,
        edge: 0,
        max: 4294967295,
        y: 'yesterday',
        f: 1.5,
        n: -1,
        big: 4294967296,
        z: null,
        t: true,
      }),
    )
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.blob.contexts).toEqual({ good: 42, edge: 0, max: 4294967295 })
    expect(r.dropped.map((d) => d.key).sort()).toEqual(['big', 'f', 'n', 't', 'y', 'z'])
    expect(r.dropped.every((d) => d.reason === 'bad-timestamp')).toBe(true)
  })

  it('drops a context key over 256 UTF-8 bytes and keeps 256 bytes (multi-byte)', () => {
    const keep = 'é'.repeat(128) // 256 bytes, 128 UTF-16 units
    const drop = 'é'.repeat(129) // 258 bytes
    const short = 'é'.repeat(86)
    const r = parseBlob(base({ [keep]: 1, [drop]: 2, [short]: 3, ['a'.repeat(257)]: 4 }))
    expect(r.ok && Object.keys(r.blob.contexts).sort()).toEqual([short, keep].sort())
    expect(r.ok && r.dropped.map((d) => d.reason)).toEqual(['key-too-long', 'key-too-long'])
  })

  it('decision b: 10,000 raw keys are accepted, 10,001 reject the blob even when some are invalid', () => {
    const ok: Record<string, unknown> = {}
    for (let i = 0; i < 10_000; i++) ok[`k${i}`] = i
    expect(parseBlob(base(ok)).ok).toBe(true)
    const tooMany: Record<string, unknown> = { ...ok, bad: 'yesterday' }
    expect(parseBlob(base(tooMany))).toEqual({ ok: false, reason: 'too-many-contexts' })
  })

  it('keeps a __proto__ context as plain data', () => {
    const r = parseBlob('{"v":1,"client_id":"c","contexts":{"__proto__":7}}')
    expect(r.ok && Object.keys(r.blob.contexts)).toEqual(['__proto__'])
    expect(r.ok && Object.getOwnPropertyDescriptor(r.blob.contexts, '__proto__')?.value).toBe(7)
  })
})

describe('serializeBlob', () => {
  it('writes exactly v, client_id and a flat contexts map (the spec vector plaintext)', () => {
    const text = serializeBlob({
      clientId: 'test-vector-client',
      contexts: { 'group:general': 1700001000, 'group:dev': 1700000500 },
    })
    expect(text).toBe(
      '{"v":1,"client_id":"test-vector-client","contexts":{"group:general":1700001000,"group:dev":1700000500}}',
    )
    expect(Object.keys(JSON.parse(text))).toEqual(['v', 'client_id', 'contexts'])
  })

  it('round-trips through parseBlob and blobSize equals the UTF-8 size', () => {
    const contexts: Record<string, number> = { 'é"\\\n': 5, '😀': 0, plain: 4294967295 }
    Object.defineProperty(contexts, '__proto__', {
      value: 3,
      enumerable: true,
      writable: true,
      configurable: true,
    })
    const blob = { v: 1 as const, clientId: 'ü-client', contexts }
    const text = serializeBlob(blob)
    const r = parseBlob(text)
    expect(r.ok && r.blob).toEqual(blob)
    expect(blobSize(blob)).toBe(new TextEncoder().encode(text).length)
    expect(blobSize({ clientId: 'a', contexts: {} })).toBe(
      new TextEncoder().encode(serializeBlob({ clientId: 'a', contexts: {} })).length,
    )
  })
})
