import { join } from 'node:path'
import { GroupList, KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { afterEach, describe, expect, it } from 'vitest'
import { type Group, type GroupSnapshot, LocalSigner, MemoryEventStore } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import { groupCode, Harness, untilRegistry as untilRegistryWithin, until as untilWithin } from './helpers'

const h = new Harness()

/**
 * Everything here awaits the state itself (`until` re-checks on each group event). Deadlines are
 * only diagnostics, kept well inside the test timeout: on a loaded machine a round trip can take
 * seconds, and a 3 s publish or EOSE deadline, or a 5 s wait, would fail a test that is fine.
 */
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const untilRegistry = (roost: Parameters<typeof untilRegistryWithin>[0], predicate: () => boolean) =>
  untilRegistryWithin(roost, predicate, PATIENCE)
const client = (opts: Parameters<Harness['roost']>[0] = {}) =>
  h.roost({ ...opts, pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE, ...opts.pool } })
afterEach(() => h.close())

const keys = (r: { groups: { groups(): readonly { key: { toString(): string } }[] } }) =>
  r.groups
    .groups()
    .map((g) => g.key.toString())
    .sort()

describe('the account’s group list (10009)', () => {
  it('never loses a group across joins and leaves on two devices', async () => {
    const home = await h.relay() // the account's own relay, where its 10009 lives
    const groups = await h.relay()
    const [g1, g2, g3, g4] = await Promise.all(
      ['one', 'two', 'three', 'four'].map((name) => groups.createGroup({ name })),
    )
    const code = (id: string) => groupCode(groups, id!)
    const signer = LocalSigner.generate()
    const phone = client({ signer, relays: [home.url] })
    await phone.groups.join(code(g1!))

    const laptop = client({ signer: LocalSigner.fromSecret(signer.nsec()), relays: [home.url] })
    await untilRegistry(laptop, () => keys(laptop).includes(code(g1!))) // learnt from the phone's list
    await laptop.groups.join(code(g2!))
    await untilRegistry(phone, () => keys(phone).includes(code(g2!))) // merged, and subscribed
    const merged = phone.groups.group(code(g2!))!
    await until(merged, (s) => s.metadata?.name === 'two')

    await phone.groups.leave(code(g1!))
    // both devices join at once, each before seeing the other's list
    await Promise.all([phone.groups.join(code(g3!)), laptop.groups.join(code(g4!))])

    const expected = [code(g2!), code(g3!), code(g4!)]
    await untilRegistry(phone, () => expected.every((k) => keys(phone).includes(k)))
    await untilRegistry(laptop, () => expected.every((k) => keys(laptop).includes(k)))
    expect(keys(phone)).toEqual([...expected].sort()) // the group left here does not come back
    expect(laptop.groups.groupList().keys().map(String)).toEqual(expect.arrayContaining(expected))

    // and the newest list on the relay names every group nobody left
    const pk = await signer.getPublicKey()
    // Await the list itself: the devices merge and republish in turn, each a round trip.
    const named = (e: NostrEvent) => e.tags.filter((t) => t[0] === 'group').map((t) => `${t[2]}'${t[1]}`)
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no list naming every group')), PATIENCE)
      const sub = phone.pool.subscribe(home.url, [{ kinds: [KINDS.groupList], authors: [pk] }], {
        onevent: (e) => {
          if (!expected.every((k) => named(e).includes(k))) return
          clearTimeout(timer)
          sub.close()
          resolve()
        },
      })
    })
    // A device may still republish once after that (it merges the other's list and sends the
    // merge): the list the relay ends up holding is what another client reads, so wait for it to
    // settle rather than reading it once.
    const deadline = Date.now() + PATIENCE
    let newest: string[] = []
    for (;;) {
      await Promise.all([phone.groups.idle(), laptop.groups.idle()])
      const [latest] = await phone.pool.fetch(
        [home.url],
        [{ kinds: [KINDS.groupList], authors: [pk], limit: 1 }],
      )
      newest = latest ? named(latest) : []
      if (expected.every((k) => newest.includes(k)) || Date.now() > deadline) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(newest).toEqual(expect.arrayContaining(expected))
  })

  it('a restart with SqliteEventStore shows every group, its metadata and timeline before any network answers', async () => {
    const dir = h.tmp()
    const path = join(dir, 'client.db')
    const home = await h.relay()
    const relayA = await h.relay()
    const relayB = await h.relay({ profile: 'relay29' })
    const a = await relayA.createGroup({ name: 'Alpha' })
    const b = await relayB.createGroup({ name: 'Beta' })
    const c = await relayB.createGroup({ name: 'Gamma' })
    const signer = LocalSigner.generate()
    const first = client({ signer, relays: [home.url], store: SqliteEventStore.open(path) })
    const sent: Record<string, string> = {}
    for (const code of [groupCode(relayA, a), groupCode(relayB, b), groupCode(relayB, c)]) {
      const g = await first.groups.join(code)
      await until(g, (s) => s.membership.status === 'member' && s.metadata !== undefined)
      sent[code] = (await g.sendMessage(`hello ${code}`)).id
    }
    await first.close()
    await Promise.all([home.close(), relayA.close(), relayB.close()]) // no network at all from here on

    const second = client({ signer, relays: [home.url], store: SqliteEventStore.open(path) })
    await second.groups.ready
    expect(keys(second)).toEqual(Object.keys(sent).sort())
    for (const [code, id] of Object.entries(sent)) {
      const s = second.groups.group(code)!.snapshot()
      expect(s.metadata?.name).toMatch(/^(Alpha|Beta|Gamma)$/)
      expect(s.membership).toEqual({ status: 'member' })
      expect(s.messages.map((m) => m.id)).toContain(id)
      expect(s.loading).toBe(true) // nothing came from a relay yet
    }
  })

  it('a start with 40 groups on one relay loads every one, within the relay’s cap of 50 subscriptions', async () => {
    const relay = await h.relay({ profile: 'groups_relay' })
    const signer = LocalSigner.generate()
    const me = await signer.getPublicKey()
    const store = new MemoryEventStore()
    let list = GroupList.empty()
    for (let i = 0; i < 40; i++) {
      const id = await relay.createGroup({ name: `g${i}`, members: [me] })
      list = list.upsert({ id, relay: relay.url })
    }
    await store.add(await signer.signEvent(list.toTemplate(1)))
    const alice = client({ signer, store })
    await alice.groups.ready
    expect(alice.groups.groups()).toHaveLength(40)
    await Promise.all(
      alice.groups.groups().map((g) => until(g, (s) => !s.loading && s.membership.status === 'member')),
    )
    expect(alice.groups.groups().filter((g) => g.snapshot().refused !== undefined)).toEqual([])
  })

  it('leave wipes the cache and the list entry, and a rejoin starts clean', async () => {
    const relay = await h.relay()
    const id = await relay.createGroup({ name: 'Transient' })
    const store = SqliteEventStore.open(join(h.tmp(), 'c.db'))
    const alice = client({ store })
    const g = await alice.groups.join(groupCode(relay, id))
    await until(g, (s) => s.membership.status === 'member')
    await g.sendMessage('soon gone')
    await alice.groups.idle()
    expect((await store.query({ fork: g.key.toString(), kinds: [9] })).length).toBe(1)
    await alice.groups.leave(g.key)
    expect(await store.query({ fork: g.key.toString() })).toEqual([])
    expect(await store.getState(relay.url, 39000, id)).toBeUndefined()
    expect(alice.groups.groupList().has(g.key)).toBe(false)
    expect(relay.state(id)?.members).not.toContain(await alice.signer.getPublicKey())
  })
})
