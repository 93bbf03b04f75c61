import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  blobSize,
  contextKind,
  fitToBudget,
  InvalidOptionError,
  isDominated,
  type ParentResolver,
  serializeBlob,
} from '../src'

const hex = (n: number) => n.toString(16).padStart(64, '0')
const CH = ['chan-a', 'chan-b', 'chan-c']
/** Children map to a channel by their id's last digit, the way a group resolves a root's h tag. */
const parentOf: ParentResolver = (ctx) => {
  const k = contextKind(ctx)
  if (k !== 'thread' && k !== 'msg') return undefined
  return CH[Number.parseInt(ctx.slice(-1), 16) % CH.length]
}
const utf8 = (s: string) => new TextEncoder().encode(s).length

describe('fitToBudget (decision h)', () => {
  it('leaves a blob under budget untouched', () => {
    const contexts = { 'chan-a': 100, [`thread:${hex(1)}`]: 50 }
    const r = fitToBudget(contexts, { clientId: 'c', parentOf })
    expect(r.contexts).toEqual(contexts)
    expect(r.evicted).toEqual([])
    expect(r.bytes).toBe(utf8(serializeBlob({ clientId: 'c', contexts })))
  })

  it('drops dominated children first, then msg: by recency, then thread:, then channels past the horizon', () => {
    const now = 1_700_000_000
    const special: Record<string, number> = {
      'chan-a': now - 10,
      'chan-old': now - 30 * 86400,
      [`thread:${hex(0x10)}`]: now - 100, // parent chan-a (now - 10): dominated
      [`msg:${hex(0x21)}`]: now, // parent chan-b is absent: not dominated
      [`msg:${hex(0x31)}`]: now,
      [`thread:${hex(0x41)}`]: now,
    }
    const advancedAt: Record<string, number> = {
      [`msg:${hex(0x21)}`]: 5,
      [`msg:${hex(0x31)}`]: 1,
      [`thread:${hex(0x41)}`]: 0,
    }
    // recent channels that fill the budget on their own: everything above must go, in order
    const pads: Record<string, number> = {}
    for (let i = 0; blobSize({ clientId: 'c', contexts: pads }) < 1000; i++) {
      pads[`pad-${i}`] = now
      advancedAt[`pad-${i}`] = 1000
    }
    const r = fitToBudget(
      { ...special, ...pads },
      { clientId: 'c', parentOf, advancedAt, nowSeconds: now, budget: 1024 },
    )
    expect(r.evicted).toEqual([
      `thread:${hex(0x10)}`,
      `msg:${hex(0x31)}`,
      `msg:${hex(0x21)}`,
      `thread:${hex(0x41)}`,
      'chan-old',
      'chan-a',
    ])
    expect(r.contexts).toEqual(pads)
    expect(r.bytes).toBeLessThanOrEqual(1024)
    // with room for one more entry, the dominated child alone goes
    const all = { ...special, ...pads }
    const justOver = blobSize({ clientId: 'c', contexts: all }) - 1
    const roomy = fitToBudget(all, { clientId: 'c', parentOf, advancedAt, nowSeconds: now, budget: justOver })
    expect(roomy.evicted).toEqual([`thread:${hex(0x10)}`])
  })

  it('with 2,000 contexts of 200-byte keys the result still fits the default 32 KiB budget', () => {
    const contexts: Record<string, number> = {}
    for (let i = 0; i < 2000; i++)
      contexts[`${'k'.repeat(195)}${String(i).padStart(5, '0')}`] = 1_700_000_000 + i
    const r = fitToBudget(contexts, { clientId: 'x'.repeat(64) })
    expect(utf8(serializeBlob({ clientId: 'x'.repeat(64), contexts: r.contexts }))).toBeLessThanOrEqual(
      32_768,
    )
    expect(r.bytes).toBe(utf8(serializeBlob({ clientId: 'x'.repeat(64), contexts: r.contexts })))
    expect(Object.keys(r.contexts).length + r.evicted.length).toBe(2000)
  })

  it('refuses a budget above 40,960 bytes or below 1,024', () => {
    expect(() => fitToBudget({}, { clientId: 'c', budget: 40_961 })).toThrow(InvalidOptionError)
    expect(() => fitToBudget({}, { clientId: 'c', budget: 10 })).toThrow(InvalidOptionError)
    expect(fitToBudget({}, { clientId: 'c', budget: 40_960 }).evicted).toEqual([])
  })

  const keyArb = fc.oneof(
    fc.constantFrom(...CH),
    fc.integer({ min: 0, max: 400 }).map((n) => `thread:${hex(n)}`),
    fc.integer({ min: 0, max: 400 }).map((n) => `msg:${hex(n)}`),
    fc.string({ minLength: 1, maxLength: 40 }),
  )
  const caseArb = fc.record({
    contexts: fc.dictionary(keyArb, fc.integer({ min: 0, max: 2000 }), { maxKeys: 120 }),
    budget: fc.integer({ min: 1024, max: 6000 }),
    clientId: fc.string({ minLength: 1, maxLength: 64 }),
    now: fc.integer({ min: 0, max: 3000 }),
    recency: fc.func(fc.integer({ min: 0, max: 100 })),
  })

  it('property: the output always fits, is a subset, and no non-dominated entry goes while a dominated one stays', () => {
    fc.assert(
      fc.property(caseArb, ({ contexts, budget, clientId, now, recency }) => {
        const advancedAt: Record<string, number> = {}
        for (const k of Object.keys(contexts)) advancedAt[k] = recency(k)
        const r = fitToBudget(contexts, {
          clientId,
          budget,
          parentOf,
          advancedAt,
          nowSeconds: now,
          horizonSeconds: 1000,
        })
        expect(utf8(serializeBlob({ clientId, contexts: r.contexts }))).toBeLessThanOrEqual(budget)
        for (const [k, v] of Object.entries(r.contexts)) expect(contexts[k]).toBe(v)
        const dominatedLeft = Object.keys(r.contexts).some((k) => isDominated(k, contexts, parentOf))
        if (dominatedLeft) for (const k of r.evicted) expect(isDominated(k, contexts, parentOf)).toBe(true)
        // no needless eviction: putting back the last evicted entry would not fit
        if (r.evicted.length > 0) {
          const last = r.evicted[r.evicted.length - 1]!
          const back = { ...r.contexts, [last]: contexts[last]! }
          expect(blobSize({ clientId, contexts: back })).toBeGreaterThan(budget)
        }
      }),
      { numRuns: 300 },
    )
  })
})
