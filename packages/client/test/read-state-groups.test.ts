import { mentionUri } from '@roost/nip29'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { createRoost, LocalSigner, MemoryEventStore, nobleVerifier, RelayPool } from '../src'
import type { ReadStateSource } from '../src/groups'
import { ReadStateSync } from '../src/read-state'
import { groupCode, Harness, until } from './helpers'

/** A hand-driven clock and timer queue for the read-state debounce. */
class FakeTimers {
  now = Date.now()
  private seq = 0
  private readonly tasks = new Map<number, { at: number; fn: () => void }>()
  readonly timers = {
    setTimeout: (fn: () => void, ms: number) => {
      const id = ++this.seq
      this.tasks.set(id, { at: this.now + ms, fn })
      return id
    },
    clearTimeout: (h: unknown) => {
      this.tasks.delete(h as number)
    },
  }
  readonly clock = () => this.now
  advance(ms: number): void {
    this.now += ms
    for (const [id, t] of [...this.tasks].sort((a, b) => a[1].at - b[1].at))
      if (t.at <= this.now && this.tasks.delete(id)) t.fn()
  }
}

const h = new Harness()
afterEach(() => h.close())

/** One of Alice's devices: its own pool, store, read-state sync and Roost client. */
function aliceDevice(relayUrl: string, signer: LocalSigner) {
  const fake = new FakeTimers()
  const pool = new RelayPool({
    websocket: WebSocket as unknown as typeof globalThis.WebSocket,
    verifier: nobleVerifier,
    backoff: { baseMs: 50, maxMs: 400 },
    publishTimeout: 3_000,
    eoseTimeout: 3_000,
  })
  const store = new MemoryEventStore()
  const sync = new ReadStateSync({
    pool,
    signer,
    store,
    relays: [relayUrl],
    clock: fake.clock,
    timers: fake.timers,
  })
  const roost = createRoost({ signer, store, relayPool: pool, readState: sync, relays: [relayUrl] })
  h.defer(async () => {
    await roost.close()
    pool.close()
  })
  h.defer(() => sync.close())
  return { fake, sync, roost }
}

describe('read state across devices through groups', () => {
  it('ReadStateSync is a groups ReadStateSource', () => {
    const pool = new RelayPool()
    const sync = new ReadStateSync({
      pool,
      signer: LocalSigner.generate(),
      store: new MemoryEventStore(),
      relays: [],
    })
    h.defer(() => pool.close())
    h.defer(() => sync.close())
    const source: ReadStateSource = sync
    expect(source.frontier('x')).toBe(0)
    source.markRead('x', 5)
    expect(source.frontier('x')).toBe(5)
  })

  it('reading a group on one device clears its unread count on the other once the debounce elapses there', async () => {
    const relay = await h.relay()
    const id = await relay.createGroup({ name: 'Read me' })
    const bob = h.roost()
    const b = await bob.groups.join(groupCode(relay, id))
    await until(b, (s) => s.membership.status === 'member')
    for (const text of ['one', 'two', 'three']) await b.sendMessage(text)

    const alice = LocalSigner.generate()
    const phone = aliceDevice(relay.url, alice)
    const laptop = aliceDevice(relay.url, alice)
    await Promise.all([phone.sync.ready, laptop.sync.ready])
    const gp = await phone.roost.groups.join(groupCode(relay, id))
    const gl = await laptop.roost.groups.join(groupCode(relay, id))
    await until(gp, (s) => s.messages.filter((m) => !m.mine).length === 3 && s.unread === 3)
    await until(gl, (s) => s.messages.filter((m) => !m.mine).length === 3 && s.unread === 3)

    gp.markRead()
    expect(gp.unread()).toBe(0)
    expect(gl.unread()).toBe(3)
    phone.fake.advance(5_000) // the debounce elapses on the phone
    // The laptop's clock never moves: its count clears on the phone's publish alone.
    await until(gl, (s) => s.unread === 0)
    expect(laptop.sync.effective(gl.key.toString())).toBe(phone.sync.effective(gp.key.toString()))
  })

  it('a mention read on one device clears the mention badge on the other too', async () => {
    const relay = await h.relay()
    const id = await relay.createGroup({ name: 'Mention me' })
    const alice = LocalSigner.generate()
    const aliceKey = await alice.getPublicKey()
    const phone = aliceDevice(relay.url, alice)
    const laptop = aliceDevice(relay.url, alice)
    await Promise.all([phone.sync.ready, laptop.sync.ready])
    const gp = await phone.roost.groups.join(groupCode(relay, id))
    const gl = await laptop.roost.groups.join(groupCode(relay, id))
    await until(gp, (s) => s.membership.status === 'member')
    // Read up to now on the phone (synced), so the mention below is the only unread message.
    gp.markRead()
    phone.fake.advance(5_000)
    await until(gl, (s) => s.membership.status === 'member')

    const bob = h.roost()
    const b = await bob.groups.join(groupCode(relay, id))
    await until(b, (s) => s.membership.status === 'member')
    await b.sendMessage(`over to you ${mentionUri(aliceKey)}`)
    await b.sendMessage('and a plain one')
    await until(gp, (s) => s.mentions === 1 && s.unread === 2)
    await until(gl, (s) => s.mentions === 1 && s.unread === 2)

    gp.markRead()
    expect(gp.unreadMentions()).toBe(0)
    expect(gl.unreadMentions()).toBe(1)
    phone.fake.advance(5_000) // the debounce elapses on the phone
    await until(gl, (s) => s.mentions === 0 && s.unread === 0, 3_000)
  })
})
