import { join } from 'node:path'
import { KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { afterEach, describe, expect, it } from 'vitest'
import { createRoost, InvalidRelaysError, LocalSigner, MemoryEventStore, ReadStateSync } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import type { EventStore } from '../src/store'
import { groupCode, Harness, untilRegistry } from './helpers'

const h = new Harness()
afterEach(() => h.close())
const PATIENCE = 15_000

const stores: [string, () => EventStore][] = [
  ['memory', () => new MemoryEventStore()],
  ['SQLite', () => SqliteEventStore.open(join(h.tmp(), 'c.db'))],
]

/** The newest event of a kind by `author` on one relay, or undefined. */
async function newest(
  roost: { pool: { fetch(r: string[], f: object[]): Promise<NostrEvent[]> } },
  relay: string,
  kind: number,
  author: string,
) {
  const events = await roost.pool.fetch([relay], [{ kinds: [kind], authors: [author] }])
  return events.sort((a, b) => b.created_at - a.created_at)[0]
}

const listed = (e: NostrEvent | undefined) =>
  (e?.tags ?? []).filter((t) => t[0] === 'group').map((t) => `${t[2]}'${t[1]}`)

describe('createRoost({ relays })', () => {
  it('takes string[] or { read, write }; anything else is a typed error naming the option', () => {
    const signer = LocalSigner.generate()
    const bad: [unknown, string][] = [
      ['wss://relay.example', 'relays'],
      [{ read: ['wss://a.example'] }, 'relays'],
      [{ read: ['wss://a.example'], write: 'wss://b.example' }, 'relays.write'],
      [{ read: ['https://a.example'], write: [] }, 'relays.read[0]'],
      [['wss://a.example', 42], 'relays[1]'],
    ]
    for (const [relays, option] of bad) {
      let thrown: unknown
      try {
        createRoost({ signer, relays: relays as never, readState: false })
      } catch (err) {
        thrown = err
      }
      expect(thrown, JSON.stringify(relays)).toBeInstanceOf(InvalidRelaysError)
      expect((thrown as InvalidRelaysError).option).toBe(option)
      expect((thrown as InvalidRelaysError).code).toBe('invalid-relays')
    }
    const ok = createRoost({ signer, relays: { read: ['wss://a.example'], write: ['wss://b.example'] } })
    expect(ok.groups.accountRelays()).toEqual({ read: ['wss://a.example'], write: ['wss://b.example'] })
    return ok.close()
  })

  for (const [name, store] of stores) {
    it(`publishes the 10009 and read state to the write relays and reads them from read ∪ write (${name})`, async () => {
      const inbox = await h.relay() // read only
      const outbox = await h.relay() // write only
      const groups = await h.relay()
      const id = await groups.createGroup({ name: 'Split' })
      const signer = LocalSigner.generate()
      const me = await signer.getPublicKey()
      const phone = h.roost({
        signer,
        store: store(),
        relays: { read: [inbox.url], write: [outbox.url] },
        readState: { debounceMs: 20, maxWaitMs: 100 },
      })
      const g = await phone.groups.join(groupCode(groups, id))
      await g.sendMessage('hello')
      g.markRead()
      await (phone.readState as ReadStateSync).flush()
      await phone.groups.idle()
      expect(listed(await newest(phone, outbox.url, KINDS.groupList, me))).toEqual([groupCode(groups, id)])
      expect(await newest(phone, inbox.url, KINDS.groupList, me)).toBeUndefined()
      expect(await newest(phone, outbox.url, 30078, me)).toBeDefined()
      expect(await newest(phone, inbox.url, 30078, me)).toBeUndefined()

      // another device that reads from the outbox finds both
      const laptop = h.roost({
        signer: LocalSigner.fromSecret(signer.nsec()),
        store: store(),
        relays: { read: [outbox.url], write: [inbox.url] },
        readState: { debounceMs: 20, maxWaitMs: 100 },
      })
      await untilRegistry(laptop, () => laptop.groups.group(groupCode(groups, id)) !== undefined, PATIENCE)
      await (laptop.readState as ReadStateSync).ready
      expect((laptop.readState as ReadStateSync).effective(groupCode(groups, id))).toBeGreaterThan(0)
    })

    it(`a group left on one device is left on the other, and stays left (${name})`, async () => {
      // A leave within LIST_RACE_SECONDS of the join elsewhere counts as concurrent (and keeps the
      // group); this one comes two minutes later, on a clock every party shares.
      let ahead = 0
      const clock = () => Math.floor(Date.now() / 1000) + ahead
      const home = await h.relay({ clock })
      const groups = await h.relay({ clock })
      const [one, two, three] = await Promise.all(
        ['one', 'two', 'three'].map((n) => groups.createGroup({ name: n })),
      )
      const code = (x: string) => groupCode(groups, x)
      const signer = LocalSigner.generate()
      const me = await signer.getPublicKey()
      const phone = h.roost({ signer, store: store(), relays: [home.url], readState: false, clock })
      await phone.groups.join(code(one!))
      await phone.groups.join(code(two!))
      const laptop = h.roost({
        signer: LocalSigner.fromSecret(signer.nsec()),
        store: store(),
        relays: [home.url],
        readState: false,
        clock,
      })
      await untilRegistry(laptop, () => laptop.groups.groups().length === 2, PATIENCE)
      ahead = 120

      await laptop.groups.leave(code(one!))
      await untilRegistry(phone, () => phone.groups.group(code(one!)) === undefined, PATIENCE)
      // the phone's next edit does not bring it back anywhere
      await phone.groups.join(code(three!))
      await untilRegistry(laptop, () => laptop.groups.group(code(three!)) !== undefined, PATIENCE)
      await Promise.all([phone.groups.idle(), laptop.groups.idle()])
      expect(laptop.groups.group(code(one!))).toBeUndefined()
      expect(phone.groups.group(code(one!))).toBeUndefined()
      expect(listed(await newest(phone, home.url, KINDS.groupList, me)).sort()).toEqual(
        [code(two!), code(three!)].sort(),
      )
    })
  }

  it('without relays read state stays here; setRelays() starts syncing it and the list at once', async () => {
    const home = await h.relay()
    const groups = await h.relay()
    const id = await groups.createGroup({ name: 'Later' })
    const signer = LocalSigner.generate()
    const me = await signer.getPublicKey()
    const fast = { debounceMs: 20, maxWaitMs: 100 }
    const phone = h.roost({ signer, readState: fast })
    const g = await phone.groups.join(groupCode(groups, id))
    await g.sendMessage('hi')
    g.markRead()
    await phone.setRelays([home.url])
    await (phone.readState as ReadStateSync).flush()
    expect(await newest(phone, home.url, 30078, me)).toBeDefined()
    // the list held was sent to the relay added
    expect(listed(await newest(phone, home.url, KINDS.groupList, me))).toEqual([groupCode(groups, id)])
  })
})

describe('NIP-65 (kind 10002)', () => {
  it('a user’s 10002 on the configured relay moves the 10009 and read state to its write relays', async () => {
    const configured = await h.relay()
    const outbox = await h.relay()
    const groups = await h.relay()
    const id = await groups.createGroup({ name: 'Follows NIP-65' })
    const signer = LocalSigner.generate()
    const me = await signer.getPublicKey()
    // published earlier by another client of the user's
    const setup = h.roost({ signer: LocalSigner.fromSecret(signer.nsec()), readState: false, nip65: false })
    const list = await signer.signEvent({
      kind: 10002,
      created_at: Math.floor(Date.now() / 1000) - 60,
      tags: [['r', outbox.url]],
      content: '',
    })
    await setup.pool.publish([configured.url], list)

    const phone = h.roost({ signer, relays: [configured.url], readState: { debounceMs: 20, maxWaitMs: 100 } })
    // awaits the state itself: the list arrives over the configured relay's subscription
    const deadline = Date.now() + PATIENCE
    while (!phone.groups.accountRelays().write.includes(outbox.url)) {
      if (Date.now() > deadline) throw new Error('the 10002 was never followed')
      await new Promise((r) => setTimeout(r, 20))
    }
    const g = await phone.groups.join(groupCode(groups, id))
    g.markRead(Math.floor(Date.now() / 1000))
    await (phone.readState as ReadStateSync).flush()
    await phone.groups.idle()
    expect(listed(await newest(phone, outbox.url, KINDS.groupList, me))).toEqual([groupCode(groups, id)])
    expect(await newest(phone, outbox.url, 30078, me)).toBeDefined()
    expect(await newest(phone, configured.url, KINDS.groupList, me)).toBeUndefined()
  })

  it('a 10002 found after start moves the read state of a source of our own, through onRelayList', async () => {
    const configured = await h.relay()
    const outbox = await h.relay()
    const groups = await h.relay()
    const id = await groups.createGroup({ name: 'Later list' })
    const signer = LocalSigner.generate()
    const me = await signer.getPublicKey()
    const store = new MemoryEventStore()
    const setup = h.roost({ signer: LocalSigner.fromSecret(signer.nsec()), readState: false, nip65: false })
    const pool = setup.pool
    // the app's own read state, on the configured relay only
    const marks = new ReadStateSync({
      pool,
      signer,
      store,
      relays: [configured.url],
      debounceMs: 20,
      maxWaitMs: 100,
      flushOnHide: false,
    })
    const found: unknown[] = []
    const phone = h.roost({
      signer,
      store,
      relays: [configured.url],
      readState: marks,
      relayPool: pool,
      onRelayList: (relays) => {
        found.push(relays)
        void marks.setRelays(relays)
      },
    })
    const g = await phone.groups.join(groupCode(groups, id))
    await marks.ready
    expect(found).toEqual([])

    // Another client of the user's publishes a list now, after this one started.
    const list = await signer.signEvent({
      kind: 10002,
      created_at: Math.floor(Date.now() / 1000),
      tags: [['r', outbox.url]],
      content: '',
    })
    await pool.publish([configured.url], list)
    const deadline = Date.now() + PATIENCE
    while (found.length === 0) {
      if (Date.now() > deadline) throw new Error('onRelayList was never called')
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(found).toEqual([{ read: [outbox.url], write: [outbox.url] }])
    g.markRead(Math.floor(Date.now() / 1000))
    // The read state follows without anything else asked of it.
    while (!(await newest(phone, outbox.url, 30078, me))) {
      if (Date.now() > deadline) throw new Error('the read state never reached the outbox')
      await marks.flush()
      await new Promise((r) => setTimeout(r, 50))
    }
    await marks.close()
  })

  it('publishRelayList() writes a 10002 for a user without one and switches to it', async () => {
    const configured = await h.relay()
    const added = await h.relay()
    const signer = LocalSigner.generate()
    const me = await signer.getPublicKey()
    const phone = h.roost({ signer, relays: [configured.url], readState: false })
    const results = await phone.publishRelayList({ read: [configured.url, added.url], write: [added.url] })
    expect(results.some((r) => r.ok)).toBe(true)
    const list = await newest(phone, configured.url, 10002, me)
    expect(list?.tags).toEqual([
      ['r', configured.url, 'read'],
      ['r', added.url],
    ])
    expect(phone.groups.accountRelays()).toEqual({ read: [configured.url, added.url], write: [added.url] })
  })
})
