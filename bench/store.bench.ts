/**
 * The group page query: the newest 100 events of a 33,000-event group by `#h`, from
 * SqliteEventStore (a file, WAL) among 50,000 cached events, against nostr-tools `matchFilter` +
 * `sortEvents` + slice over an in-memory array of the same events (the baseline: what a client
 * without an indexed store does). Plus the fork timeline (newest 50 by fork) and a batch insert.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type NostrEvent, sortEvents } from 'nostr-tools/core'
import { matchFilter } from 'nostr-tools/filter'
import { generateSecretKey } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import { SqliteEventStore } from '../packages/client/src/sqlite'
import { MemoryEventStore } from '../packages/client/src/store'
import { record } from './lib'

const GROUP = 33_000
const TOTAL = 50_000
const RELAY = 'wss://groups.example.com'
const nw = await initNostrWasm()
const keys = Array.from({ length: 50 }, () => generateSecretKey())

const events: NostrEvent[] = []
for (let i = 0; i < TOTAL; i++) {
  const inGroup = i % 3 !== 2 && i < (GROUP * 3) / 2
  const h = inGroup ? 'general' : `other-${i % 40}`
  const e = {
    kind: i % 10 === 0 ? 7 : 9,
    tags: [
      ['h', h],
      ['previous', 'abcd1234'],
    ],
    content: `message ${i}`,
    created_at: 1_700_000_000 + Math.floor(i / 3),
  } as NostrEvent
  nw.finalizeEvent(e, keys[i % keys.length] as Uint8Array)
  events.push(JSON.parse(JSON.stringify(e)))
}
const inGeneral = events.filter((e) => e.tags[0]?.[1] === 'general').length

const dir = mkdtempSync(join(tmpdir(), 'roost-bench-'))
const store = SqliteEventStore.open(join(dir, 'bench.db'))
const byFork = new Map<string, NostrEvent[]>()
for (const e of events) {
  const fork = `${RELAY}'${e.tags[0]?.[1]}`
  byFork.set(fork, [...(byFork.get(fork) ?? []), e])
}

// Batch insert: every event into its fork, one transaction per 1,000.
const insertStart = performance.now()
for (const [fork, list] of byFork) {
  for (let i = 0; i < list.length; i += 1000) await store.addMany(list.slice(i, i + 1000), fork)
}
const insertPerSecond = (TOTAL * 1000) / (performance.now() - insertStart)

const filter = { '#h': ['general'] }
function baselinePage(limit: number): NostrEvent[] {
  return sortEvents(events.filter((e) => matchFilter(filter, e))).slice(0, limit)
}

// Same answer first (ids in order), then timing.
const oursPage = await store.query({ tags: { h: ['general'] }, limit: 100 })
const basePage = baselinePage(100)
if (oursPage.map((e) => e.id).join() !== basePage.map((e) => e.id).join()) throw new Error('pages differ')

async function rate(fn: () => unknown, ops: number, rounds = 5): Promise<number> {
  let best = 0
  for (let r = 0; r < rounds; r++) {
    const start = performance.now()
    for (let i = 0; i < ops; i++) await fn()
    best = Math.max(best, (ops * 1000) / (performance.now() - start))
  }
  return best
}

const baseline = await rate(() => baselinePage(100), 10)
const ours = await rate(() => store.query({ tags: { h: ['general'] }, limit: 100 }), 500)
record({
  name: 'store-latest-100-of-33k-by-h',
  unit: 'query',
  ours,
  baseline,
  notes: `SqliteEventStore (file, WAL) among ${TOTAL} events, ${inGeneral} in the group, rows parsed and branded; filled by addMany at ${Math.round(insertPerSecond)} events/s; baseline: nostr-tools matchFilter + sortEvents + slice over an array of the same events`,
})

const fork = `${RELAY}'general`
const oursFork = await rate(() => store.query({ fork, limit: 50 }), 500)
const baseFork = await rate(() => baselinePage(50), 10)
record({
  name: 'store-fork-timeline-50-of-33k',
  unit: 'query',
  ours: oursFork,
  baseline: baseFork,
  notes: 'SqliteEventStore query({fork, limit: 50}); baseline as above with limit 50',
})

const memory = new MemoryEventStore()
for (const [f, list] of byFork) await memory.addMany(list, f)
const oursMemory = await rate(() => memory.query({ fork, limit: 50 }), 500)
record({
  name: 'memory-store-fork-timeline-50-of-33k',
  unit: 'query',
  ours: oursMemory,
  baseline: baseFork,
  notes:
    'MemoryEventStore query({fork, limit: 50}) (per-fork timelines kept in query order); baseline as above',
})

await store.close()
rmSync(dir, { recursive: true, force: true })
