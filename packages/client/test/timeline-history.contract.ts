/**
 * One order everywhere, and history that is whole (decision 21), over a real relay, on each event
 * store: memory and SQLite in Node (timeline-history.test.ts), IndexedDB in Chromium
 * (timeline-history.browser.test.ts). Every device here is a `createRoost` of its own: the sender,
 * a second device of the sender's key that listens live, the other person, a fresh device that
 * pages history in, and each of them again after a restart from its store.
 */
import { describe, expect, it } from 'vitest'
import { type Group, type GroupSnapshot, LocalSigner, type Roost } from '../src'
import type { EventStore } from '../src/store'

export const PATIENCE = 20_000

/** What the contract needs from where it runs. */
export interface HistoryEnv {
  /**
   * A relay for one test, without a rate limit: ours (`arrival`: a REQ answers a second's ties in
   * the order they arrived, newest first), or one that answers them lowest id first (`id`, as
   * NIP-01 relays do).
   */
  relay(ties: 'arrival' | 'id'): Promise<string>
  /** The store named `name`: empty the first time, the same storage after a client closed it. */
  store(name: string): Promise<EventStore>
  /** A client on `store` with `signer`, signing at `clock`; closed by the environment after the test. */
  roost(store: EventStore, signer: LocalSigner, clock: () => number): Roost
}

/**
 * A clock the test moves: every message sent while it stands still shares one `created_at`. It
 * shows the real time until it is set. The relay keeps its own clock: it takes moderation (creating
 * the group) within a minute of it and nothing more than a minute ahead, and checks `previous`
 * against the events it accepted last, so a conversation runs in the seconds just ahead of it.
 */
export class Clock {
  /** The first second of the conversation, just after the group is made. */
  readonly start = Math.floor(Date.now() / 1000) + 2
  private at: number | undefined
  readonly now = (): number => this.at ?? Math.floor(Date.now() / 1000)
  set(second: number): void {
    this.at = second
  }
  /** Back to the real time (a join is moderation, taken within a minute of the relay's clock). */
  real(): void {
    this.at = undefined
  }
}

export function until(
  group: Group,
  predicate: (s: GroupSnapshot) => boolean,
  what = '',
): Promise<GroupSnapshot> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      const s = group.snapshot()
      reject(new Error(`${what || 'condition'} not met in ${PATIENCE} ms (${s.messages.length} messages)`))
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

export const texts = (g: Group): string[] => g.snapshot().messages.map((m) => m.content)

/** Scrolls back to the start: `loadOlder` until `hasOlder` turns false (at most `pages` pages). */
export async function scrollBack(g: Group, pages = 60): Promise<number> {
  let n = 0
  while (g.snapshot().hasOlder && n < pages) {
    await g.loadOlder()
    n++
  }
  return n
}

/**
 * How many neighbouring pairs of `expected` that share a second (`secondOf`) are shown the other
 * way round (pairs not both shown are left out: `missing` counts those messages).
 */
export function swappedPairs(
  shown: readonly string[],
  expected: readonly string[],
  secondOf: (t: string) => string,
): number {
  const at = new Map(shown.map((t, i) => [t, i]))
  let swapped = 0
  for (let i = 1; i < expected.length; i++) {
    const a = expected[i - 1] as string
    const b = expected[i] as string
    if (secondOf(a) !== secondOf(b)) continue
    const ia = at.get(a)
    const ib = at.get(b)
    if (ia !== undefined && ib !== undefined && ia > ib) swapped++
  }
  return swapped
}

/** The 8-hex `previous` prefixes an event carries. */
function previousOf(tags: readonly string[][]): string[] {
  return tags.filter((t) => t[0] === 'previous').flatMap((t) => t.slice(1))
}

/** Rows shown before a row of the same second that names them in its `previous` tag, counted. */
export function previousViolations(g: Group): number {
  const rows = g.snapshot().messages
  let bad = 0
  for (const [i, row] of rows.entries()) {
    for (const prefix of previousOf(row.event.tags)) {
      const j = rows.findIndex((r) => r.createdAt === row.createdAt && r.id.startsWith(prefix))
      if (j > i) bad++
    }
  }
  return bad
}

/**
 * The order tests: a conversation in which every second holds several messages, compared on every
 * device with the order it was sent in.
 */
