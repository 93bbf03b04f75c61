import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { nip77 } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { encodeVarint, fromHex, NegentropyProtocolError, toHex } from '../src/negentropy/codec'
import { ItemSet } from '../src/negentropy/item-set'
import { respond } from '../src/negentropy/responder'

const { Negentropy, NegentropyStorageVector } = nip77

interface Rec {
  timestamp: number
  id: string
}

/** Runs nostr-tools' initiator against our responder to the end; what the initiator learned. */
function reconcile(client: Rec[], relay: Rec[], frameSize: number, clientFrame = 60_000) {
  const storage = new NegentropyStorageVector()
  for (const r of client) storage.insert(r.timestamp, r.id)
  storage.seal()
  const neg = new Negentropy(storage, clientFrame)
  const set = ItemSet.build(relay)
  const have = new Set<string>()
  const need = new Set<string>()
  let msg: string | null = neg.initiate()
  let rounds = 0
  let largest = 0
  while (msg !== null) {
    const answer = respond(set, fromHex(msg) as Uint8Array, frameSize)
    largest = Math.max(largest, answer.length)
    rounds++
    msg = neg.reconcile(
      toHex(answer),
      (id) => have.add(id),
      (id) => need.add(id),
    )
    if (rounds > 10_000) throw new Error('no end')
  }
  return { have, need, rounds, largest }
}

const id = (n: number) => createHash('sha256').update(String(n)).digest('hex')

/** Records drawn from a small id space and few timestamps, so sets overlap and ties are common. */
const records = fc.uniqueArray(
  fc.record({ n: fc.integer({ min: 0, max: 5_000 }), t: fc.integer({ min: 0, max: 40 }) }),
  { selector: (r) => r.n, maxLength: 400 },
)

describe('the negentropy responder', () => {
  it('with nostr-tools as the initiator, the initiator learns exactly the set differences (any sets, any frame)', () => {
    fc.assert(
      fc.property(records, records, fc.constantFrom(4_096, 5_000, 60_000), (a, b, frame) => {
        // The same id always carries the same timestamp, as an event's does.
        const time = (n: number) => 1_700_000_000 + ((n * 7919) % 41)
        const client = a.map((r) => ({ timestamp: time(r.n), id: id(r.n) }))
        const relay = b.map((r) => ({ timestamp: time(r.n), id: id(r.n) }))
        const { have, need, largest } = reconcile(client, relay, frame)
        const A = new Set(client.map((r) => r.id))
        const B = new Set(relay.map((r) => r.id))
        expect([...have].sort()).toEqual([...A].filter((x) => !B.has(x)).sort())
        expect([...need].sort()).toEqual([...B].filter((x) => !A.has(x)).sort())
        expect(largest).toBeLessThanOrEqual(frame)
      }),
      { numRuns: 150 },
    )
  })

  it('answers in frames no larger than asked, in as many rounds as the difference needs', () => {
    const relay = Array.from({ length: 20_000 }, (_, i) => ({
      timestamp: 1_700_000_000 + (i >> 3),
      id: id(i),
    }))
    const client = relay.filter((_, i) => i % 97 !== 0)
    const small = reconcile(client, relay, 4_096)
    const large = reconcile(client, relay, 65_000)
    expect(small.need.size).toBe(Math.ceil(20_000 / 97))
    expect(large.need).toEqual(small.need)
    expect(small.largest).toBeLessThanOrEqual(4_096)
    expect(large.rounds).toBeLessThan(small.rounds)
  })

  it('fingerprints equal a plain sum of the ids, for every range', () => {
    fc.assert(
      fc.property(records, fc.nat(), fc.nat(), (rs, x, y) => {
        const set = ItemSet.build(rs.map((r) => ({ timestamp: r.t, id: id(r.n) })))
        const lo = set.size === 0 ? 0 : x % (set.size + 1)
        const hi = set.size === 0 ? 0 : lo + (y % (set.size - lo + 1))
        let sum = 0n
        for (let i = lo; i < hi; i++) sum += BigInt(`0x${Buffer.from(set.id(i)).reverse().toString('hex')}`)
        sum %= 1n << 256n
        const le = Buffer.from(sum.toString(16).padStart(64, '0'), 'hex').reverse()
        const expected = createHash('sha256')
          .update(Buffer.concat([le, encodeVarint(hi - lo)]))
          .digest()
          .subarray(0, 16)
        expect(Buffer.from(set.fingerprint(lo, hi)).equals(expected)).toBe(true)
      }),
    )
  })

  it('refuses arbitrary bytes with a protocol error and nothing else, within one frame', () => {
    const set = ItemSet.build(Array.from({ length: 500 }, (_, i) => ({ timestamp: i, id: id(i) })))
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const msg = Uint8Array.of(0x61, ...bytes)
        try {
          expect(respond(set, msg, 4_096).length).toBeLessThanOrEqual(4_096)
        } catch (err) {
          expect(err).toBeInstanceOf(NegentropyProtocolError)
        }
      }),
      { numRuns: 2_000 },
    )
  })

  it('varints: the shortest encoding, read back; more than 8 digits or past 2^53 refused', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        const bytes = encodeVarint(n)
        expect(bytes.length).toBe(Math.max(1, Math.ceil(n.toString(2).length / 7)))
        // A bound whose timestamp is n-1: infinity is 0, so encode n+1 and compare the delta.
        const set = ItemSet.build([])
        if (n < Number.MAX_SAFE_INTEGER)
          respond(set, Uint8Array.of(0x61, ...encodeVarint(n + 1), 0, 0), 4_096)
      }),
    )
    const set = ItemSet.build([])
    expect(() => respond(set, fromHex(`61${'ff'.repeat(8)}7f0000`) as Uint8Array, 4_096)).toThrow(
      /varint too long/,
    )
    expect(() => respond(set, fromHex(`61${'ff'.repeat(7)}7f0000`) as Uint8Array, 4_096)).toThrow(/too large/)
  })
})
