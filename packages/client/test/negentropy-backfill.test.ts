import { GroupKey } from '@roost/nip29'
import type { RelayHandle } from '@roost/relay'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LocalSigner, MemoryEventStore, RelayPool } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import { negentropyBackfill } from '../src/sync/negentropy-backfill'
import { Harness } from './helpers'
import { negentropyBackfillContract } from './negentropy-backfill.contract'

const h = new Harness()
let shared: RelayHandle
beforeAll(async () => {
  shared = await h.relay()
})
afterAll(() => h.close())

negentropyBackfillContract('MemoryEventStore', {
  relay: async () => shared.url,
  store: async () => new MemoryEventStore(),
})
negentropyBackfillContract('SqliteEventStore', {
  relay: async () => shared.url,
  store: async () => SqliteEventStore.open(':memory:'),
})

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')

describe('negentropyBackfill', () => {
  /** A private group with 30 messages from its member `bob`; `alice` was never a member. */
  async function privateGroup(relay: RelayHandle) {
    const [alice, bob] = [generateSecretKey(), generateSecretKey()]
    const id = await relay.createGroup({
      name: 'Secret',
      private: true,
      closed: true,
      members: [getPublicKey(bob)],
    })
    const now = Math.floor(Date.now() / 1000)
    const events = Array.from({ length: 30 }, (_, i) =>
      finalizeEvent({ kind: 9, tags: [['h', id]], created_at: now - 100 + i, content: `s${i}` }, bob),
    )
    const pool = new RelayPool({ signer: LocalSigner.fromSecret(hex(bob)) })
    for (const e of events) expect((await pool.publish([relay.url], e))[0]?.ok).toBe(true)
    pool.close()
    return { alice, bob, id, events }
  }

  it('a member of a private group reconciles after authenticating (the relay asks with auth-required:)', async () => {
    const relay = await h.relay()
    const { bob, id, events } = await privateGroup(relay)
    const pool = new RelayPool({ signer: LocalSigner.fromSecret(hex(bob)) })
    const store = new MemoryEventStore()
    const key = new GroupKey(relay.url, id)
    await store.addMany(events.slice(0, 10), key.toString())
    const r = await negentropyBackfill({ store, pool, key })
    pool.close()
    expect(r.method).toBe('negentropy')
    expect((await store.query({ fork: key.toString(), kinds: [9] })).map((e) => e.id).sort()).toEqual(
      events.map((e) => e.id).sort(),
    )
  })

  it("a private group's ids never reach a non-member: refused, and the cache is left alone", async () => {
    const relay = await h.relay()
    const { alice, id, events } = await privateGroup(relay)
    const pool = new RelayPool({ signer: LocalSigner.fromSecret(hex(alice)) })
    const store = new MemoryEventStore()
    const key = new GroupKey(relay.url, id)
    await store.addMany(events.slice(0, 5), key.toString())
    const r = await negentropyBackfill({ store, pool, key })
    pool.close()
    expect(r).toMatchObject({ method: 'none', reason: expect.stringMatching(/^restricted:/) })
    expect(await store.query({ fork: key.toString() })).toHaveLength(5)
  })

  it('a window past the relay’s records cap falls back (method none, the relay’s blocked: text)', async () => {
    const relay = await h.relay({ limits: { maxNegRecords: 5 } })
    const { bob, id, events } = await privateGroup(relay)
    const pool = new RelayPool({ signer: LocalSigner.fromSecret(hex(bob)) })
    const store = new MemoryEventStore()
    const key = new GroupKey(relay.url, id)
    await store.addMany(events.slice(0, 3), key.toString())
    const r = await negentropyBackfill({ store, pool, key })
    pool.close()
    expect(r).toMatchObject({ method: 'none', reason: expect.stringMatching(/^blocked: too many records/) })
    expect(await store.query({ fork: key.toString() })).toHaveLength(3)
  })

  it('a relay whose NIP-11 does not list 77 is left to the REQ path, without a session', async () => {
    const relay = await h.relay()
    // Fault injection: the relay's NIP-11 as a relay without NIP-77 answers it.
    const noNip77: typeof fetch = async (input, init) => {
      const res = await fetch(input, init)
      const doc = (await res.json()) as { supported_nips: number[] }
      return new Response(
        JSON.stringify({ ...doc, supported_nips: doc.supported_nips.filter((n) => n !== 77) }),
      )
    }
    const pool = new RelayPool({ fetch: noNip77 })
    const store = new MemoryEventStore()
    const key = new GroupKey(relay.url, 'anything')
    const e = finalizeEvent(
      { kind: 9, tags: [['h', 'anything']], created_at: 1, content: '' },
      generateSecretKey(),
    )
    await store.add(e, key.toString())
    const r = await negentropyBackfill({ store, pool, key })
    pool.close()
    expect(r).toEqual({ method: 'none', reason: 'the relay does not list NIP-77' })
    expect(await store.query({ fork: key.toString() })).toHaveLength(1)
  })
})
