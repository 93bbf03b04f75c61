/**
 * What a group tells its listeners (`group.subscribe`): `eose` once the relay has sent what it
 * holds for the group's subscription, `incoming` for each event that arrives new, `refused` with
 * the relay's text when it ends the subscription. Each is asserted as emitted, live and after a
 * restart (of the relay, and of the client on its stored cache), through the public API only,
 * against a real relay over real WebSockets.
 */
import { join } from 'node:path'
import { bytesToHex } from '@noble/hashes/utils.js'
import { generateSecretKey } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import { type Group, type GroupEvent, type GroupSnapshot, LocalSigner, type Roost } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()

/** Deadlines are only diagnostics, kept well inside the test timeout (a loaded machine is slow). */
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = (opts: Parameters<Harness['roost']>[0] = {}) =>
  h.roost({ ...opts, pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE, ...opts.pool } })
afterEach(() => h.close())

/** Every event a group tells its listeners, from the moment the registry lists the group. */
class Recorder {
  readonly events: GroupEvent[] = []
  private readonly waiters: (() => void)[] = []

  constructor(roost: Roost, code: string) {
    let attached = false
    const attach = () => {
      const group = roost.groups.group(code)
      if (attached || !group) return
      attached = true
      group.subscribe((e) => {
        this.events.push(e)
        for (const w of [...this.waiters]) w()
      })
    }
    roost.groups.subscribe(attach)
    attach()
  }

  /** How many events were recorded so far: a mark to look after. */
  mark(): number {
    return this.events.length
  }

  /** The events recorded after `mark`. */
  since(mark: number): GroupEvent[] {
    return this.events.slice(mark)
  }

  /** Resolves once an event after `mark` matches. */
  next(pred: (e: GroupEvent) => boolean, mark = 0): Promise<GroupEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.since(mark).find(pred)
        if (!found) return false
        clearTimeout(timer)
        this.waiters.splice(this.waiters.indexOf(check), 1)
        resolve(found)
        return true
      }
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(check), 1)
        reject(new Error(`no such group event in ${PATIENCE} ms; seen: ${this.kinds(mark).join(', ')}`))
      }, PATIENCE)
      this.waiters.push(check)
      check()
    })
  }

  /** The types recorded after `mark`, with the event's content for `incoming`. */
  kinds(mark = 0): string[] {
    return this.since(mark).map((e) => (e.type === 'incoming' ? `incoming ${e.event.content}` : e.type))
  }
}

const isEose = (e: GroupEvent) => e.type === 'eose'
const incomingOf = (id: string) => (e: GroupEvent) => e.type === 'incoming' && e.event.id === id

describe('group events', () => {
  it('live: eose once the relay has sent what it holds, then incoming for each new message', async () => {
    const relay = await h.relay()
    const code = groupCode(relay, await relay.createGroup({ name: 'Events' }))
    const bob = client()
    const b = await bob.groups.join(code)
    await until(b, (s) => s.membership.status === 'member' && !s.loading)

    const alice = client()
    const heard = new Recorder(alice, code)
    const a = await alice.groups.join(code)
    await until(a, (s) => !s.loading)
    expect(heard.events.filter(isEose)).toHaveLength(1)

    const afterEose = heard.mark()
    const sent = await b.sendMessage('hello, live')
    await until(a, (s) => s.messages.some((m) => m.id === sent.id))
    expect(heard.since(afterEose).filter(incomingOf(sent.id))).toHaveLength(1)
    const incoming = heard.since(afterEose).find(incomingOf(sent.id))
    expect(incoming?.type === 'incoming' && incoming.event.content).toBe('hello, live')
  })

  it('live: refused with the relay’s text when the relay ends the subscription', async () => {
    const relay = await h.relay({ profile: 'zooid' }) // AUTH for everything
    const code = groupCode(relay, await relay.createGroup({ name: 'Zoo' }))
    const gus = client({ pool: { authPolicy: () => 'never' } })
    const heard = new Recorder(gus, code)
    const g = await gus.groups.join(code)
    const s = await until(g, (s) => s.refused !== undefined)
    expect(s.refused).toMatch(/^auth-required: /)
    expect(heard.events.filter((e) => e.type === 'refused')).toEqual([{ type: 'refused', reason: s.refused }])
  })

  it('after the relay restarts: eose again, and a message sent then arrives as incoming', async () => {
    const db = join(h.tmp(), 'relay.db')
    const secretKey = bytesToHex(generateSecretKey())
    const first = await h.relay({ db, secretKey })
    const port = Number(new URL(first.url).port)
    const code = groupCode(first, await first.createGroup({ name: 'Restart' }))
    const bob = client()
    const b = await bob.groups.join(code)
    const alice = client()
    const heard = new Recorder(alice, code)
    const a = await alice.groups.join(code)
    await until(b, (s) => s.membership.status === 'member' && !s.loading)
    await until(a, (s) => !s.loading)

    const beforeRestart = heard.mark()
    await first.close()
    await h.relay({ db, secretKey, port })
    const sent = await b.sendMessage('sent while the relay was restarting')
    await heard.next(isEose, beforeRestart)
    await until(a, (s) => s.messages.some((m) => m.id === sent.id))
    expect(heard.since(beforeRestart).filter(incomingOf(sent.id))).toHaveLength(1)
  })

  it('after the client restarts on its stored cache: nothing stored is incoming; eose, incoming and refused are', async () => {
    const path = join(h.tmp(), 'client.db')
    const home = await h.relay()
    const relay = await h.relay()
    const zoo = await h.relay({ profile: 'zooid' })
    const open = groupCode(relay, await relay.createGroup({ name: 'Open' }))
    const closed = groupCode(zoo, await zoo.createGroup({ name: 'Zoo' }))
    const signer = LocalSigner.generate()
    const alice = (store: SqliteEventStore) =>
      client({ signer, relays: [home.url], store, pool: { authPolicy: () => 'never' } })

    const first = alice(SqliteEventStore.open(path))
    const bob = client()
    const b = await bob.groups.join(open)
    await until(b, (s) => s.membership.status === 'member' && !s.loading)
    const stored = await b.sendMessage('stored before the restart')
    const a1 = await first.groups.join(open)
    await until(a1, (s) => s.messages.some((m) => m.id === stored.id) && !s.loading)
    const z1 = await first.groups.join(closed)
    await until(z1, (s) => s.refused !== undefined)
    await first.close()

    const second = alice(SqliteEventStore.open(path))
    const heard = new Recorder(second, open)
    const heardZoo = new Recorder(second, closed)
    await second.groups.ready
    const a2 = second.groups.group(open)!
    const z2 = second.groups.group(closed)!
    expect(a2.snapshot().messages.map((m) => m.id)).toContain(stored.id) // from the cache
    await heard.next(isEose)
    // The relay sent the stored message again with the backlog: it is not news.
    expect(heard.events.filter((e) => e.type === 'incoming')).toEqual([])

    const sent = await b.sendMessage('new after the restart')
    await until(a2, (s) => s.messages.some((m) => m.id === sent.id))
    expect(
      heard.events.filter((e) => e.type === 'incoming').map((e) => e.type === 'incoming' && e.event.id),
    ).toEqual([sent.id])

    const s = await until(z2, (s) => s.refused !== undefined)
    expect(s.refused).toMatch(/^auth-required: /)
    expect(heardZoo.events.filter((e) => e.type === 'refused')).toEqual([
      { type: 'refused', reason: s.refused },
    ])
  })
})
