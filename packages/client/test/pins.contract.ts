import { GroupPins, KINDS } from '@roost/nip29'
import { describe, expect, it } from 'vitest'
import { type Group, type GroupSnapshot, PublishRefusedError, type Roost } from '../src'
import type { EventStore } from '../src/store'

const PATIENCE = 15_000

function until(group: Group, predicate: (s: GroupSnapshot) => boolean): Promise<GroupSnapshot> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`pins not as expected in ${PATIENCE} ms: ${JSON.stringify(group.snapshot().pins)}`))
    }, PATIENCE)
    const check = () => {
      if (!predicate(group.snapshot())) return
      clearTimeout(timer)
      stop()
      resolve(group.snapshot())
    }
    const stop = group.subscribe(check)
    check()
  })
}

/** What the contract needs from its environment: a relay, a store, and a client on it. */
export interface PinsEnv {
  relay(): Promise<string>
  store(): Promise<EventStore>
  /** A client with a fresh key on `store`; closed by the environment after the test. */
  roost(store: EventStore): Roost
}

/**
 * Pins (9010 → 39005, decision 19) over a real relay, on each event store: an admin pins and
 * reorders, a member sees it live and cannot pin, and the relay-signed 39005 is kept in the store.
 */
export function pinsContract(name: string, env: PinsEnv): void {
  describe(`Group.pins / Group.setPins on ${name}`, () => {
    it('an admin pins and reorders messages, a member sees it live and keeps it in the store; a member cannot pin', async () => {
      const url = await env.relay()
      const admin = env.roost(await env.store())
      const memberStore = await env.store()
      const bob = env.roost(memberStore)
      const g = await admin.groups.create(url, { name: 'Pinned' })
      await until(g, (s) => s.membership.status === 'member' && s.metadata?.name === 'Pinned')
      expect(g.pins()).toEqual([])
      const b = await bob.groups.join(g.key.toString())
      await until(b, (s) => s.membership.status === 'member')

      const first = await g.sendMessage('rules')
      const second = await b.sendMessage('faq')
      await until(g, (s) => s.messages.some((m) => m.id === second.id))

      const pin = await g.setPins([first.id, second.id])
      expect(pin.kind).toBe(9010)
      await until(b, (s) => s.pins.length === 2)
      expect(b.pins()).toEqual([first.id, second.id])

      await g.setPins([second.id]) // the full list replaces the old one
      await until(b, (s) => s.pins.length === 1)
      expect(b.snapshot().pins).toEqual([second.id])
      await until(g, (s) => s.pins.length === 1)

      await expect(b.setPins([first.id])).rejects.toBeInstanceOf(PublishRefusedError)
      expect(b.pins()).toEqual([second.id])

      // The member's store holds the relay-signed 39005 a restart reads the pins from (the
      // store write runs behind the fold: wait for it, bounded).
      const storedPins = async () => {
        const e = await memberStore.getState(b.key.relay, KINDS.pins, b.key.id.value)
        return e ? { by: e.pubkey, refs: GroupPins.parse(e).refs() } : undefined
      }
      const deadline = Date.now() + PATIENCE
      while (
        JSON.stringify((await storedPins())?.refs) !== JSON.stringify([second.id]) &&
        Date.now() < deadline
      )
        await new Promise((r) => setTimeout(r, 50))
      expect(await storedPins()).toEqual({ by: b.relayKey, refs: [second.id] })
    })
  })
}
