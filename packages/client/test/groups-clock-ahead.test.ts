import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Group, type GroupSnapshot, LocalSigner, RelayPool } from '../src'
import { httpDate, RelayClocks } from '../src/pool/relay-clock'
import { SqliteEventStore } from '../src/sqlite'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
afterEach(() => h.close())

const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const AHEAD = 600 // ten minutes
const realNow = () => Math.floor(Date.now() / 1000)

describe('RelayClocks', () => {
  it('corrects a clock that runs ahead by more than 5 s, by the newest observation; never one behind', () => {
    const c = new RelayClocks()
    expect(c.offset('r')).toBe(0)
    expect(c.ahead('r')).toBeUndefined()
    c.observe('r', 1000, 1600)
    expect(c.offset('r')).toBe(-600)
    expect(c.ahead('r')).toBe(600)
    c.observe('r', 1000, 1003) // the device clock was set right
    expect(c.offset('r')).toBe(0)
    expect(c.ahead('r')).toBe(3)
    c.observe('r', 1000, 900) // behind: left alone
    expect(c.offset('r')).toBe(0)
    c.observe('r', Number.NaN, 1)
    expect(c.offset('r')).toBe(0)
    expect(c.offset('other')).toBe(0)
  })

  it('reads HTTP dates', () => {
    expect(httpDate('Thu, 01 Jan 1970 00:10:00 GMT')).toBe(600)
    expect(httpDate('not a date')).toBeUndefined()
    expect(httpDate(null)).toBeUndefined()
  })
})

/** A fetch that hides the HTTP `Date` (a relay whose NIP-11 answer a web page cannot read it from). */
const withoutDate: typeof fetch = async (input, init) => {
  const res = await globalThis.fetch(input, init)
  return new Response(await res.text(), {
    status: res.status,
    headers: { 'content-type': 'application/json' },
  })
}

describe('a device clock ten minutes ahead', () => {
  it('started offline: its NIP-11 fetch failed, and is asked again once a socket opens, so the relay clock is learnt', async () => {
    const relay = await h.relay({ profile: 'roost' })
    let offline = true
    const flaky: typeof fetch = (input, init) =>
      offline ? Promise.reject(new TypeError('Failed to fetch')) : globalThis.fetch(input, init)
    const pool = new RelayPool({ clock: () => realNow() + AHEAD, fetch: flaky })
    try {
      expect(await pool.relayInfo(relay.url)).toBeUndefined()
      expect(pool.clockOffset(relay.url)).toBe(0)
      offline = false
      const sub = pool.subscribe(relay.url, [{ kinds: [1], limit: 1 }], { onevent: () => {} })
      await expect.poll(() => pool.clockOffset(relay.url), { timeout: PATIENCE }).toBeLessThan(-AHEAD + 10)
      expect(await pool.relayInfo(relay.url)).toBeDefined()
      sub.close()
    } finally {
      pool.close()
    }
  })

  it('without a readable NIP-11 Date: what the relay signs live gives its clock, and the next send is accepted', async () => {
    const relay = await h.relay({ profile: 'roost' })
    const id = await relay.createGroup({ name: 'Open' })
    const signer = LocalSigner.generate()
    const opts = { publishTimeout: PATIENCE, eoseTimeout: PATIENCE, fetch: withoutDate }
    const path = join(h.tmp(), 'bob.db')
    const before = h.roost({ signer, pool: opts, store: SqliteEventStore.open(path) })
    await until(await before.groups.join(groupCode(relay, id)), (s) => s.membership.status === 'member')
    await before.groups.idle()
    await before.close()

    // The same member's next start, after the device clock jumped ten minutes ahead.
    const bob = h.roost({
      signer,
      clock: () => realNow() + AHEAD,
      pool: opts,
      store: SqliteEventStore.open(path),
    })
    await bob.groups.ready
    const b = bob.groups.group(groupCode(relay, id))!
    await until(b, (s) => s.membership.status === 'member' && !s.loading)
    const refused = await b.sendMessage('too early').catch((e: unknown) => e)
    expect(String((refused as Error).message)).toMatch(/too much in the future/)

    // Someone joins: the relay signs a 9000 and a 39002 now, and Bob receives them live.
    const carol = h.roost({ pool: opts })
    await until(await carol.groups.join(groupCode(relay, id)), (s) => s.membership.status === 'member')
    await until(b, (s) => s.members?.contains(carol.signer.publicKey) === true)
    const sent = await b.sendMessage('on time')
    expect(sent.created_at).toBeLessThanOrEqual(realNow() + 30)
  })

  for (const profile of ['roost', 'strict', 'relay29', 'groups_relay'] as const) {
    it(`${profile}: joins, sends and is accepted, dated within the relay's window`, async () => {
      const relay = await h.relay({ profile })
      const id = await relay.createGroup({ name: 'Open' })
      const alice = h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
      const a = await alice.groups.join(groupCode(relay, id))
      await until(a, (s) => s.membership.status === 'member')

      const bob = h.roost({
        signer: LocalSigner.generate(),
        clock: () => realNow() + AHEAD,
        pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE },
      })
      const b = await bob.groups.join(groupCode(relay, id))
      await until(b, (s) => s.membership.status === 'member')
      const sent = await b.sendMessage('is it late?')
      expect(sent.created_at).toBeLessThanOrEqual(realNow() + 30)
      const seen = await until(a, (s) => s.messages.some((m) => m.id === sent.id))
      expect(seen.messages.find((m) => m.id === sent.id)?.content).toBe('is it late?')
    })
  }
})
