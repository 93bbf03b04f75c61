/**
 * Same-second messages keep the sender's order on a device that was away while they were sent:
 * what a resumed subscription or a restart brings (newest first) goes after what the device
 * held when it is newer, and before it when it is older history the device never loaded.
 */
import { join } from 'node:path'
import type { RelayOptions } from '@roost/relay'
import { finalizeEvent } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import { startFaultProxy } from '../../../test/support/fault-proxy'
import { LocalSigner, MemoryEventStore } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import type { EventStore } from '../src/store'
import { Harness } from './helpers'
import { Clock, PATIENCE, scrollBack, texts, until } from './timeline-history.contract'

const h = new Harness()
afterEach(() => h.close())

const pool = {
  publishTimeout: PATIENCE,
  eoseTimeout: PATIENCE,
  connectTimeout: 2000,
  backoff: { baseMs: 100, maxMs: 1000 },
}

/**
 * The phone's store, opened anew at each start: a memory store that outlives the client closing
 * it, or a SQLite file.
 */
function phoneStore(kind: 'memory' | 'SQLite'): () => Promise<EventStore> {
  if (kind === 'SQLite') {
    const file = join(h.tmp(), 'phone.db')
    return async () => SqliteEventStore.open(file)
  }
  const store = new MemoryEventStore()
  const kept = new Proxy(store, {
    get(target, prop) {
      if (prop === 'close') return async () => {}
      const value = Reflect.get(target, prop)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return async () => kept
}

async function setup(opts: RelayOptions = {}) {
  const relay = await h.relay({ rateLimit: { events: 0, perSeconds: 1 }, ...opts })
  const link = await startFaultProxy(relay.url)
  h.defer(() => link.close())
  const clock = new Clock()
  const key = LocalSigner.generate()
  const alice = h.roost({ signer: key, clock: clock.now, readState: false, pool })
  const a = await alice.groups.create(relay.url, { name: 'Away' })
  await until(a, (s) => s.membership.status === 'member', 'alice a member')
  const sent: string[] = []
  const say = async (from: number, to: number, perSecond: number) => {
    for (let i = from; i < to; i++) {
      clock.set(clock.start + Math.floor(i / perSecond))
      await a.sendMessage(`m${i}`)
      sent.push(`m${i}`)
    }
  }
  return { relay, link, clock, key, alice, a, sent, say }
}

for (const kind of ['memory', 'SQLite'] as const)
  describe(`a device away while its seconds fill up (${kind} store)`, () => {
    it('a reconnect puts the messages sent meanwhile in one second after those it held, in sending order', async () => {
      const { link, clock, key, a, sent, say } = await setup()
      await say(0, 20, 100)
      const phone = h.roost({
        signer: key,
        store: await phoneStore(kind)(),
        clock: clock.now,
        readState: false,
        pool,
      })
      const p = await phone.groups.join(`${link.url}'${a.key.id.value}`)
      await until(p, (s) => s.messages.length === 20, 'the phone has the first 20')
      link.refuse()
      link.cut()
      await say(20, 40, 100)
      link.refuse(0)
      await until(p, (s) => s.messages.length === 40, 'the phone has all 40')
      expect(texts(p)).toEqual(sent)
    }, 60_000)

    it('a reconnect puts what a device with its clock behind wrote meanwhile into a second it holds part of after that part, though it holds newer messages', async () => {
      // The relay takes events dated in the past, without `previous` tags (another client's).
      const { relay, link, clock, key, alice, a, sent, say } = await setup({
        lateWindow: 0,
        previousMinimum: 0,
      })
      await say(0, 20, 100)
      const phone = h.roost({
        signer: key,
        store: await phoneStore(kind)(),
        clock: clock.now,
        readState: false,
        pool,
      })
      const p = await phone.groups.join(`${link.url}'${a.key.id.value}`)
      await until(p, (s) => s.messages.length === 20, 'the phone has the first 20')
      // The phone writes in the next second: newer than the whole crowded second.
      clock.set(clock.start + 1)
      await p.sendMessage('later')
      link.refuse()
      link.cut()
      // Meanwhile a device a second behind finishes the crowded second, each after the one before.
      for (let i = 20; i < 40; i++) {
        const content = `m${i}`
        const event = finalizeEvent(
          { kind: 9, created_at: clock.start, tags: [['h', a.key.id.value]], content },
          key.secretKey,
        )
        expect((await alice.pool.publish([relay.url], event))[0]?.ok).toBe(true)
        sent.push(content)
      }
      link.refuse(0)
      await until(p, (s) => s.messages.length === 41, 'the phone has all 41')
      expect(texts(p)).toEqual([...sent, 'later'])
    }, 60_000)

    it('a restart puts what a device with its clock behind wrote meanwhile into a second it holds part of after that part, though it holds newer messages', async () => {
      const { relay, clock, key, alice, a, sent, say } = await setup({ lateWindow: 0, previousMinimum: 0 })
      await say(0, 20, 100)
      const open = phoneStore(kind)
      const phone = h.roost({ signer: key, store: await open(), clock: clock.now, readState: false, pool })
      const p = await phone.groups.join(a.key.toString())
      await until(p, (s) => s.messages.length === 20, 'the phone has the first 20')
      clock.set(clock.start + 1)
      await p.sendMessage('later')
      await phone.close()
      for (let i = 20; i < 40; i++) {
        const content = `m${i}`
        const event = finalizeEvent(
          { kind: 9, created_at: clock.start, tags: [['h', a.key.id.value]], content },
          key.secretKey,
        )
        expect((await alice.pool.publish([relay.url], event))[0]?.ok).toBe(true)
        sent.push(content)
      }
      const again = h.roost({ signer: key, store: await open(), clock: clock.now, readState: false, pool })
      await again.groups.ready
      const g = again.groups.group(a.key.toString())!
      await until(g, (s) => s.messages.length === 41, 'the phone has all 41 after its restart')
      expect(texts(g)).toEqual([...sent, 'later'])
      await again.close()
      const third = h.roost({ signer: key, store: await open(), clock: clock.now, readState: false, pool })
      await third.groups.ready
      const t = third.groups.group(a.key.toString())!
      await until(t, (s) => s.messages.length === 41, 'all 41 after a second restart')
      expect(texts(t)).toEqual([...sent, 'later'])
    }, 60_000)

    it('a restart puts the messages sent meanwhile in one second after those it held, in sending order', async () => {
      const { clock, key, a, sent, say } = await setup()
      await say(0, 20, 100)
      const open = phoneStore(kind)
      const phone = h.roost({ signer: key, store: await open(), clock: clock.now, readState: false, pool })
      const p = await phone.groups.join(a.key.toString())
      await until(p, (s) => s.messages.length === 20, 'the phone has the first 20')
      await phone.close()
      await say(20, 40, 100)
      const again = h.roost({ signer: key, store: await open(), clock: clock.now, readState: false, pool })
      await again.groups.ready
      const g = again.groups.group(a.key.toString())!
      await until(g, (s) => s.messages.length === 40, 'the phone has all 40 after its restart')
      expect(texts(g)).toEqual(sent)
      // What it stored keeps that order: another restart reads it back so.
      await again.close()
      const third = h.roost({ signer: key, store: await open(), clock: clock.now, readState: false, pool })
      await third.groups.ready
      const t = third.groups.group(a.key.toString())!
      await until(t, (s) => s.messages.length === 40, 'all 40 after a second restart')
      expect(texts(t)).toEqual(sent)
    }, 60_000)

    it('a reconnect that brings older history it never loaded puts it before what it held, in sending order', async () => {
      const { link, clock, key, a, sent, say } = await setup()
      await say(0, 160, 40)
      // A fresh device loads the newest 100 (m60…m159), then its link drops and comes back: the
      // resumed subscription reaches back a minute, into m0…m59, two of whose seconds it holds part of.
      const phone = h.roost({
        signer: key,
        store: await phoneStore(kind)(),
        clock: clock.now,
        readState: false,
        pool,
      })
      const p = await phone.groups.join(`${link.url}'${a.key.id.value}`)
      await until(p, (s) => !s.loading && s.messages.length === 100, 'the newest 100')
      link.refuse()
      link.cut()
      link.refuse(0)
      await until(p, (s) => s.messages.length === 160, 'the resumed subscription brought the rest')
      await scrollBack(p)
      expect(texts(p)).toEqual(sent)
    }, 60_000)
  })
