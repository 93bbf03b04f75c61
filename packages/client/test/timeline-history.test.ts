import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startFaultProxy } from '../../../test/support/fault-proxy'
import { type Group, LocalSigner, MemoryEventStore } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import type { EventStore } from '../src/store'
import { Harness } from './helpers'
import {
  Clock,
  type HistoryEnv,
  historyContract,
  orderContract,
  PATIENCE,
  scrollBack,
  texts,
  until,
} from './timeline-history.contract'

const h = new Harness()
afterEach(() => h.close())

/** A memory store that outlives the client closing it: a restart finds what it held. */
function lasting(store: MemoryEventStore): EventStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'close') return async () => {}
      const value = Reflect.get(target, prop)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

function env(kind: 'memory' | 'SQLite'): HistoryEnv {
  let memory = new Map<string, EventStore>()
  let dir: string | undefined
  afterEach(() => {
    memory = new Map()
    dir = undefined
  })
  return {
    relay: async (ties) =>
      (await h.relay({ rateLimit: { events: 0, perSeconds: 1 }, ...(ties === 'id' && { tieOrder: 'id' }) }))
        .url,
    store: async (name) => {
      if (kind === 'SQLite') {
        dir ??= h.tmp()
        return SqliteEventStore.open(join(dir, `${name}.db`))
      }
      let store = memory.get(name)
      if (!store) {
        store = lasting(new MemoryEventStore())
        memory.set(name, store)
      }
      return store
    },
    roost: (store, signer, clock) =>
      h.roost({
        signer,
        store,
        clock,
        readState: false,
        pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE },
      }),
  }
}

for (const kind of ['memory', 'SQLite'] as const) {
  orderContract(kind, env(kind))
  historyContract(kind, env(kind))

  describe(`history while the relay is away (${kind})`, () => {
    const e = env(kind)
    it('scrolls back through the cache, and hasOlder stays true: an unreachable relay did not say the history ended', async () => {
      const relay = await h.relay({ rateLimit: { events: 0, perSeconds: 1 } })
      const clock = new Clock()
      const key = LocalSigner.generate()
      const alice = e.roost(await e.store('alice'), key, clock.now)
      const a = await alice.groups.create(relay.url, { name: 'Away' })
      await until(a, (s) => s.membership.status === 'member', 'alice a member')
      const expected: string[] = []
      for (let i = 0; i < 120; i++) {
        clock.set(clock.start + Math.floor(i / 40))
        await a.sendMessage(`m${i}`)
        expected.push(`m${i}`)
      }
      await alice.close()
      await relay.close()

      const again = e.roost(await e.store('alice'), key, clock.now)
      await again.groups.ready
      const g = again.groups.group(a.key.toString()) as Group
      expect(texts(g).length).toBeLessThan(expected.length) // the stored first page: 50 events
      await scrollBack(g, 10)
      expect(texts(g)).toEqual(expected)
      expect(g.snapshot().hasOlder).toBe(true)
    })
  })
}

describe('paging back while the relay does not answer', () => {
  it('says the relay is unreachable instead of leaving the page pending, and pages on once it answers the group again', async () => {
    const relay = await h.relay({ rateLimit: { events: 0, perSeconds: 1 } })
    const link = await startFaultProxy(relay.url)
    h.defer(() => link.close())
    const clock = new Clock()
    const key = LocalSigner.generate()
    // Reconnects soon after the link is back (the default backoff grows to 30 s while it is down).
    const pool = {
      publishTimeout: PATIENCE,
      eoseTimeout: PATIENCE,
      connectTimeout: 2000,
      backoff: { baseMs: 100, maxMs: 1000 },
    }
    const alice = h.roost({ signer: key, clock: clock.now, readState: false, pool })
    const a = await alice.groups.create(relay.url, { name: 'Away' })
    await until(a, (s) => s.membership.status === 'member', 'alice a member')
    const expected: string[] = []
    for (let i = 0; i < 160; i++) {
      clock.set(clock.start + Math.floor(i / 40))
      await a.sendMessage(`m${i}`)
      expected.push(`m${i}`)
    }
    // Another device of Alice's, through the link: its standing REQ brings the newest 100.
    const phone = h.roost({ signer: key, clock: clock.now, readState: false, pool })
    const p = await phone.groups.join(`${link.url}'${a.key.id.value}`)
    await until(p, (s) => !s.loading && s.messages.length > 0, 'the first page')
    expect(texts(p).length).toBeLessThan(expected.length)
    expect(p.snapshot().olderUnreachable).toBe(false)

    link.refuse()
    link.cut()
    // The store's pages come, then the relay's page does not: said, and nothing more is promised.
    await scrollBack(p, 10)
    expect(p.snapshot()).toMatchObject({ hasOlder: true, olderUnreachable: true })
    expect(texts(p).length).toBeLessThan(expected.length)

    link.refuse(0)
    // The group's subscription resumes and reaches EOSE: the relay answers again.
    await until(p, (s) => !s.olderUnreachable, 'the relay back')
    await scrollBack(p)
    expect([...texts(p)].sort()).toEqual([...expected].sort())
    expect(p.snapshot()).toMatchObject({ hasOlder: false, olderUnreachable: false })
  }, 60_000)
})