export function orderContract(
  name: string,
  env: HistoryEnv,
  relays: readonly ('arrival' | 'id')[] = ['arrival', 'id'],
): void {
  describe(`one order everywhere, over a real relay (${name})`, () => {
    for (const ties of relays) {
      const linkedOnly = ties === 'id'
      it(`same-second messages show in sending order on the sender, a second device of the sender, the other person, a fresh device and after a restart of each; ${ties === 'arrival' ? 'our relay (ties in arrival order)' : 'a relay answering ties by id, `previous` references respected'}`, async () => {
        const url = await env.relay(ties)
        const clock = new Clock()
        const start = clock.start
        const aliceKey = LocalSigner.generate()
        const bobKey = LocalSigner.generate()
        const open = async (store: string, key: LocalSigner) =>
          env.roost(await env.store(store), key, clock.now)
        const alice = await open('alice', aliceKey)
        const phone = await open('alice-phone', aliceKey)
        const bob = await open('bob', bobKey)
        const a = await alice.groups.create(url, { name: 'Same second' })
        await until(a, (s) => s.membership.status === 'member', 'alice a member')
        const ref = a.key.toString()
        const p = await phone.groups.join(ref)
        const b = await bob.groups.join(ref)
        await until(p, (s) => s.membership.status === 'member' && !s.loading, 'phone a member')
        await until(b, (s) => s.membership.status === 'member' && !s.loading, 'bob a member')

        // Each second holds several rounds: a question, a follow-up from the same person (nothing
        // links the two: on our relay their order is the order they arrived in), and the answer once
        // both were seen (its `previous` names them; the next question's names the answer). On a
        // relay answering ties by id only linked messages can agree, so there the rounds are
        // question and answer. 300 messages, in 25 seconds.
        const expected: string[] = []
        const rounds = linkedOnly ? 6 : 4
        for (let i = 0; i < 25; i++) {
          clock.set(start + i)
          for (let k = 0; k < rounds; k++) {
            const q = `q${i}.${k}`
            const said = linkedOnly ? [q] : [q, `${q}+`]
            for (const t of said) await a.sendMessage(t)
            await until(
              b,
              (s) => s.messages.some((m) => m.content === said.at(-1)),
              `bob sees ${said.at(-1)}`,
            )
            await b.sendMessage(`a${i}.${k}`)
            await until(a, (s) => s.messages.some((m) => m.content === `a${i}.${k}`), `alice sees a${i}.${k}`)
            expected.push(...said, `a${i}.${k}`)
          }
        }
        expect(expected.length).toBe(300)
        const secondOf = (t: string) => t.replace(/^[qa](\d+)\..*$/, '$1')
        const all = (g: Group) => until(g, (s) => s.messages.length === expected.length, 'every message')
        await all(p)
        await all(b)
        const report = (g: Group) => ({
          swapped: swappedPairs(texts(g), expected, secondOf),
          missing: expected.length - texts(g).length,
          previous: previousViolations(g),
        })
        // Every device's figures, asserted together at the end (so a failure shows them all).
        const reports: Record<string, ReturnType<typeof report>> = {
          sender: report(a),
          'sender, second device (live)': report(p),
          'other person (live)': report(b),
        }
        const shown: Record<string, string[]> = { sender: texts(a) }

        // A fresh device of Bob's pages the whole conversation in from the relay.
        clock.real()
        const fresh = await open('bob-fresh', bobKey)
        const f = await fresh.groups.join(ref)
        await until(f, (s) => !s.loading, 'the fresh device loaded')
        await scrollBack(f)
        reports['fresh device'] = report(f)
        shown['fresh device'] = texts(f)

        // Each device restarts from its store (the relay still up) and scrolls back to the start.
        for (const [store, key, before] of [
          ['alice', aliceKey, alice],
          ['alice-phone', aliceKey, phone],
          ['bob', bobKey, bob],
          ['bob-fresh', bobKey, fresh],
        ] as const) {
          await before.close()
          const again = await open(store, key)
          await again.groups.ready
          const g = again.groups.group(ref) as Group
          expect(g, `${store} holds the group after a restart`).toBeDefined()
          await until(g, (s) => !s.loading, `${store} loaded after a restart`)
          await scrollBack(g)
          reports[`${store} after a restart`] = report(g)
          shown[`${store} after a restart`] = texts(g)
        }
        const clean = Object.fromEntries(
          Object.keys(reports).map((k) => [k, { swapped: 0, missing: 0, previous: 0 }]),
        )
        expect(reports).toEqual(clean)
        for (const [device, list] of Object.entries(shown)) expect(list, device).toEqual(expected)
      }, 240_000)
    }
  })
}

