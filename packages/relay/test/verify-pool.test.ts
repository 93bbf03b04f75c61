import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools'
import { finalizeEvent, generateSecretKey, verifyEvent } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import { parseCli } from '../src/cli'
import { VerifyPool } from '../src/verify-pool'

const pools: VerifyPool[] = []
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close()
})
function pool(workers: number, inline: (e: NostrEvent) => boolean = verifyEvent): VerifyPool {
  const p = new VerifyPool({ workers, inline })
  pools.push(p)
  return p
}

const sk = generateSecretKey()
const signed = (i: number): NostrEvent =>
  finalizeEvent({ kind: 9, created_at: 1_700_000_000 + i, tags: [['h', 'g']], content: `m${i}` }, sk)
/** A JSON round trip, as an event arrives from a socket (no verification mark from signing). */
const fresh = (e: NostrEvent): NostrEvent => JSON.parse(JSON.stringify(e))

describe('VerifyPool', () => {
  it('answers like the inline check, once per event, in submission order', async () => {
    const p = pool(2)
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('valid', 'sig', 'id', 'content'), { minLength: 1, maxLength: 80 }),
        async (kinds) => {
          const events = kinds.map((k, i) => {
            const e = fresh(signed(i))
            if (k === 'sig') e.sig = (e.sig[0] === 'a' ? 'b' : 'a') + e.sig.slice(1)
            if (k === 'id') e.id = (e.id[0] === 'a' ? 'b' : 'a') + e.id.slice(1)
            if (k === 'content') e.content += '!'
            return e
          })
          const order: number[] = []
          const answers = await Promise.all(
            events.map((e, i) =>
              p.check(e, i % 2 ? JSON.stringify(['EVENT', e]) : undefined).then((ok) => {
                order.push(i)
                return ok
              }),
            ),
          )
          expect(answers).toEqual(events.map((e) => verifyEvent(fresh(e))))
          expect(order).toEqual(events.map((_, i) => i))
        },
      ),
      { numRuns: 20 },
    )
  })

  it('redoes inline the checks a failed worker held, and keeps answering', async () => {
    const p = pool(1)
    const events = Array.from({ length: 64 }, (_, i) => fresh(signed(i)))
    const answers = Promise.all(events.map((e) => p.check(e)))
    // The worker dies with every chunk still out.
    await new Promise((resolve) => setImmediate(resolve))
    const workers = (p as unknown as { workers: { thread: { terminate(): Promise<number> } }[] }).workers
    expect(workers).toHaveLength(1)
    await workers[0]?.thread.terminate()
    expect(await answers).toEqual(events.map(() => true))
    expect(await Promise.all(events.slice(0, 10).map((e) => p.check(fresh(e))))).toEqual(
      events.slice(0, 10).map(() => true),
    )
  })

  it('checks inline with no workers, and a check that throws rejects that event only', async () => {
    const p = pool(0, (e) => {
      if (e.content === 'm3') throw new Error('verifier crashed')
      return verifyEvent(e)
    })
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map((i) => p.check(fresh(signed(i)))))
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ])
  })

  it('is sized by --workers (a whole number, 0 for inline) and refuses nonsense', () => {
    expect(parseCli(['--workers', '3'])).toMatchObject({ ok: true, options: { workers: 3 } })
    expect(parseCli(['--workers', '0'])).toMatchObject({ ok: true, options: { workers: 0 } })
    expect(parseCli(['--workers', '-1'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--workers/),
    })
    expect(parseCli(['--workers', 'many'])).toMatchObject({ ok: false })
    expect(() => new VerifyPool({ workers: 1.5, inline: verifyEvent })).toThrow(RangeError)
  })
})
