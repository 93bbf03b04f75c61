/**
 * The one EventStore contract suite, run against every implementation: MemoryEventStore and
 * SqliteEventStore in Node (store.test.ts), IndexedDbEventStore in Chromium
 * (store.browser.test.ts). A factory opens a fresh, empty store; `reopen`, when given, closes a
 * store and opens the same storage again (restart persistence).
 */
import fc from 'fast-check'
import { type NostrEvent, sortEvents, verifiedSymbol } from 'nostr-tools/core'
import { type Filter, matchFilter } from 'nostr-tools/filter'
import { finalizeEvent } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventStore, StoreQuery } from '../src/store'
import { InvalidQueryError, InvalidStoreEventError, InvalidValueError, StoreClosedError } from '../src/store'

export interface ContractOptions {
  /** Opens a fresh, empty store. */
  open(): Promise<EventStore>
  /** Closes `store` and opens the same storage again. */
  reopen?(store: EventStore): Promise<EventStore>
  /** fast-check runs for the query property (each run opens a store). */
  runs?: number
}

const RELAY = 'wss://groups.example.com'
const OTHER_RELAY = 'wss://other.example.com'
const FORK = `${RELAY}'general`
const FORK_ELSEWHERE = `${OTHER_RELAY}'general`

// Three fixed keys, so the suite is deterministic and runs the same in Node and Chromium.
const KEYS = [
  '0000000000000000000000000000000000000000000000000000000000000001',
  '0000000000000000000000000000000000000000000000000000000000000002',
  '0000000000000000000000000000000000000000000000000000000000000003',
].map((hex) => Uint8Array.from(hex.match(/../g) as string[], (b) => Number.parseInt(b, 16)))

function sign(
  kind: number,
  opts: { tags?: string[][]; content?: string; createdAt?: number; key?: number } = {},
): NostrEvent {
  const e = finalizeEvent(
    {
      kind,
      tags: opts.tags ?? [['h', 'general']],
      content: opts.content ?? `kind ${kind}`,
      created_at: opts.createdAt ?? 1_700_000_000,
    },
    KEYS[opts.key ?? 0] as Uint8Array,
  )
  return JSON.parse(JSON.stringify(e)) // as a relay delivers it: plain JSON, no brand
}

/** Two events with the same kind, author and created_at, ordered [lower id, higher id]. */
function tiePair(kind: number, tags: string[][], createdAt: number): [NostrEvent, NostrEvent] {
  const a = sign(kind, { tags, createdAt, content: 'a' })
  const b = sign(kind, { tags, createdAt, content: 'b' })
  return a.id < b.id ? [a, b] : [b, a]
}

const ids = (events: NostrEvent[]) => events.map((e) => e.id)
/** JSON copy without the brand symbols, to compare with what was signed. */
const plain = (e: unknown) => JSON.parse(JSON.stringify(e))

