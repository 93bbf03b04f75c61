/**
 * Several relay processes on one PostgreSQL database: fan-out between them, one group state decided
 * in the database, invite codes that admit once, `previous` windows that span processes.
 */
import type { NostrEvent } from 'nostr-tools'
import type { Relay } from 'nostr-tools/relay'
import { beforeAll, describe, expect, it } from 'vitest'
import { type RelayProcess, relayProcess } from './cluster'
import { connect, fetch, h, live, pgDatabase, publish, type User, user } from './helpers'

/** Every process runs with the same relay key, as a deployment must. */
const KEY = '5e'.repeat(32)

/** Three processes on one fresh database, shared by the tests of this file (each uses its own groups). */
let procs: RelayProcess[] = []
beforeAll(async () => {
  const db = await pgDatabase()
  procs = await Promise.all([0, 1, 2].map(() => relayProcess(db, KEY)))
}, 120_000)

/** A client on each of the first `n` processes. */
async function cluster(n: number) {
  const clients = await Promise.all(procs.slice(0, n).map((p) => connect(p.url)))
  return { clients }
}

/** Creates an open group through `c`, `admin` its creator. */
async function createGroup(c: Relay, admin: User, id: string): Promise<void> {
  expect(await publish(c, admin.sign({ kind: 9007, tags: h(id) }))).toEqual({ ok: true, message: '' })
}

/** The relay-signed 39000–39002 of a group as one process serves them, by kind. */
async function state(c: Relay, g: string): Promise<Record<number, NostrEvent>> {
  const { events } = await fetch(c, [{ kinds: [39000, 39001, 39002], '#d': [g] }])
  return Object.fromEntries(events.map((e) => [e.kind, e]))
}

const members = (s: Record<number, NostrEvent>) =>
  (s[39002]?.tags ?? [])
    .filter((t) => t[0] === 'p')
    .map((t) => t[1])
    .sort()

