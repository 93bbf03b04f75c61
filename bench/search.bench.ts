/**
 * Search latency over 10,000 cached messages in 10 groups: SqliteEventStore.search (FTS5, a file,
 * WAL) and MemoryEventStore.search (a scan with the NIP-50 word-prefix rule), against a plain scan
 * (lower-cased `includes` over an array of the same events, then sort and slice: what a client
 * without a search index does). The same queries, the same answers checked first.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import { SqliteEventStore } from '../packages/client/src/sqlite'
import { MemoryEventStore } from '../packages/client/src/store'
import { record } from './lib'

const TOTAL = 10_000
const GROUPS = 10
const RELAY = 'wss://groups.example.com'
const nw = await initNostrWasm()
const key = generateSecretKey()

// A vocabulary of 2,000 made-up words with a Zipf-like use, so some words are common and some rare.
let seed = 42
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  return seed / 2 ** 31
}
const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'do', 'fi', 'gu', 'he']
const vocabulary = Array.from({ length: 2_000 }, (_, i) => {
  let w = ''
  for (let n = i + 7; n > 0; n = Math.floor(n / syllables.length)) w += syllables[n % syllables.length]
  return w
})
const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)] as string

const events: NostrEvent[] = []
for (let i = 0; i < TOTAL; i++) {
  const e = {
    kind: 9,
    tags: [['h', `g${i % GROUPS}`]],
    content: Array.from({ length: 6 + (i % 10) }, word).join(' '),
    created_at: 1_700_000_000 + i,
  } as NostrEvent
  nw.finalizeEvent(e, key)
  events.push(JSON.parse(JSON.stringify(e)))
}

const dir = mkdtempSync(join(tmpdir(), 'roost-search-bench-'))
const sqlite = SqliteEventStore.open(join(dir, 'search.db'))
const memory = new MemoryEventStore()
for (let g = 0; g < GROUPS; g++) {
  const list = events.filter((e) => e.tags[0]?.[1] === `g${g}`)
  await sqlite.addMany(list, `${RELAY}'g${g}`)
  await memory.addMany(list, `${RELAY}'g${g}`)
}

/** A common word, a middling one and a rare one. */
const queries = [vocabulary[0], vocabulary[40], vocabulary[400]] as string[]
const LIMIT = 50

function baseline(text: string): NostrEvent[] {
  const needle = text.toLowerCase()
  const words = (e: NostrEvent) => e.content.toLowerCase().split(' ')
  return events
    .filter((e) => e.content.toLowerCase().includes(needle) && words(e).some((w) => w.startsWith(needle)))
    .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1))
    .slice(0, LIMIT)
}

for (const q of queries) {
  const want = baseline(q)
    .map((e) => e.id)
    .join()
  const a = (await sqlite.search({ text: q, limit: LIMIT })).map((e) => e.id).join()
  const b = (await memory.search({ text: q, limit: LIMIT })).map((e) => e.id).join()
  if (a !== want || b !== want) throw new Error(`results differ for ${q}`)
}
const matches = queries.map(
  (q) => events.filter((e) => e.content.split(' ').some((w) => w.startsWith(q))).length,
)

async function rate(fn: (q: string) => unknown, rounds = 5, per = 20): Promise<number> {
  let best = 0
  for (let r = 0; r < rounds; r++) {
    const start = performance.now()
    for (let i = 0; i < per; i++) for (const q of queries) await fn(q)
    best = Math.max(best, (per * queries.length * 1000) / (performance.now() - start))
  }
  return best
}

const base = await rate(baseline)
const ours = await rate((q) => sqlite.search({ text: q, limit: LIMIT }))
const oursMemory = await rate((q) => memory.search({ text: q, limit: LIMIT }))
const ms = (perSecond: number) => (1000 / perSecond).toFixed(2)
const common = `queries: a common, a middling and a rare word (${matches.join(', ')} of ${TOTAL} messages match), newest ${LIMIT}`
record({
  name: 'search-10k-cached-sqlite',
  unit: 'search',
  ours,
  baseline: base,
  notes: `SqliteEventStore.search (FTS5, file, WAL) ${ms(ours)} ms per search; baseline: plain scan (lower-cased includes + word check, sort, slice) over an array ${ms(base)} ms; ${common}`,
})
record({
  name: 'search-10k-cached-memory',
  unit: 'search',
  ours: oursMemory,
  baseline: base,
  notes: `MemoryEventStore.search (newest-first scan, stops at ${LIMIT}) ${ms(oursMemory)} ms per search; baseline as above ${ms(base)} ms; ${common}`,
})

await sqlite.close()
rmSync(dir, { recursive: true, force: true })
