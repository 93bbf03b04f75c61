import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Group, type GroupSnapshot, LocalSigner, MemoryEventStore } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import type { EventStore } from '../src/store'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
afterEach(() => h.close())
const PATIENCE = 20_000
const until = (g: Group, p: (s: GroupSnapshot) => boolean) => untilWithin(g, p, PATIENCE)
const texts = (g: Group) => g.snapshot().messages.map((m) => m.content)

/**
 * Decision 12. Every message here carries the same `created_at` (a frozen clock): timestamps are
 * seconds, so quick messages tie, and the order they render in must be the order they were sent.
 */
describe('timeline order: created_at, then arrival, then id', () => {
  for (const kind of ['memory', 'SQLite'] as const) {
    it(`40 quick messages from one user and 10 question/answer pairs from two render in sending order for both, live and after a restart (${kind})`, async () => {
      const second = Math.floor(Date.now() / 1000)
      const clock = () => second
      // groups_relay does not check `previous`: fifty messages in one frozen second would otherwise
      // outrun a relay's ring of 50, which this test is not about
      const relay = await h.relay({ profile: 'groups_relay' })
      const id = await relay.createGroup({ name: 'Quick' })
      const dir = h.tmp()
      const open = (who: string): EventStore =>
        kind === 'SQLite' ? SqliteEventStore.open(join(dir, `${who}.db`)) : new MemoryEventStore()
      const aliceKey = LocalSigner.generate()
      const bobKey = LocalSigner.generate()
      const aliceStore = open('alice')
      const bobStore = open('bob')
      const options = {
        readState: false as const,
        clock,
        pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE },
      }
      const alice = h.roost({ ...options, signer: aliceKey, store: aliceStore })
      const bob = h.roost({ ...options, signer: bobKey, store: bobStore })
      const a = await alice.groups.join(groupCode(relay, id))
      const b = await bob.groups.join(groupCode(relay, id))
      await until(a, (s) => !s.loading)
      await until(b, (s) => !s.loading)

      const expected: string[] = []
      for (let i = 0; i < 40; i++) {
        await a.sendMessage(`m${i}`) // each shown before the next is sent
        expected.push(`m${i}`)
      }
      await until(b, (s) => s.messages.length === 40)
      expect(texts(a)).toEqual(expected)
      expect(texts(b)).toEqual(expected)

      for (let i = 0; i < 10; i++) {
        await a.sendMessage(`q${i}`)
        await until(b, (s) => s.messages.some((m) => m.content === `q${i}`))
        await b.sendMessage(`a${i}`)
        await until(a, (s) => s.messages.some((m) => m.content === `a${i}`))
        expected.push(`q${i}`, `a${i}`)
      }
      expect(texts(a)).toEqual(expected)
      expect(texts(b)).toEqual(expected)

      if (kind === 'SQLite') {
        await alice.close()
        await bob.close()
        await relay.close() // the restart reads only the local store
        const again = (who: string, signer: LocalSigner) => h.roost({ ...options, signer, store: open(who) })
        const alice2 = again('alice', aliceKey)
        const bob2 = again('bob', bobKey)
        await Promise.all([alice2.groups.ready, bob2.groups.ready])
        // the newest 50 events load at start (the rest page in with loadOlder), in the same order
        for (const g of [alice2.groups.groups()[0]!, bob2.groups.groups()[0]!]) {
          const shown = texts(g)
          expect(shown.length).toBeGreaterThanOrEqual(40)
          expect(shown).toEqual(expected.slice(-shown.length))
        }
      }
    }, 120_000)
  }
})