// Each test starts real Node processes; a loaded machine takes seconds for that alone.
describe('a cluster of relay processes on one PostgreSQL database', { timeout: 120_000 }, () => {
  it('a message published on A reaches live subscribers on B and C, in publication order', async () => {
    const {
      clients: [a, b, c],
    } = await cluster(3)
    const admin = user()
    await createGroup(a!, admin, 'fanout')
    const onB = live(b!, [{ kinds: [9], '#h': ['fanout'] }])
    const onC = live(c!, [{ kinds: [9], '#h': ['fanout'] }])
    await Promise.all([onB.ready, onC.ready])
    const sent: NostrEvent[] = []
    for (let i = 0; i < 20; i++) {
      const e = admin.sign({ kind: 9, tags: h('fanout'), content: `m${i}` })
      expect((await publish(a!, e)).ok).toBe(true)
      sent.push(e)
    }
    const last = sent[sent.length - 1]!
    await onB.next((e) => e.id === last.id)
    await onC.next((e) => e.id === last.id)
    expect(onB.events.map((e) => e.id)).toEqual(sent.map((e) => e.id))
    expect(onC.events.map((e) => e.id)).toEqual(sent.map((e) => e.id))
    // Ephemeral events cross processes too, without being stored.
    const ping = admin.sign({ kind: 20001, tags: h('fanout'), content: 'ping' })
    const ephB = live(b!, [{ kinds: [20001], '#h': ['fanout'] }])
    await ephB.ready
    expect((await publish(c!, ping)).ok).toBe(true)
    expect((await ephB.next()).id).toBe(ping.id)
  })

  it('joins, leaves and moderation from different processes converge to one 39000–39002', async () => {
    const {
      clients: [a, b, c],
    } = await cluster(3)
    const via = [a!, b!, c!]
    const admin = user()
    await createGroup(a!, admin, 'meet')
    const watch = live(a!, [{ kinds: [39002], '#d': ['meet'] }])
    await watch.ready
    const users = Array.from({ length: 9 }, () => user())
    // Nine joins at once, three through each process.
    const joins = await Promise.all(
      users.map((u, i) => publish(via[i % 3]!, u.sign({ kind: 9021, tags: h('meet') }))),
    )
    expect(joins.every((r) => r.ok)).toBe(true)
    const extra = user()
    // Then, at once: two leaves, an add, a removal and a rename, each through another process.
    const moves = await Promise.all([
      publish(c!, users[0]!.sign({ kind: 9022, tags: h('meet') })),
      publish(a!, users[1]!.sign({ kind: 9022, tags: h('meet') })),
      publish(b!, admin.sign({ kind: 9000, tags: h('meet', ['p', extra.pk]) })),
      publish(a!, admin.sign({ kind: 9001, tags: h('meet', ['p', users[2]!.pk]) })),
      publish(c!, admin.sign({ kind: 9002, tags: h('meet', ['name', 'Renamed']) })),
    ])
    expect(moves.every((r) => r.ok)).toBe(true)
    const expected = [admin.pk, extra.pk, ...users.slice(3).map((u) => u.pk)].sort()
    const seen = await Promise.all(via.map((r) => state(r, 'meet')))
    for (const s of seen) {
      expect(s).toEqual(seen[0])
      expect(members(s)).toEqual(expected)
      expect(s[39000]?.tags).toContainEqual(['name', 'Renamed'])
    }
    // The 39002s the watcher saw live, from all three processes, never went back in time and end
    // with the one every process serves.
    const final = seen[0]![39002]!
    await watch.next((e) => e.id === final.id)
    const times = watch.events.map((e) => e.created_at)
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThan(times[i - 1]!)
  })

  it('a single-use invite code redeemed on two processes at once admits exactly one member', async () => {
    const {
      clients: [a, b],
    } = await cluster(2)
    const admin = user()
    await createGroup(a!, admin, 'club')
    expect((await publish(a!, admin.sign({ kind: 9002, tags: h('club', ['closed']) }))).ok).toBe(true)
    const admitted: string[] = []
    for (let round = 0; round < 8; round++) {
      const code = `code${round}`
      expect((await publish(b!, admin.sign({ kind: 9009, tags: h('club', ['code', code]) }))).ok).toBe(true)
      const pair = [user(), user()]
      const results = await Promise.all(
        pair.map((u, i) =>
          publish(i === 0 ? a! : b!, u.sign({ kind: 9021, tags: h('club', ['code', code]) })),
        ),
      )
      expect(results.filter((r) => r.ok)).toHaveLength(1)
      expect(results.find((r) => !r.ok)?.message).toBe('restricted: invalid or already used invite code')
      admitted.push(pair[results.findIndex((r) => r.ok)]!.pk)
    }
    for (const r of [a!, b!]) expect(members(await state(r, 'club'))).toEqual([admin.pk, ...admitted].sort())
  })

  it('a code good for three joins, redeemed by eight people on two processes at once, admits exactly three', async () => {
    const {
      clients: [a, b],
    } = await cluster(2)
    const admin = user()
    await createGroup(a!, admin, 'trio')
    expect((await publish(a!, admin.sign({ kind: 9002, tags: h('trio', ['closed']) }))).ok).toBe(true)
    expect(
      (await publish(b!, admin.sign({ kind: 9009, tags: h('trio', ['code', 'three'], ['uses', '3']) }))).ok,
    ).toBe(true)
    const people = Array.from({ length: 8 }, () => user())
    const results = await Promise.all(
      people.map((u, i) =>
        publish(i % 2 === 0 ? a! : b!, u.sign({ kind: 9021, tags: h('trio', ['code', 'three']) })),
      ),
    )
    const admitted = people.filter((_, i) => results[i]!.ok).map((u) => u.pk)
    expect(admitted).toHaveLength(3)
    for (const r of [a!, b!]) expect(members(await state(r, 'trio'))).toEqual([admin.pk, ...admitted].sort())
  })

  it('previous references to events accepted by another process are found', async () => {
    const {
      clients: [a, b, c],
    } = await cluster(3)
    const admin = user()
    await createGroup(a!, admin, 'thread')
    const first = admin.sign({ kind: 9, tags: h('thread'), content: 'first' })
    expect((await publish(a!, first)).ok).toBe(true)
    const second = admin.sign({
      kind: 9,
      tags: h('thread', ['previous', first.id.slice(0, 8)]),
      content: 'second',
    })
    expect(await publish(b!, second)).toEqual({ ok: true, message: '' })
    const third = admin.sign({
      kind: 9,
      tags: h('thread', ['previous', first.id.slice(0, 8), second.id.slice(0, 8)]),
      content: 'third',
    })
    expect(await publish(c!, third)).toEqual({ ok: true, message: '' })
    expect(await publish(c!, admin.sign({ kind: 9, tags: h('thread', ['previous', 'deadbeef']) }))).toEqual({
      ok: false,
      message: "blocked: previous id 'deadbeef' wasn't found in this group",
    })
  })
})
