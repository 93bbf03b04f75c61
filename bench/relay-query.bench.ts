/**
 * Relay query: the newest 100 events of one group (`{"#h":[id],"limit":100}`) among 100,000 stored
 * events in three groups. nostr-tools has no relay, so the baseline is the naive path over the same
 * events in memory: nostr-tools `matchFilter` on every event, sort, take 100. Ours is the relay's
 * SQLite path (tag index on (name, value, created_at DESC)) measured two ways: the query alone, and a
 * full REQ→EOSE round trip over a WebSocket, reported as p50/p99.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NostrEvent } from 'nostr-tools/core'
import { matchFilter } from 'nostr-tools/filter'
import WebSocket from 'ws'
import { startRelay } from '../packages/relay/src/index'
import { EventDatabase } from '../packages/relay/src/store/database'
import { opsPerSecond, record } from './lib'

const TOTAL = 100_000
const GROUPS = ['big', 'other', 'third']
const hex = (n: number, len = 64) => n.toString(16).padStart(len, '0')

const dir = mkdtempSync(join(tmpdir(), 'roost-bench-'))
const path = join(dir, 'relay.db')
const events: NostrEvent[] = []
for (let i = 0; i < TOTAL; i++) {
  events.push({
    id: hex(i),
    pubkey: hex(1 + (i % 50)),
    kind: i % 10 === 0 ? 7 : 9,
    created_at: 1_700_000_000 + i,
    content: `message ${i}`,
    tags: [['h', GROUPS[i % 3] as string]],
    // Queries never verify signatures, so the events are stored unsigned (the relay's intake is benched apart).
    sig: hex(0, 128),
  })
}
const db = new EventDatabase(path, () => hex(0))
db.transaction(() => {
  for (const e of events) db.insert(e)
})

const filter = { '#h': ['big'], limit: 100 }
const naive = () =>
  events
    .filter((e) => matchFilter(filter, e))
    .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1))
    .slice(0, 100)
const sqlite = () => db.query(filter, 100)
if (
  sqlite()
    .map((r) => r.id)
    .join() !==
  naive()
    .map((e) => e.id)
    .join()
)
  throw new Error('results differ')

const baseline = await opsPerSecond(() => {
  for (let i = 0; i < 5; i++) naive()
}, 5)
const ours = await opsPerSecond(() => {
  for (let i = 0; i < 500; i++) sqlite()
}, 500)
db.close()
record({
  name: 'relay-query-h-latest100-of-100k',
  unit: 'query',
  ours,
  baseline,
  notes: 'SQLite tag index vs nostr-tools matchFilter scan + sort over the same 100k events in memory',
})

const relay = await startRelay({ db: path })
const ws = new WebSocket(relay.url)
await new Promise((resolve) => ws.once('open', resolve))
const pending = new Map<string, () => void>()
ws.on('message', (data) => {
  const m = JSON.parse(String(data))
  if (m[0] === 'EOSE') pending.get(m[1])?.()
})
const latencies: number[] = []
for (let i = 0; i < 300; i++) {
  const id = `q${i}`
  const start = performance.now()
  await new Promise<void>((resolve) => {
    pending.set(id, resolve)
    ws.send(JSON.stringify(['REQ', id, filter]))
  })
  latencies.push(performance.now() - start)
  pending.delete(id)
  ws.send(JSON.stringify(['CLOSE', id]))
}
ws.close()
await relay.close()
rmSync(dir, { recursive: true, force: true })
latencies.sort((a, b) => a - b)
const p50 = latencies[Math.floor(latencies.length * 0.5)] as number
const p99 = latencies[Math.floor(latencies.length * 0.99)] as number
const naiveMs = 1000 / baseline
record({
  name: 'relay-req-h-latest100-of-100k-p50',
  unit: 'req',
  ours: 1000 / p50,
  baseline,
  notes: `REQ->EOSE over WebSocket p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms; naive in-memory scan ${naiveMs.toFixed(1)} ms`,
})
record({
  name: 'relay-req-h-latest100-of-100k-p99',
  unit: 'req',
  ours: 1000 / p99,
  baseline,
  notes: `p99 ${p99.toFixed(2)} ms (baseline: naive in-memory scan, no socket)`,
})
