/**
 * Search at scale: 1,000,000 stored kind 9 over 100 groups (words drawn from a 2,000-word
 * vocabulary with a Zipf-like use), served by `roost-relay` in its own process. The database is
 * built once (unsigned events written straight through the relay's storage; reads never verify)
 * into a cached file outside the timed part, and reused by later runs. Rows:
 * - a common word's newest 100, REQ→EOSE p50, beside the plan the relay used before (every match
 *   materialized and sorted, timed on the same file in this process);
 * - a bystander's `#h` REQ p99 while another client searches that word back to back, beside the
 *   same REQ's p99 with nobody searching.
 * The notes add a rare word, a common 4-letter prefix and the plain `#h` REQ.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import Database from 'better-sqlite3'
import type { Filter } from 'nostr-tools'
import type { NostrEvent } from 'nostr-tools/core'
import { EventDatabase } from '../packages/relay/src/store/database'
import { ftsQuery } from '../packages/relay/src/store/search-sqlite'
import { record } from './lib'
import { quantile, reqClient, spawnRelay } from './relay-process'

const TOTAL = 1_000_000
const GROUPS = 100
const SAMPLES = 100
const hex = (n: number, len = 64) => n.toString(16).padStart(len, '0')

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

// Bump the version when the generated data or the schema changes, so a stale cache is not reused.
const cacheDir = join(tmpdir(), 'roost-bench-cache')
const path = join(cacheDir, 'relay-search-1m-v1.db')
if (!existsSync(path)) {
  mkdirSync(cacheDir, { recursive: true })
  const building = `${path}.building`
  rmSync(building, { force: true })
  const started = performance.now()
  const db = new EventDatabase(building, () => hex(0))
  const base = 1_700_000_000
  for (let chunk = 0; chunk < TOTAL; chunk += 50_000) {
    db.transaction(() => {
      for (let i = chunk; i < chunk + 50_000; i++) {
        const e: NostrEvent = {
          id: hex(i + 1),
          pubkey: hex(1 + (i % 500)),
          kind: 9,
          // About three messages a second: ties within a second are common.
          created_at: base + Math.floor(i / 3),
          content: Array.from({ length: 6 + (i % 10) }, word).join(' '),
          tags: [['h', `g${i % GROUPS}`]],
          sig: hex(0, 128),
        }
        db.insert(e)
      }
    })
  }
  db.sql.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  renameSync(building, path)
  console.log(`built ${TOTAL} events in ${((performance.now() - started) / 1000).toFixed(0)} s: ${path}`)
}

const raw = new Database(path, { readonly: true })
const matches = (w: string) =>
  (
    raw
      .prepare('SELECT count(*) AS n FROM events_search WHERE events_search MATCH ?')
      .get(ftsQuery([w], undefined, [])) as { n: number }
  ).n
const common = vocabulary[0] as string
const common4 = vocabulary.find((w) => w.length >= 4) as string
const rare = vocabulary[1_999] as string
const counts = [common, common4, rare].map(matches)

// The plan before: every match materialized, joined and sorted, then the newest 100.
const before = raw.prepare(`SELECT e.json FROM events e
  WHERE e.rowid IN (SELECT rowid & 1073741823 FROM events_search WHERE events_search MATCH ?)
  ORDER BY e.created_at DESC, e.id ASC LIMIT 100`)
const beforeMs: number[] = []
for (let i = 0; i < 3; i++) {
  const t = performance.now()
  before.all(ftsQuery([common], undefined, []))
  beforeMs.push(performance.now() - t)
}
raw.close()

const relay = await spawnRelay(['--db', path])
const client = await reqClient(relay.url)
const H = { '#h': ['g7'], kinds: [9], limit: 100 }
async function p(filter: Filter, n = SAMPLES): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 5; i++) await client.time(filter)
  const ms: number[] = []
  for (let i = 0; i < n; i++) ms.push(await client.time(filter))
  return { p50: quantile(ms, 0.5), p99: quantile(ms, 0.99) }
}
const commonT = await p({ search: common, limit: 100 })
const common4T = await p({ search: common4, limit: 100 })
const rareT = await p({ search: rare, limit: 100 })
const hQuiet = await p(H, 300)

const worker = new Worker(new URL('./relay-search.worker.mjs', import.meta.url), {
  workerData: { url: relay.url, filter: { search: common, limit: 100 }, connections: 1 },
})
await new Promise<void>((resolve) => worker.once('message', () => resolve()))
const hFlood = await p(H, 300)
worker.postMessage('stop')
await new Promise<void>((resolve) => worker.on('message', (m) => m?.stopped && resolve()))
await worker.terminate()
client.ws.close()
await relay.stop()

const f = (n: number) => n.toFixed(2)
const beforeP50 = quantile(beforeMs, 0.5)
record({
  name: 'relay-search-common-newest100-of-1m',
  unit: 'search',
  ours: 1000 / commonT.p50,
  baseline: 1000 / beforeP50,
  notes: `${TOTAL} kind 9 over ${GROUPS} groups; "${common}" (${counts[0]} matches) newest 100 REQ->EOSE p50 ${f(commonT.p50)} ms, p99 ${f(commonT.p99)}; baseline: the previous plan (materialize + sort every match) ${f(beforeP50)} ms on the same file; "${common4}" (${counts[1]} matches) p50 ${f(common4T.p50)} p99 ${f(common4T.p99)}; rare "${rare}" (${counts[2]} matches) p50 ${f(rareT.p50)} p99 ${f(rareT.p99)}; plain #h newest 100 p50 ${f(hQuiet.p50)}`,
})
record({
  name: 'relay-search-bystander-h-p99-of-1m',
  unit: 'req',
  ours: 1000 / hFlood.p99,
  baseline: 1000 / hQuiet.p99,
  notes: `a bystander's #h newest-100 REQ p99 ${f(hFlood.p99)} ms (p50 ${f(hFlood.p50)}) while one client searches "${common}" back to back; ${f(hQuiet.p99)} ms (p50 ${f(hQuiet.p50)}) with nobody searching, same run (baseline)`,
})
