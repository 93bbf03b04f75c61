import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import { PublishTimeoutError, RelayPool } from '../src'
import { coreOf } from '../src/groups/core-of'
import { startFakeRelay } from './fake-relay'
import { Harness, until } from './helpers'

const h = new Harness()
afterEach(() => h.close())

const relaySecret = generateSecretKey()
const relayKey = getPublicKey(relaySecret)
const forger = generateSecretKey()
const now = () => Math.floor(Date.now() / 1000)

function metadata(secret: Uint8Array, id: string, name: string, createdAt: number) {
  return finalizeEvent(
    {
      kind: 39000,
      created_at: createdAt,
      tags: [
        ['d', id],
        ['name', name],
      ],
      content: '',
    },
    secret,
  )
}

describe('faults a real relay would not produce', () => {
  it('ignores a 39000 signed by any key other than the relay’s, even when it is newer', async () => {
    const genuine = metadata(relaySecret, 'general', 'General', now() - 100)
    const forged = metadata(forger, 'general', 'Free crypto here', now())
    const fake = await startFakeRelay({
      info: { name: 'fake', self: relayKey, pubkey: getPublicKey(forger) },
      onReq: (filters) => (filters.some((f) => f.kinds?.includes(39000)) ? [forged, genuine] : []),
    })
    h.defer(() => fake.close())
    const alice = h.roost()
    const group = await alice.groups.join(`${fake.url}'general`)
    await until(group, (s) => !s.loading && s.metadata !== undefined)
    expect(group.snapshot().relayKey).toBe(relayKey) // NIP-11 self wins over pubkey
    expect(group.snapshot().metadata?.name).toBe('General')
    expect(coreOf(group)!.ingest(forged)).toBe(false) // handed in directly: still not state
    // a relay-key event altered after signing (no verified brand) is not state either
    const tampered = JSON.parse(JSON.stringify(genuine)) as typeof genuine
    tampered.tags = [
      ['d', 'general'],
      ['name', 'Tampered'],
    ]
    tampered.created_at = now() + 1
    expect(coreOf(group)!.ingest(tampered)).toBe(false)
    expect(group.snapshot().metadata?.name).toBe('General')
    // and every state REQ asked for the relay's key only
    const stateFilters = fake.reqs.flatMap(([, fs]) => fs).filter((f) => f.kinds?.includes(39000))
    expect(stateFilters.length).toBeGreaterThan(0)
    for (const f of stateFilters) expect(f.authors).toEqual([relayKey])
  })

  for (const behaviour of ['notice', 'silent'] as const) {
    it(`a relay that answers an EVENT with ${behaviour === 'notice' ? 'a NOTICE' : 'nothing'} ends the send with a timeout, not a hang`, async () => {
      const fake = await startFakeRelay({ info: { self: relayKey }, onEvent: () => behaviour })
      h.defer(() => fake.close())
      const signer = generateSecretKey()
      const pool = new RelayPool({ publishTimeout: 800 })
      h.defer(() => pool.close())
      await pool.fetch([fake.url], [{ kinds: [0], limit: 1 }]) // connected: the deadline is all the relay's
      const event = finalizeEvent({ kind: 9, created_at: now(), tags: [['h', 'x']], content: 'hi' }, signer)
      const later = finalizeEvent(
        { kind: 9, created_at: now(), tags: [['h', 'x']], content: 'hi again' },
        signer,
      )
      // Two sends at once, one with the pool's deadline and one with a later one of its own: each
      // ends at its own deadline, in that order, and neither waits for an answer that never comes.
      const ended: string[] = []
      const [[result]] = await Promise.all([
        pool.publish([fake.url], event).finally(() => ended.push('pool deadline')),
        pool.publish([fake.url], later, { timeout: 2_400 }).finally(() => ended.push('own deadline')),
      ])
      expect(ended).toEqual(['pool deadline', 'own deadline'])
      expect(result).toMatchObject({ ok: false, timedOut: true, relay: fake.url, failure: 'timeout' })
      if (behaviour === 'notice')
        expect(result!.message).toContain('NOTICE: you are not an admin of this group')

      // through the groups runtime: the join request times out and says so
      const bob = h.roost({ pool: { publishTimeout: 800 } })
      const err = await bob.groups.join(`${fake.url}'x`).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(PublishTimeoutError)
      if (behaviour === 'notice')
        expect((err as PublishTimeoutError).notice).toBe('you are not an admin of this group')
      expect(bob.groups.group(`${fake.url}'x`)?.snapshot().membership).toEqual({ status: 'unknown' })
    })
  }
})