export function storeContract(name: string, opts: ContractOptions): void {
  describe(`${name} (EventStore contract)`, () => {
    const opened: EventStore[] = []
    async function fresh(): Promise<EventStore> {
      const store = await opts.open()
      opened.push(store)
      return store
    }
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close()
    })

    it('round-trips the group cache: sorted read-back, no duplicate on re-add, deleteFork clears', async () => {
      const store = await fresh()
      const chat = sign(9, { createdAt: 1_700_000_010, content: 'hello group' })
      const putUser = sign(9000, {
        tags: [
          ['h', 'general'],
          ['p', 'a'.repeat(64)],
        ],
        createdAt: 1_700_000_000,
      })
      expect(await store.add(putUser, FORK)).toBe(true)
      expect(await store.add(chat, FORK)).toBe(true)

      const back = await store.query({ fork: FORK })
      expect(ids(back)).toEqual([chat.id, putUser.id]) // newest first
      expect(back.map((e) => e.kind)).toEqual([9, 9000])
      expect(plain(back[0])).toEqual(chat)
      expect(back.every((e) => e[verifiedSymbol] === true)).toBe(true)
      // the partition a Group reads back: kind 9 renders, 9000 only folds membership
      expect(ids(await store.query({ fork: FORK, kinds: [1, 7, 9, 11, 1111] }))).toEqual([chat.id])
      expect(ids(await store.query({ fork: FORK, kinds: [9000, 9001] }))).toEqual([putUser.id])

      expect(await store.add(chat, FORK)).toBe(false)
      expect(await store.addMany([chat, putUser], FORK)).toBe(0)
      expect(await store.query({ fork: FORK })).toHaveLength(2)

      await store.deleteFork(FORK)
      expect(await store.query({ fork: FORK })).toEqual([])
      expect(await store.get(chat.id)).toBeUndefined()
      expect(await store.get(putUser.id)).toBeUndefined()
    })

    it('keeps an event seen in two forks until the last of them is deleted', async () => {
      const store = await fresh()
      const shared = sign(9, { content: 'seen on two relays' })
      const onlyHere = sign(9, { content: 'only on the first relay', createdAt: 1_700_000_001 })
      expect(await store.add(shared, FORK)).toBe(true)
      expect(await store.add(onlyHere, FORK)).toBe(true)
      expect(await store.add(shared, FORK_ELSEWHERE)).toBe(true) // new to this fork
      expect(ids(await store.query({ fork: FORK }))).toEqual([onlyHere.id, shared.id])
      expect(ids(await store.query({ fork: FORK_ELSEWHERE }))).toEqual([shared.id])
      expect(await store.query({})).toHaveLength(2) // stored once

      await store.deleteFork(FORK)
      expect(await store.query({ fork: FORK })).toEqual([])
      expect(ids(await store.query({ fork: FORK_ELSEWHERE }))).toEqual([shared.id])
      expect((await store.get(shared.id))?.id).toBe(shared.id)
      expect(await store.get(onlyHere.id)).toBeUndefined()

      await store.deleteFork(FORK_ELSEWHERE)
      expect(await store.get(shared.id)).toBeUndefined()
    })

    it('removeFromFork forgets events in one fork only, searchably gone, and counts what it removed', async () => {
      const store = await fresh()
      const shared = sign(9, { content: 'pizza on both relays' })
      const gone = sign(9, { content: 'pizza only here', createdAt: 1_700_000_001 })
      const kept = sign(9, { content: 'kept', createdAt: 1_700_000_002 })
      await store.addMany([shared, gone, kept], FORK)
      await store.add(shared, FORK_ELSEWHERE)
      expect(await store.removeFromFork(FORK, [shared.id, gone.id, gone.id, 'f'.repeat(64)])).toBe(2)
      expect(ids(await store.query({ fork: FORK }))).toEqual([kept.id])
      expect(ids(await store.query({ fork: FORK_ELSEWHERE }))).toEqual([shared.id])
      expect(await store.get(gone.id)).toBeUndefined()
      expect(ids(await store.search({ text: 'pizza' }))).toEqual([shared.id])
      expect(await store.removeFromFork(FORK, [gone.id])).toBe(0)
      // Seen again later, it comes back as new to the fork.
      expect(await store.add(gone, FORK)).toBe(true)
      expect(ids(await store.query({ fork: FORK }))).toEqual([kept.id, gone.id])
      await expect(store.removeFromFork('', [kept.id])).rejects.toBeInstanceOf(InvalidQueryError)
    })

    it('keeps an event added without a fork when a fork that also had it is deleted', async () => {
      const store = await fresh()
      const e = sign(1, { tags: [] })
      await store.add(e)
      await store.add(e, FORK)
      await store.deleteFork(FORK)
      expect((await store.get(e.id))?.id).toBe(e.id)
      expect(await store.query({ fork: FORK })).toEqual([])
    })

    it('keeps state newest per (relay, kind, d) with the lowest id winning a tie', async () => {
      const store = await fresh()
      const old = sign(39000, {
        tags: [
          ['d', 'general'],
          ['name', 'Old'],
        ],
        createdAt: 100,
      })
      const current = sign(39000, {
        tags: [
          ['d', 'general'],
          ['name', 'New'],
        ],
        createdAt: 200,
      })
      expect(await store.putState(RELAY, current)).toBe(true)
      expect(await store.putState(RELAY, old)).toBe(false)
      expect(await store.putState(RELAY, current)).toBe(false)
      expect((await store.getState(RELAY, 39000, 'general'))?.id).toBe(current.id)

      const [low, high] = tiePair(39001, [['d', 'general']], 300)
      expect(await store.putState(RELAY, high)).toBe(true)
      expect(await store.putState(RELAY, low)).toBe(true)
      expect(await store.putState(RELAY, high)).toBe(false)
      expect((await store.getState(RELAY, 39001, 'general'))?.id).toBe(low.id)
      expect((await store.getState(RELAY, 39001, 'general'))?.[verifiedSymbol]).toBe(true)

      expect(await store.getState(RELAY, 39002, 'general')).toBeUndefined()
      expect(await store.getState(OTHER_RELAY, 39000, 'general')).toBeUndefined()
      expect(await store.getState(RELAY, 39000, 'other')).toBeUndefined()
    })

    it('statePerFork gives every group’s stored state at once, as getState would, in kind order', async () => {
      const store = await fresh()
      const members = sign(39002, { tags: [['d', 'general']], createdAt: 300 })
      const old = sign(39000, { tags: [['d', 'general']], createdAt: 100, content: 'old' })
      const meta = sign(39000, { tags: [['d', 'general']], createdAt: 200 })
      const admins = sign(39001, { tags: [['d', 'general']] })
      const random = sign(39000, { tags: [['d', 'random']] })
      for (const e of [members, old, meta, admins]) await store.putState(RELAY, e)
      await store.putState(RELAY, random)
      await store.putState(OTHER_RELAY, meta)
      const quiet = `${RELAY}'quiet`
      const state = await store.statePerFork([FORK, `${RELAY}'random`, FORK_ELSEWHERE, quiet, FORK])
      expect([...state.keys()].sort()).toEqual([FORK, `${RELAY}'random`, FORK_ELSEWHERE, quiet].sort())
      expect(ids(state.get(FORK) as NostrEvent[])).toEqual([meta.id, admins.id, members.id])
      expect(ids(state.get(`${RELAY}'random`) as NostrEvent[])).toEqual([random.id])
      expect(ids(state.get(FORK_ELSEWHERE) as NostrEvent[])).toEqual([meta.id])
      expect(state.get(quiet)).toEqual([])
      expect(plain(state.get(FORK)?.[0])).toEqual(meta)
      expect(state.get(FORK)?.every((e) => e[verifiedSymbol] === true)).toBe(true)
      await store.deleteFork(FORK)
      expect((await store.statePerFork([FORK])).get(FORK)).toEqual([])
      expect((await store.statePerFork([])).size).toBe(0)
      await expect(store.statePerFork([''])).rejects.toBeInstanceOf(InvalidQueryError)
      await expect(store.statePerFork(FORK as unknown as string[])).rejects.toBeInstanceOf(InvalidQueryError)
    })

    it('deletes a fork’s state events and nothing else', async () => {
      const store = await fresh()
      const meta = sign(39000, { tags: [['d', 'general']] })
      const otherGroup = sign(39000, { tags: [['d', 'random']] })
      await store.putState(RELAY, meta)
      await store.putState(RELAY, otherGroup)
      await store.putState(OTHER_RELAY, meta) // same id, same event, another relay: another group
      await store.deleteFork(FORK)
      expect(await store.getState(RELAY, 39000, 'general')).toBeUndefined()
      expect((await store.getState(RELAY, 39000, 'random'))?.id).toBe(otherGroup.id)
      expect((await store.getState(OTHER_RELAY, 39000, 'general'))?.id).toBe(meta.id)
    })

    it('keeps the newest fork-less replaceable event per (kind, pubkey)', async () => {
      const store = await fresh()
      const v1 = sign(10009, { tags: [['group', 'a', RELAY]], createdAt: 100 })
      const v2 = sign(10009, { tags: [['group', 'b', RELAY]], createdAt: 200 })
      const otherAuthor = sign(10009, { tags: [], createdAt: 50, key: 1 })
      expect(await store.add(v1)).toBe(true)
      expect(await store.add(v2)).toBe(true)
      expect(await store.add(v1)).toBe(false) // older: ignored
      expect(await store.add(otherAuthor)).toBe(true)
      expect(ids(await store.query({ kinds: [10009] }))).toEqual([v2.id, otherAuthor.id])
      expect(await store.get(v1.id)).toBeUndefined()

      const [low, high] = tiePair(0, [], 300)
      expect(await store.add(high)).toBe(true)
      expect(await store.add(low)).toBe(true)
      expect(await store.add(high)).toBe(false)
      expect(ids(await store.query({ kinds: [0] }))).toEqual([low.id])
    })

    it('keeps the newest fork-less addressable event per (kind, pubkey, d)', async () => {
      const store = await fresh()
      const slotA1 = sign(30078, { tags: [['d', 'read-state:a']], createdAt: 100 })
      const slotA2 = sign(30078, { tags: [['d', 'read-state:a']], createdAt: 101 })
      const slotB = sign(30078, { tags: [['d', 'read-state:b']], createdAt: 100 })
      await store.add(slotA1)
      await store.add(slotB)
      expect(await store.add(slotA2)).toBe(true)
      expect(ids(await store.query({ kinds: [30078] }))).toEqual([slotA2.id, slotB.id])
      expect(await store.add(slotA1)).toBe(false)
    })

    it('keeps every replaceable version seen in a fork (history is not replaced)', async () => {
      const store = await fresh()
      const v1 = sign(10009, { tags: [['h', 'general']], createdAt: 100 })
      const v2 = sign(10009, { tags: [['h', 'general']], createdAt: 200 })
      await store.add(v1, FORK)
      await store.add(v2, FORK)
      expect(ids(await store.query({ fork: FORK }))).toEqual([v2.id, v1.id])
    })

    it('answers kinds, authors, ids, tags, since, until and limit, newest first with id tie-break', async () => {
      const store = await fresh()
      const [tieLow, tieHigh] = tiePair(9, [['h', 'general']], 500)
      const reply = sign(9, {
        tags: [
          ['h', 'general'],
          ['e', tieLow.id],
        ],
        createdAt: 400,
        key: 1,
      })
      const reaction = sign(7, {
        tags: [
          ['h', 'general'],
          ['e', tieLow.id],
          ['p', 'b'.repeat(64)],
        ],
        createdAt: 450,
      })
      const elsewhere = sign(9, { tags: [['h', 'random']], createdAt: 600, key: 2 })
      await store.addMany([tieHigh, reply, elsewhere, tieLow, reaction], FORK)

      expect(ids(await store.query({}))).toEqual([elsewhere.id, tieLow.id, tieHigh.id, reaction.id, reply.id])
      expect(ids(await store.query({ tags: { h: ['general'] }, limit: 2 }))).toEqual([tieLow.id, tieHigh.id])
      expect(ids(await store.query({ kinds: [7] }))).toEqual([reaction.id])
      expect(ids(await store.query({ authors: [reply.pubkey] }))).toEqual([reply.id])
      expect(ids(await store.query({ ids: [reply.id, elsewhere.id, 'f'.repeat(64)] }))).toEqual([
        elsewhere.id,
        reply.id,
      ])
      expect(ids(await store.query({ tags: { e: [tieLow.id] } }))).toEqual([reaction.id, reply.id])
      expect(ids(await store.query({ tags: { e: [tieLow.id], p: ['b'.repeat(64)] } }))).toEqual([reaction.id])
      expect(ids(await store.query({ tags: { h: ['general', 'random'] }, kinds: [9] }))).toEqual([
        elsewhere.id,
        tieLow.id,
        tieHigh.id,
        reply.id,
      ])
      expect(ids(await store.query({ since: 450, until: 500 }))).toEqual([tieLow.id, tieHigh.id, reaction.id])
      expect(ids(await store.query({ fork: FORK, until: 449, tags: { h: ['general'] } }))).toEqual([reply.id])
      expect(await store.query({ limit: 0 })).toEqual([])
      expect(await store.query({ kinds: [] })).toEqual([])
      expect(await store.query({ tags: { h: [] } })).toEqual([])
      expect(await store.query({ fork: FORK_ELSEWHERE })).toEqual([])
    })

    it('returns clean, branded copies (extra fields are not stored)', async () => {
      const store = await fresh()
      const original = sign(9)
      const e = { ...original, seenOn: ['wss://x'] } as NostrEvent
      await store.add(e, FORK)
      const back = await store.get(e.id)
      expect(plain(back)).toEqual(original)
      expect(back?.[verifiedSymbol]).toBe(true)
      expect(Object.keys(back ?? {}).sort()).toEqual([
        'content',
        'created_at',
        'id',
        'kind',
        'pubkey',
        'sig',
        'tags',
      ])
    })

    it('refuses bad queries and bad events with typed errors', async () => {
      const store = await fresh()
      await expect(store.query({ tags: { previous: ['abcd1234'] } })).rejects.toBeInstanceOf(
        InvalidQueryError,
      )
      await expect(store.query({ limit: -1 })).rejects.toBeInstanceOf(InvalidQueryError)
      await expect(store.query({ limit: 1.5 })).rejects.toBeInstanceOf(InvalidQueryError)
      await expect(store.query({ kinds: ['9'] as unknown as number[] })).rejects.toBeInstanceOf(
        InvalidQueryError,
      )
      await expect(store.query({ since: Number.NaN })).rejects.toBeInstanceOf(InvalidQueryError)
      await expect(store.deleteFork('')).rejects.toBeInstanceOf(InvalidQueryError)
      const bad = { ...sign(9), id: 'nope' }
      await expect(store.add(bad, FORK)).rejects.toBeInstanceOf(InvalidStoreEventError)
      await expect(store.putState(RELAY, { ...bad, kind: 39000 })).rejects.toBeInstanceOf(
        InvalidStoreEventError,
      )
      // addMany is all or nothing
      const good = sign(9, { content: 'good' })
      await expect(store.addMany([good, bad], FORK)).rejects.toBeInstanceOf(InvalidStoreEventError)
      expect(await store.get(good.id)).toBeUndefined()
    })

    it('newestPerFork reads every group’s first page at once, and refuses bad input', async () => {
      const store = await fresh()
      const events = Array.from({ length: 6 }, (_, i) =>
        sign(9, { createdAt: 1_700_000_000 + i, content: `m${i}` }),
      )
      await store.addMany(events, FORK)
      await store.add(events[0] as NostrEvent, FORK_ELSEWHERE)
      const pages = await store.newestPerFork([FORK, FORK_ELSEWHERE, `${RELAY}'quiet`], 4)
      expect(ids(pages.get(FORK) as NostrEvent[])).toEqual(ids(events.slice(2).reverse()))
      expect(ids(pages.get(FORK_ELSEWHERE) as NostrEvent[])).toEqual([events[0]?.id])
      expect(pages.get(`${RELAY}'quiet`)).toEqual([])
      expect(plain(pages.get(FORK)?.[0])).toEqual(events[5])
      expect((await store.newestPerFork([FORK], 0)).get(FORK)).toEqual([])
      expect((await store.newestPerFork([], 50)).size).toBe(0)
      await expect(store.newestPerFork([FORK], -1)).rejects.toBeInstanceOf(InvalidQueryError)
      await expect(store.newestPerFork([FORK], 1.5)).rejects.toBeInstanceOf(InvalidQueryError)
      await expect(store.newestPerFork([''], 1)).rejects.toBeInstanceOf(InvalidQueryError)
      await expect(store.newestPerFork([7 as unknown as string], 1)).rejects.toBeInstanceOf(InvalidQueryError)
      await expect(store.newestPerFork(FORK as unknown as string[], 1)).rejects.toBeInstanceOf(
        InvalidQueryError,
      )
    })

    it('adds many in one call, counting each change once', async () => {
      const store = await fresh()
      const events = Array.from({ length: 20 }, (_, i) => sign(9, { content: `m${i}`, createdAt: 1000 + i }))
      expect(await store.addMany([...events, ...events.slice(0, 5)], FORK)).toBe(20)
      expect(await store.addMany(events, FORK_ELSEWHERE)).toBe(20)
      expect(await store.addMany([], FORK)).toBe(0)
      expect(ids(await store.query({ fork: FORK, limit: 3 }))).toEqual(ids(events.slice(-3).reverse()))
    })

    it('stores JSON settings; undefined deletes; unserializable values are refused', async () => {
      const store = await fresh()
      expect(await store.getValue('read-state:client-id')).toBeUndefined()
      await store.setValue('read-state:client-id', 'c0ffee')
      await store.setValue('marks', { [FORK]: 1_700_000_000, nested: [1, 'two', null] })
      expect(await store.getValue('read-state:client-id')).toBe('c0ffee')
      const marks = await store.getValue<Record<string, unknown>>('marks')
      expect(marks).toEqual({ [FORK]: 1_700_000_000, nested: [1, 'two', null] })
      if (marks) marks.nested = 'mutated'
      expect((await store.getValue<Record<string, unknown>>('marks'))?.nested).toEqual([1, 'two', null])
      await store.setValue('marks', undefined)
      expect(await store.getValue('marks')).toBeUndefined()
      await expect(store.setValue('bad', 10n)).rejects.toBeInstanceOf(InvalidValueError)
      await expect(store.setValue('bad', () => 1)).rejects.toBeInstanceOf(InvalidValueError)
    })

    it('refuses calls after close', async () => {
      const store = await opts.open()
      await store.close()
      await expect(store.get('a'.repeat(64))).rejects.toBeInstanceOf(StoreClosedError)
      await expect(store.add(sign(9), FORK)).rejects.toBeInstanceOf(StoreClosedError)
    })

    it('orders a fork’s ties within one second by arrival, latest first, and keeps that order across a restart (decision 12)', async () => {
      const store = await opts.open()
      const opened = [store]
      try {
        // 30 messages of one second, arriving in an order unrelated to their ids, some in one batch
        const second = sign(9, { content: 'x', createdAt: 1_700_000_100 }).created_at
        const events = Array.from({ length: 30 }, (_, i) => sign(9, { content: `m${i}`, createdAt: second }))
        for (const e of events.slice(0, 10)) await store.add(e, FORK)
        await store.addMany(events.slice(10, 20), FORK)
        for (const e of events.slice(20)) await store.add(e, FORK)
        await store.add(events[5]!, FORK_ELSEWHERE) // a later arrival in another fork changes nothing here
        const expected = ids([...events].reverse())
        expect(ids(await store.query({ fork: FORK }))).toEqual(expected)
        expect(ids(await store.query({ fork: FORK, kinds: [9], tags: { h: ['general'] } }))).toEqual(expected)
        expect(ids((await store.newestPerFork([FORK], 12)).get(FORK)!)).toEqual(expected.slice(0, 12))
        expect(ids(await store.query({ fork: FORK, limit: 7 }))).toEqual(expected.slice(0, 7))
        if (opts.reopen) {
          const again = await opts.reopen(store)
          opened.push(again)
          expect(ids(await again.query({ fork: FORK }))).toEqual(expected)
          // and arrivals after the restart come after the ones before it
          const late = sign(9, { content: 'late', createdAt: second })
          await again.add(late, FORK)
          expect(ids(await again.query({ fork: FORK, limit: 2 }))).toEqual([late.id, expected[0]])
        }
      } finally {
        for (const s of opened) await s.close().catch(() => {})
      }
    })

    it('numbers a page of older history below what the fork holds, in page order; an event held keeps its number, across a restart (decision 21)', async () => {
      const store = await opts.open()
      const opened = [store]
      try {
        // One second of 12 events, e0 the first to reach the relay. This device saw e7…e11 live; two
        // pages of history (newest first, as a relay answers) bring the rest, each beginning with
        // events it holds; a page of an older second follows.
        const second = 1_700_000_200
        const e = Array.from({ length: 12 }, (_, i) => sign(9, { content: `e${i}`, createdAt: second }))
        const before = sign(9, { content: 'before', createdAt: second - 1 })
        for (const x of e.slice(7)) await store.add(x, FORK)
        expect(await store.addMany([e[8]!, e[7]!, e[6]!, e[5]!, e[4]!], FORK, { older: true })).toBe(3)
        expect(await store.addMany([e[4]!, e[3]!, e[2]!, e[1]!, e[0]!, before], FORK, { older: true })).toBe(
          5,
        )
        await store.add(e[3]!, FORK) // delivered again live: keeps its number
        await store.addMany([e[2]!], FORK_ELSEWHERE, { older: true }) // another fork changes nothing here
        const expected = ids([...e].reverse().concat(before))
        expect(ids(await store.query({ fork: FORK }))).toEqual(expected)
        expect(ids(await store.query({ fork: FORK, until: second, limit: 4 }))).toEqual(expected.slice(0, 4))
        expect(ids(await store.query({ fork: FORK, kinds: [9], tags: { h: ['general'] } }))).toEqual(expected)
        expect(ids((await store.newestPerFork([FORK], 9)).get(FORK)!)).toEqual(expected.slice(0, 9))
        if (opts.reopen) {
          const again = await opts.reopen(store)
          opened.push(again)
          expect(ids(await again.query({ fork: FORK }))).toEqual(expected)
          // after a restart a live arrival still comes last and a page of history still first
          const late = sign(9, { content: 'late', createdAt: second })
          const early = sign(9, { content: 'early', createdAt: second })
          await again.add(late, FORK)
          await again.addMany([early], FORK, { older: true })
          expect(ids(await again.query({ fork: FORK, until: second }))).toEqual([
            late.id,
            ...expected.slice(0, 12),
            early.id,
            before.id,
          ])
        }
      } finally {
        for (const s of opened) await s.close().catch(() => {})
      }
    })

    if (opts.reopen) {
      const reopen = opts.reopen
      it('keeps events, forks, state and settings across a restart', async () => {
        const store = await opts.open()
        const chat = sign(9, { content: 'persisted' })
        const shared = sign(9, { content: 'in two forks', createdAt: 1_700_000_001 })
        const meta = sign(39000, {
          tags: [
            ['d', 'general'],
            ['name', 'General'],
          ],
        })
        const list = sign(10009, { tags: [['group', 'general', RELAY]] })
        await store.add(chat, FORK)
        await store.addMany([shared], FORK)
        await store.add(shared, FORK_ELSEWHERE)
        await store.add(list)
        await store.putState(RELAY, meta)
        await store.setValue('slot', 'abc')

        const again = await reopen(store)
        opened.push(again)
        expect(ids(await again.query({ fork: FORK }))).toEqual([shared.id, chat.id])
        expect((await again.getState(RELAY, 39000, 'general'))?.id).toBe(meta.id)
        expect(await again.getValue('slot')).toBe('abc')
        expect(await again.add(chat, FORK)).toBe(false)
        const older = sign(10009, { tags: [], createdAt: 1 })
        expect(await again.add(older)).toBe(false) // replaceable bookkeeping survived too
        await again.deleteFork(FORK)
        expect(await again.get(chat.id)).toBeUndefined()
        expect((await again.get(shared.id))?.id).toBe(shared.id)
      })
    }

    describe('follows the decision-8 model under random adds and deletes (property)', () => {
      // Regular, replaceable and addressable events, with created_at ties, from two authors.
      const pool: NostrEvent[] = []
      for (let i = 0; i < 24; i++) {
        const kind = [9, 10009, 30078, 0][i % 4] as number
        const tags = kind === 30078 ? [['d', `slot-${i % 3}`]] : [['h', 'general']]
        pool.push(sign(kind, { tags, createdAt: 100 + (i % 5), key: i % 2, content: `v${i}` }))
      }
      const forkArb = fc.constantFrom<string | undefined>(FORK, FORK_ELSEWHERE, undefined)
      const opArb = fc.oneof(
        fc.record({
          op: fc.constant('add' as const),
          i: fc.nat(pool.length - 1),
          fork: forkArb,
          older: fc.boolean(), // as one of a page of older history
        }),
        fc.record({ op: fc.constant('delete' as const), fork: fc.constantFrom(FORK, FORK_ELSEWHERE) }),
      )

      it('matches a plain model of memberships and replacement', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
            const store = await opts.open()
            try {
              const model = new Map<string, Set<string>>() // id → forks ('' = no fork)
              const arrival = new Map<string, number>() // fork + id → arrival sequence (decision 21)
              let seq = 0
              let low = 0 // pages of older history count down, below every arrival
              const slotOf = (e: NostrEvent) =>
                e.kind === 9 ? undefined : `${e.kind}:${e.pubkey}:${e.kind === 30078 ? e.tags[0]?.[1] : ''}`
              for (const o of ops) {
                if (o.op === 'delete') {
                  await store.deleteFork(o.fork)
                  for (const [id, forks] of model) {
                    forks.delete(o.fork)
                    arrival.delete(`${o.fork} ${id}`)
                    if (forks.size === 0) model.delete(id)
                  }
                  continue
                }
                const e = pool[o.i] as NostrEvent
                const fork = o.fork ?? ''
                let expected = !model.get(e.id)?.has(fork)
                const slot = slotOf(e)
                if (fork === '' && slot !== undefined && expected) {
                  const rival = pool.find(
                    (p) => p.id !== e.id && slotOf(p) === slot && model.get(p.id)?.has(''),
                  )
                  if (rival) {
                    const newer =
                      e.created_at > rival.created_at ||
                      (e.created_at === rival.created_at && e.id < rival.id)
                    if (!newer) expected = false
                    else {
                      const forks = model.get(rival.id) as Set<string>
                      forks.delete('')
                      if (forks.size === 0) model.delete(rival.id)
                    }
                  }
                }
                if (expected) {
                  model.set(e.id, (model.get(e.id) ?? new Set()).add(fork))
                  arrival.set(`${fork} ${e.id}`, o.older ? --low : ++seq)
                }
                if (o.older) expect(await store.addMany([e], o.fork, { older: true })).toBe(expected ? 1 : 0)
                else expect(await store.add(e, o.fork)).toBe(expected)
              }
              const all = sortEvents(pool.filter((e) => model.has(e.id)))
              expect(ids(await store.query({}))).toEqual(ids(all))
              for (const fork of [FORK, FORK_ELSEWHERE]) {
                const inFork = byArrival(
                  all.filter((e) => model.get(e.id)?.has(fork)),
                  (e) => arrival.get(`${fork} ${e.id}`) ?? 0,
                )
                expect(ids(await store.query({ fork }))).toEqual(ids(inFork))
              }
              for (const e of pool)
                expect((await store.get(e.id))?.id).toBe(model.has(e.id) ? e.id : undefined)
            } finally {
              await store.close()
            }
          }),
          { numRuns: opts.runs ?? 60 },
        )
      })
    })

    describe('matches nostr-tools matchFilter + sort + limit (property)', () => {
      // A pool of real signed events with few distinct values, so queries hit, miss and tie.
      const pool: NostrEvent[] = []
      const tagValues = ['general', 'random', 'x']
      for (let i = 0; i < 48; i++) {
        const tags: string[][] = [['h', tagValues[i % 3] as string]]
        if (i % 4 === 0) tags.push(['p', (i % 8 === 0 ? 'a' : 'b').repeat(64)])
        if (i % 5 === 0) tags.push(['t', 'nostr'], ['previous', 'abcd1234'])
        if (i % 7 === 0) tags.push(['h', 'x'])
        pool.push(
          sign([1, 7, 9, 11, 1111, 9000][i % 6] as number, {
            tags,
            createdAt: 1000 + (i % 10), // many ties on created_at
            key: i % 3,
            content: `event ${i}`,
          }),
        )
      }
      const forks = [FORK, FORK_ELSEWHERE, undefined]
      const pubkeys = [...new Set(pool.map((e) => e.pubkey))]

      const queryArb: fc.Arbitrary<StoreQuery> = fc.record(
        {
          fork: fc.constantFrom(FORK, FORK_ELSEWHERE),
          ids: fc.subarray(pool.map((e) => e.id)),
          kinds: fc.subarray([1, 7, 9, 11, 1111, 9000, 5]),
          authors: fc.subarray(pubkeys),
          tags: fc.record(
            {
              h: fc.subarray(tagValues),
              p: fc.subarray(['a'.repeat(64), 'b'.repeat(64)]),
              t: fc.subarray(['nostr', 'other']),
            },
            { requiredKeys: [] },
          ),
          since: fc.integer({ min: 999, max: 1010 }),
          until: fc.integer({ min: 999, max: 1010 }),
          limit: fc.integer({ min: 0, max: 50 }),
        },
        { requiredKeys: [] },
      )

      function toFilter(q: StoreQuery): Filter {
        const f: Filter = {}
        if (q.ids) f.ids = q.ids
        if (q.kinds) f.kinds = q.kinds
        if (q.authors) f.authors = q.authors
        for (const [k, v] of Object.entries(q.tags ?? {})) f[`#${k}`] = v
        if (q.since !== undefined) f.since = q.since
        if (q.until !== undefined) f.until = q.until
        return f
      }

      it('for random adds across forks and random queries', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.tuple(fc.nat(pool.length - 1), fc.constantFrom(...forks)), { maxLength: 60 }),
            fc.array(queryArb, { minLength: 1, maxLength: 4 }),
            async (adds, queries) => {
              const store = await opts.open()
              try {
                const model = new Map<string, Set<string | undefined>>() // id → forks
                // fork + id → the order of its first arrival in that fork (decision 12)
                const arrival = new Map<string, number>()
                const arrive = (e: NostrEvent, fork: string | undefined) => {
                  const k = `${fork} ${e.id}`
                  if (!arrival.has(k)) arrival.set(k, arrival.size)
                }
                const batch = adds.filter((_, i) => i % 2 === 0)
                for (const [i, fork] of adds.filter((_, i) => i % 2 === 1)) {
                  await store.add(pool[i] as NostrEvent, fork)
                  arrive(pool[i] as NostrEvent, fork)
                }
                const byFork = new Map<string | undefined, NostrEvent[]>()
                for (const [i, fork] of batch)
                  byFork.set(fork, [...(byFork.get(fork) ?? []), pool[i] as NostrEvent])
                for (const [fork, events] of byFork) {
                  await store.addMany(events, fork)
                  for (const e of events) arrive(e, fork)
                }
                for (const [i, fork] of adds) {
                  const id = (pool[i] as NostrEvent).id
                  model.set(id, (model.get(id) ?? new Set()).add(fork))
                }
                for (const q of queries) {
                  const inScope = pool.filter((e) => {
                    const seen = model.get(e.id)
                    return seen !== undefined && (q.fork === undefined || seen.has(q.fork))
                  })
                  const hits = inScope.filter((e) => matchFilter(toFilter(q), e))
                  const expected =
                    q.fork === undefined
                      ? sortEvents(hits)
                      : byArrival(hits, (e) => arrival.get(`${q.fork} ${e.id}`) ?? -1)
                  const limited = q.limit === undefined ? expected : expected.slice(0, q.limit)
                  expect(ids(await store.query(q))).toEqual(ids(limited))
                }
              } finally {
                await store.close()
              }
            },
          ),
          { numRuns: opts.runs ?? 60 },
        )
      })

      it('newestPerFork gives each fork the page query({ fork, limit }) gives, ties included', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.tuple(fc.nat(pool.length - 1), fc.constantFrom(...forks)), { maxLength: 60 }),
            fc.integer({ min: 0, max: 20 }),
            async (adds, limit) => {
              const store = await opts.open()
              try {
                for (const [i, fork] of adds) await store.add(pool[i] as NostrEvent, fork)
                const asked = [FORK, FORK_ELSEWHERE, `${RELAY}'empty`, FORK]
                const pages = await store.newestPerFork(asked, limit)
                expect([...pages.keys()].sort()).toEqual([...new Set(asked)].sort())
                for (const fork of new Set(asked)) {
                  const page = pages.get(fork) as NostrEvent[]
                  const first = (e: NostrEvent) =>
                    adds.findIndex(([i, f]) => f === fork && pool[i]?.id === e.id)
                  const inFork = byArrival(
                    pool.filter((e) => first(e) >= 0),
                    first,
                  ).slice(0, limit)
                  expect(ids(page)).toEqual(ids(inFork))
                  expect(ids(page)).toEqual(ids(await store.query({ fork, limit })))
                  expect(page.every((e) => e[verifiedSymbol] === true)).toBe(true)
                }
              } finally {
                await store.close()
              }
            },
          ),
          { numRuns: opts.runs ?? 60 },
        )
      })
    })
  })
}

/** A fork's query order (decision 12): newest first, ties by arrival (latest first), then id. */
function byArrival(events: NostrEvent[], arrival: (e: NostrEvent) => number): NostrEvent[] {
  return [...events].sort(
    (a, b) =>
      b.created_at - a.created_at || arrival(b) - arrival(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  )
}
