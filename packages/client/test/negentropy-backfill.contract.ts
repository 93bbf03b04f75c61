import { GroupKey } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import { LocalSigner, RelayPool } from '../src'
import type { EventStore } from '../src/store'
import { negentropyBackfill, refetchWindow } from '../src/sync/negentropy-backfill'

/** What the contract needs from its environment: a relay (open to new groups) and fresh stores. */
export interface BackfillEnv {
  relay(): Promise<string>
  store(): Promise<EventStore>
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')

/**
 * A group's backfill by NIP-77 against a real relay, on each event store: holes, newer events and
 * the deletions the cache missed (NIP-09 kind 5, NIP-29 9005, an event the relay never had) are
 * repaired, and the fork then holds exactly the relay's set for the window; the REQ re-fetch
 * reaches the same set.
 */
export function negentropyBackfillContract(name: string, env: BackfillEnv): void {
  describe(`negentropyBackfill on ${name}`, () => {
    const closers: (() => unknown)[] = []
    afterEach(async () => {
      for (const c of closers.splice(0)) await c()
    })

    it('repairs holes, newer events and missed deletions; the fork equals the relay’s set, as the REQ re-fetch does', async () => {
      const url = await env.relay()
      const sk = generateSecretKey()
      const pool = new RelayPool({
        signer: LocalSigner.fromSecret(hex(sk)),
        publishTimeout: 15_000,
        eoseTimeout: 15_000,
      })
      closers.push(() => pool.close())
      const now = Math.floor(Date.now() / 1000)
      const id = `neg${hex(generateSecretKey()).slice(0, 12)}`
      const sign = (kind: number, tags: string[][], created_at: number, content = '') =>
        finalizeEvent({ kind, tags, created_at, content }, sk)
      const publish = async (events: NostrEvent[]) => {
        const results = await Promise.all(events.map((e) => pool.publish([url], e)))
        expect(results.flat().filter((r) => !r.ok)).toEqual([])
      }
      await publish([sign(9007, [['h', id]], now)])
      const messages = Array.from({ length: 120 }, (_, i) => sign(9, [['h', id]], now - 540 + i * 4, `m${i}`))
      await publish(messages)
      const key = new GroupKey(url, id)
      const fork = key.toString()

      // The cache as a restart finds it: the first 100, with a hole, and one event the relay never had.
      const stranger = finalizeEvent(
        { kind: 9, tags: [['h', id]], created_at: now - 300, content: 'never sent' },
        generateSecretKey(),
      )
      const cached = [...messages.slice(0, 40), ...messages.slice(50, 100), stranger]
      const stores = [await env.store(), await env.store()]
      for (const s of stores) {
        closers.push(() => s.close())
        await s.addMany(cached, fork)
      }
      // Meanwhile, on the relay: NIP-09 deletions (3 cached) and moderator deletions (one cached, one not).
      await publish([
        sign(
          5,
          messages.slice(10, 13).map((e) => ['e', e.id]),
          now - 10,
        ),
        sign(
          9005,
          [
            ['h', id],
            ['e', messages[20]?.id as string],
            ['e', messages[110]?.id as string],
          ],
          now - 9,
        ),
      ])

      const [viaNeg, viaReq] = stores as [EventStore, EventStore]
      const neg = await negentropyBackfill({ store: viaNeg, pool, key })
      if (neg.method === 'none') throw new Error(neg.reason)
      expect(neg.method).toBe('negentropy')
      expect(neg.since).toBe(messages[0]?.created_at)
      expect([...neg.removed].sort()).toEqual(
        [...messages.slice(10, 13), messages[20] as NostrEvent, stranger].map((e) => e.id).sort(),
      )
      const truth = await pool.fetch([url], [{ '#h': [id], since: neg.since, limit: 500 }])
      const truthIds = truth.map((e) => e.id).sort()
      expect(truthIds).toContain(messages[45]?.id) // the hole
      expect(truthIds).not.toContain(messages[110]?.id)
      const inFork = async (s: EventStore) =>
        (await s.query({ fork, since: neg.since })).map((e) => e.id).sort()
      expect(await inFork(viaNeg)).toEqual(truthIds)
      expect(neg.added.map((e) => e.id).sort()).toEqual(
        truthIds.filter((x) => !cached.some((e) => e.id === x)).sort(),
      )

      const req = await refetchWindow({ store: viaReq, pool, key })
      expect(req.method).toBe('req')
      expect(await inFork(viaReq)).toEqual(truthIds)

      // Once repaired, a second backfill finds nothing to do.
      const again = await negentropyBackfill({ store: viaNeg, pool, key })
      expect(again).toMatchObject({ method: 'negentropy', added: [], removed: [] })
    })
  })
}
