/**
 * The search part of the EventStore contract, run against every implementation: MemoryEventStore
 * (a scan) and SqliteEventStore (FTS5) in Node (store.test.ts), IndexedDbEventStore (its word
 * index) in Chromium (store.browser.test.ts). All must return exactly what the reference rule
 * (`contentMatches` of `@roost/nip29`) selects, in query order.
 */
import { contentMatches, searchTerms } from '@roost/nip29'
import fc from 'fast-check'
import { type NostrEvent, verifiedSymbol } from 'nostr-tools/core'
import { finalizeEvent } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import { type EventStore, InvalidQueryError } from '../src/store'
import type { ContractOptions } from './store-contract'

const A = "wss://groups.example.com'general"
const B = "wss://groups.example.com'random"
const KEY = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 7 : 0))

function msg(content: string, createdAt: number, kind = 9): NostrEvent {
  const e = finalizeEvent({ kind, tags: [['h', 'general']], content, created_at: createdAt }, KEY)
  return JSON.parse(JSON.stringify(e))
}

const contents = (events: NostrEvent[]) => events.map((e) => e.content)
const newestFirst = (a: NostrEvent, b: NostrEvent) =>
  b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export function storeSearchContract(name: string, opts: ContractOptions): void {
  describe(`${name} (search contract)`, () => {
    const opened: EventStore[] = []
    async function fresh(): Promise<EventStore> {
      const store = await opts.open()
      opened.push(store)
      return store
    }
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close()
    })

    it('finds every word as a word prefix, any case, diacritics folded, newest first, scoped and paged', async () => {
      const store = await fresh()
      await store.addMany(
        [
          msg('Pizza tonight at eight', 10),
          msg('who brings the salad?', 11),
          msg('PIZZA or pasta, tonight', 12),
          msg('Crème brûlée for dessert', 13),
          msg('pizza thread', 14, 11),
        ],
        A,
      )
      await store.add(msg('pizzeria in random', 15), B)
      expect(contents(await store.search({ text: 'pizz' }))).toEqual([
        'pizzeria in random',
        'pizza thread',
        'PIZZA or pasta, tonight',
        'Pizza tonight at eight',
      ])
      expect(contents(await store.search({ text: 'pizza', forks: [A], kinds: [9] }))).toEqual([
        'PIZZA or pasta, tonight',
        'Pizza tonight at eight',
      ])
      expect(contents(await store.search({ text: 'piz', forks: [B] }))).toEqual(['pizzeria in random'])
      expect(contents(await store.search({ text: 'Pizza TONIGHT', limit: 1 }))).toEqual([
        'PIZZA or pasta, tonight',
      ])
      expect(contents(await store.search({ text: 'pizza', until: 12, kinds: [9] }))).toEqual([
        'PIZZA or pasta, tonight',
        'Pizza tonight at eight',
      ])
      expect(contents(await store.search({ text: 'creme BRU' }))).toEqual(['Crème brûlée for dessert'])
      expect(await store.search({ text: 'sushi' })).toEqual([])
      expect(await store.search({ text: ' ?! ' })).toEqual([])
      expect(await store.search({ text: 'pizza', limit: 0 })).toEqual([])
      expect(await store.search({ text: 'pizza', forks: [] })).toEqual([])
      const [hit] = await store.search({ text: 'salad' })
      expect(hit?.[verifiedSymbol]).toBe(true)
    })

    it('finds an event seen in two forks once, and forgets what deleteFork drops', async () => {
      const store = await fresh()
      const both = msg('shared announcement', 20)
      await store.add(both, A)
      await store.add(both, B)
      await store.add(msg('only general announcement', 21), A)
      expect((await store.search({ text: 'announcement' })).map((e) => e.id)).toHaveLength(2)
      await store.deleteFork(A)
      expect(contents(await store.search({ text: 'announcement' }))).toEqual(['shared announcement'])
      await store.deleteFork(B)
      expect(await store.search({ text: 'announcement' })).toEqual([])
    })

    it('refuses bad searches with typed errors', async () => {
      const store = await fresh()
      const bad = [
        { text: 42 },
        { text: 'x'.repeat(257) },
        { text: 'a', forks: 'general' },
        { text: 'a', forks: [''] },
        { text: 'a', kinds: ['9'] },
        { text: 'a', limit: -1 },
        { text: 'a', until: 1.5 },
        null,
      ]
      for (const q of bad) await expect(store.search(q as never)).rejects.toBeInstanceOf(InvalidQueryError)
    })

    if (opts.reopen) {
      const reopen = opts.reopen
      it('keeps its index across a restart', async () => {
        const store = await opts.open()
        await store.add(msg('remember the milk', 30), A)
        const again = await reopen(store)
        opened.push(again)
        expect(contents(await again.search({ text: 'milk', forks: [A] }))).toEqual(['remember the milk'])
      })
    }

    it('returns exactly the reference rule’s events for any cache and query', async () => {
      const words = ['apple', 'Apricot', 'banana', 'bänd', 'cherry', 'ch', 'x1', 'Ünïcode']
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              words: fc.array(fc.constantFrom(...words), { maxLength: 4 }),
              at: fc.integer({ min: 1, max: 6 }),
              kind: fc.constantFrom(9, 11),
              fork: fc.constantFrom(A, B),
            }),
            { maxLength: 20 },
          ),
          fc.array(fc.constantFrom('ap', 'APPLE', 'ban', 'band', 'ch', 'cherry', 'x', 'unic', 'zzz'), {
            minLength: 1,
            maxLength: 3,
          }),
          fc.record(
            {
              forks: fc.constantFrom<string[]>([A], [B], [A, B]),
              kinds: fc.constantFrom<number[]>([9], [11]),
              until: fc.integer({ min: 1, max: 6 }),
              limit: fc.integer({ min: 1, max: 8 }),
            },
            { requiredKeys: [] },
          ),
          async (raw, query, scope) => {
            const store = await opts.open()
            try {
              const seen = new Map<string, { e: NostrEvent; forks: Set<string> }>()
              for (const [i, r] of raw.entries()) {
                const e = msg(`${r.words.join(' ')} #${i}`, r.at, r.kind)
                await store.add(e, r.fork)
                const entry = seen.get(e.id) ?? { e, forks: new Set<string>() }
                entry.forks.add(r.fork)
                seen.set(e.id, entry)
              }
              const text = query.join(' ')
              const terms = searchTerms(text)
              const want = [...seen.values()]
                .filter(
                  ({ e, forks }) =>
                    contentMatches(e.content, terms) &&
                    (!scope.forks || scope.forks.some((f) => forks.has(f))) &&
                    (!scope.kinds || scope.kinds.includes(e.kind)) &&
                    (scope.until === undefined || e.created_at <= scope.until),
                )
                .map(({ e }) => e)
                .sort(newestFirst)
                .slice(0, scope.limit ?? 50)
              expect((await store.search({ text, ...scope })).map((e) => e.id)).toEqual(want.map((e) => e.id))
            } finally {
              await store.close()
            }
          },
        ),
        { numRuns: opts.runs ?? 40 },
      )
    })
  })
}