/** The history tests: scrolling back reaches the first message, whatever lies below the oldest row. */
export function historyContract(name: string, env: HistoryEnv): void {
  describe(`history is whole, over a real relay (${name})`, () => {
    it('a fresh device scrolls back to the first message under 60 reactions to it, and a restart pages the rest in', async () => {
      const url = await env.relay('arrival')
      const clock = new Clock()
      const start = clock.start
      const aliceKey = LocalSigner.generate()
      const alice = env.roost(await env.store('alice'), aliceKey, clock.now)
      const a = await alice.groups.create(url, { name: 'Reactions' })
      await until(a, (s) => s.membership.status === 'member', 'alice a member')
      clock.set(start)
      const first = await a.sendMessage('first')
      for (let i = 0; i < 60; i++) {
        clock.set(start + 1 + Math.floor(i / 10))
        await a.react(first, `:r${i}:`)
      }
      for (let i = 1; i <= 110; i++) {
        clock.set(start + 7 + Math.floor(i / 10))
        await a.sendMessage(`m${i}`)
      }
      const expected = ['first', ...Array.from({ length: 110 }, (_, i) => `m${i + 1}`)]
      expect(texts(a)).toEqual(expected)

      clock.real()
      const bobKey = LocalSigner.generate()
      const bob = env.roost(await env.store('bob'), bobKey, clock.now)
      const b = await bob.groups.join(a.key.toString())
      await until(b, (s) => !s.loading && s.membership.status === 'member', 'bob a member')
      expect(b.snapshot().messages.length).toBeLessThan(expected.length) // the first page is 100 events
      await scrollBack(b)
      expect(b.snapshot().hasOlder).toBe(false)
      expect(texts(b)).toEqual(expected)
      const reactions = b.snapshot().messages[0]?.reactions ?? []
      expect(reactions.reduce((n, r) => n + r.count, 0)).toBe(60)

      // After a restart the store holds it all: scrolling back reaches the first message again.
      await bob.close()
      const again = env.roost(await env.store('bob'), bobKey, clock.now)
      await again.groups.ready
      const g = again.groups.group(a.key.toString()) as Group
      await until(g, (s) => !s.loading, 'bob again loaded')
      await scrollBack(g)
      expect(g.snapshot().hasOlder).toBe(false)
      expect(texts(g)).toEqual(expected)
    }, 120_000)

    it('scrolling back through crowded seconds reaches every message the cache and the relay hold, on the sender after a restart and on a fresh device', async () => {
      const url = await env.relay('arrival')
      const clock = new Clock()
      const start = clock.start
      const aliceKey = LocalSigner.generate()
      const alice = env.roost(await env.store('alice'), aliceKey, clock.now)
      const a = await alice.groups.create(url, { name: 'Crowded' })
      await until(a, (s) => s.membership.status === 'member', 'alice a member')
      // 238 messages, 60 to a second: more than a page (50) and more than the relay's first page (100)
      // in one second, so paging back has to step through seconds it holds part of.
      const expected: string[] = []
      for (let i = 0; i < 238; i++) {
        clock.set(start + Math.floor(i / 60))
        await a.sendMessage(`m${i}`)
        expected.push(`m${i}`)
      }
      expect(texts(a)).toEqual(expected)
      await alice.close()

      const again = env.roost(await env.store('alice'), aliceKey, clock.now)
      await again.groups.ready
      const g = again.groups.group(a.key.toString()) as Group
      await until(g, (s) => !s.loading, 'alice again loaded')
      await scrollBack(g)
      expect(g.snapshot().hasOlder).toBe(false)
      expect(texts(g).length, 'messages reachable by scrolling back after a restart').toBe(238)
      expect(texts(g)).toEqual(expected)

      clock.real()
      const bob = env.roost(await env.store('bob'), LocalSigner.generate(), clock.now)
      const b = await bob.groups.join(a.key.toString())
      await until(b, (s) => !s.loading && s.membership.status === 'member', 'bob a member')
      await scrollBack(b)
      expect(b.snapshot().hasOlder).toBe(false)
      expect(texts(b).length, 'messages reachable by scrolling back on a fresh device').toBe(238)
      expect(texts(b)).toEqual(expected)
    }, 120_000)
  })
}
