/**
 * The relay on PostgreSQL beside SQLite, in one run:
 * - ingest into one group over a WebSocket (in-process relay, 100 EVENTs in flight), PostgreSQL vs a
 *   SQLite file;
 * - `#h` REQ→EOSE p50/p99 for the newest 100 of one group among 100,000 stored events, PostgreSQL vs
 *   a SQLite file holding the same rows;
 * - ingest through 2 relay processes (the real CLI, each its own Node process) on one PostgreSQL
 *   database vs 1 process on one database, the same events from this process.
 *
 * PostgreSQL: `DATABASE_URL` (a role that may CREATE DATABASE; each part gets a fresh database,
 * dropped afterwards), else a throwaway server started like the test suite's. Without PostgreSQL
 * installed these rows are skipped with a message; the other benches still run.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import pg from 'pg'
import WebSocket from 'ws'
import { startRelay } from '../packages/relay/src/index'
import { EventDatabase } from '../packages/relay/src/store/database'
import { openStore } from '../packages/relay/src/store/open'
import { type PgServer, pgBinDir, startPgServer } from '../packages/relay/test/pg-server'
import { record } from './lib'

/** Events ingested per measured round. */
const INGEST = 2_000
/** Measured rounds of the one-group ingest on each backend. */
const INGEST_ROUNDS = 4
/** EVENTs a client keeps in flight on one connection. */
const WINDOW = 100
const STORED = 100_000
const REQS = 300
const RELAY_KEY = '6b'.repeat(32)
const BIN = fileURLToPath(new URL('../packages/relay/bin/roost-relay.mjs', import.meta.url))

let server: PgServer | undefined
let base = process.env.DATABASE_URL
if (!base) {
  try {
    pgBinDir()
  } catch (err) {
    console.log(`skipped: the PostgreSQL rows need a server: ${(err as Error).message}, or set DATABASE_URL`)
    process.exit(0)
  }
  server = await startPgServer()
  base = server.url
  // Stop the throwaway server however this process ends.
  process.on('exit', () => server?.stop())
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1))
}
const admin = new pg.Client(base)
await admin.connect()
const made: string[] = []
/** A fresh database on the server (dropped at the end). */
async function database(): Promise<string> {
  const name = `roost_bench_${randomBytes(6).toString('hex')}`
  await admin.query(`CREATE DATABASE ${name}`)
  made.push(name)
  const url = new URL(base as string)
  url.pathname = `/${name}`
  return url.href
}
const dir = mkdtempSync(join(tmpdir(), 'roost-bench-pg-'))
const sqliteFile = (name: string) => join(dir, `${name}.db`)

const nw = await initNostrWasm()
const authors = Array.from({ length: 10 }, () => generateSecretKey())

/** `n` signed kind 9 events spread over `groups` (round robin), each with up to 3 `previous` references. */
function messages(groups: string[], n: number, seed: Map<string, NostrEvent[]>): NostrEvent[] {
  const now = Math.floor(Date.now() / 1000)
  const out: NostrEvent[] = []
  for (let i = 0; i < n; i++) {
    const g = groups[i % groups.length] as string
    const sk = authors[i % authors.length] as Uint8Array
    const me = getPublicKey(sk)
    const recent = seed.get(g) ?? []
    const refs = recent.filter((e) => e.pubkey !== me).slice(-3)
    const tags = [['h', g]]
    if (refs.length > 0) tags.push(['previous', ...refs.map((e) => e.id.slice(0, 8))])
    const e = { kind: 9, tags, content: `message ${i} `.repeat(1 + (i % 8)), created_at: now } as NostrEvent
    nw.finalizeEvent(e, sk)
    recent.push(e)
    seed.set(g, recent.slice(-10))
    out.push(e)
  }
  return out
}

async function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url)
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  return ws
}

/** The events of `filter` a relay serves (REQ→EOSE). */
function fetchAll(ws: WebSocket, filter: object): Promise<NostrEvent[]> {
  const sub = `f${randomBytes(4).toString('hex')}`
  return new Promise((resolve) => {
    const got: NostrEvent[] = []
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data))
      if (m[1] !== sub) return
      if (m[0] === 'EVENT') got.push(m[2])
      if (m[0] === 'EOSE') {
        ws.off('message', onMessage)
        ws.send(JSON.stringify(['CLOSE', sub]))
        resolve(got)
      }
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify(['REQ', sub, filter]))
  })
}

/**
 * Sends `events` on `ws` keeping {@link WINDOW} unanswered; resolves once every OK is in (rejects on
 * a refusal) with each EVENT→OK latency, ms.
 */
function pump(ws: WebSocket, events: NostrEvent[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    let sent = 0
    let answered = 0
    const at = new Map<string, number>()
    const latencies: number[] = []
    const next = () => {
      while (sent < events.length && sent - answered < WINDOW) {
        const e = events[sent++] as NostrEvent
        at.set(e.id, performance.now())
        ws.send(JSON.stringify(['EVENT', e]))
      }
    }
    ws.on('message', (data) => {
      const m = JSON.parse(String(data))
      if (m[0] !== 'OK') return
      if (!m[2]) reject(new Error(`refused: ${m[3]}`))
      latencies.push(performance.now() - (at.get(m[1]) ?? Number.NaN))
      if (++answered === events.length) resolve(latencies)
      else next()
    })
    next()
  })
}

/** Result of one ingest: events/s and the p99 EVENT→OK latency, ms. */
interface Ingest {
  rate: number
  p99: number
}
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] as number
/** The better of two ingests (by rate). */
const best = (a: Ingest, b: Ingest) => (b.rate > a.rate ? b : a)

/** Events/s of `events` sent over one connection per url (the events split evenly among them). */
async function ingest(urls: string[], events: NostrEvent[]): Promise<Ingest> {
  const sockets = await Promise.all(urls.map(open))
  const shares = urls.map((_, i) => events.filter((_, j) => j % urls.length === i))
  const start = performance.now()
  const latencies = await Promise.all(sockets.map((ws, i) => pump(ws, shares[i] as NostrEvent[])))
  const elapsed = performance.now() - start
  for (const ws of sockets) ws.close()
  return { rate: (events.length * 1000) / elapsed, p99: p99(latencies.flat()) }
}

// --- Ingest into one group, in-process relay: PostgreSQL vs a SQLite file -----------------------
async function ingestOneGroup(db: string, n = INGEST): Promise<Ingest> {
  const relay = await startRelay({ db, rateLimit: { events: 1e9, perSeconds: 1 } })
  const group = await relay.createGroup({ name: 'bench' })
  const ws = await open(relay.url)
  const seed = new Map([[group, (await fetchAll(ws, { '#h': [group] })).reverse()]])
  ws.close()
  const rate = await ingest([relay.url], messages([group], n, seed))
  await relay.close()
  return rate
}
// A round on each backend first, not measured: the relay code they share is compiled before
// either is timed, so neither pays for the other's warm-up.
await ingestOneGroup(await database(), INGEST / 4)
await ingestOneGroup(sqliteFile('warm'), INGEST / 4)
let pgIngest: Ingest = { rate: 0, p99: 0 }
let sqliteIngest: Ingest = { rate: 0, p99: 0 }
for (let round = 0; round < INGEST_ROUNDS; round++) {
  // Each goes first in turn, so a passing load falls on both.
  const pgRound = async () => {
    pgIngest = best(pgIngest, await ingestOneGroup(await database()))
  }
  const sqliteRound = async () => {
    sqliteIngest = best(sqliteIngest, await ingestOneGroup(sqliteFile(`ingest${round}`)))
  }
  for (const run of round % 2 === 0 ? [pgRound, sqliteRound] : [sqliteRound, pgRound]) await run()
}
console.error('ingest into one group measured; loading 100,000 events for the REQ rows')
record({
  name: 'relay-ingest-pg-vs-sqlite-file',
  unit: 'event',
  ours: pgIngest.rate,
  baseline: sqliteIngest.rate,
  notes: `${INGEST.toLocaleString('en-US')} kind 9 with previous into one group over one WebSocket, ${WINDOW} in flight, in-process relay, after a warm-up round on each; ours: PostgreSQL (group commit); baseline: SQLite file; best of ${INGEST_ROUNDS}, each first in turn; p99 EVENT→OK PostgreSQL ${pgIngest.p99.toFixed(1)} ms vs SQLite ${sqliteIngest.p99.toFixed(1)} ms`,
})

// --- #h REQ over 100,000 stored events: PostgreSQL vs a SQLite file -----------------------------
const hex = (n: number, len = 64) => n.toString(16).padStart(len, '0')
const GROUPS = ['big', 'other', 'third']
const stored: NostrEvent[] = []
for (let i = 0; i < STORED; i++) {
  stored.push({
    id: hex(i),
    pubkey: hex(1 + (i % 50)),
    kind: i % 10 === 0 ? 7 : 9,
    created_at: 1_700_000_000 + i,
    content: `message ${i}`,
    tags: [['h', GROUPS[i % 3] as string]],
    // Queries never verify signatures, so the events are stored unsigned (intake is measured above).
    sig: hex(0, 128),
  })
}

/**
 * Loads the 100,000 events: into PostgreSQL with the store's schema (migrated by opening the store)
 * in bulk statements, then vacuumed, into SQLite through its database class; the load is not what
 * is measured.
 */
async function loadPg(db: string): Promise<void> {
  const store = await openStore(db, () => RELAY_KEY)
  await store.close()
  const client = new pg.Client(db)
  await client.connect()
  for (let i = 0; i < STORED; i += 5_000) {
    const batch = stored.slice(i, i + 5_000)
    const h = batch.map((e) => (e.tags[0] as string[])[1] as string)
    await client.query(
      `WITH ins AS (
         INSERT INTO events (id, pubkey, kind, created_at, grp, json)
         SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[])
         RETURNING seq, created_at, grp)
       INSERT INTO tags (event, name, value, created_at) SELECT seq, 'h', grp, created_at FROM ins`,
      [
        batch.map((e) => e.id),
        batch.map((e) => e.pubkey),
        batch.map((e) => e.kind),
        batch.map((e) => e.created_at),
        h,
        batch.map((e) => JSON.stringify(e)),
      ],
    )
  }
  // What autovacuum does to a freshly loaded table, done before measuring rather than during it
  // (its visibility map also lets the tag index answer without visiting the table).
  await client.query('VACUUM ANALYZE')
  await client.end()
}
function loadSqlite(path: string): void {
  const db = new EventDatabase(path, () => RELAY_KEY)
  db.transaction(() => {
    for (const e of stored) db.insert(e)
  })
  db.close()
}

/** Latencies of the `#h` REQ on each backend, the two relays asked in turn so both see the same load. */
async function reqLatencies(dbs: readonly string[]): Promise<{ p50: number; p99: number; first: string }[]> {
  const relays = await Promise.all(dbs.map((db) => startRelay({ db })))
  const sockets = await Promise.all(relays.map((r) => open(r.url)))
  const filter = { '#h': ['big'], limit: 100 }
  const firsts: string[] = []
  for (const ws of sockets) firsts.push((await fetchAll(ws, filter)).map((e) => e.id).join())
  const latencies: number[][] = dbs.map(() => [])
  for (let i = 0; i < REQS; i++) {
    // Alternating which goes first, so neither always follows the other's work.
    const order = i % 2 === 0 ? sockets.keys() : [...sockets.keys()].reverse()
    for (const k of order) {
      const start = performance.now()
      await fetchAll(sockets[k] as WebSocket, filter)
      latencies[k]?.push(performance.now() - start)
    }
  }
  for (const ws of sockets) ws.close()
  await Promise.all(relays.map((r) => r.close()))
  return latencies.map((l, k) => {
    l.sort((a, b) => a - b)
    return {
      p50: l[Math.floor(REQS * 0.5)] as number,
      p99: l[Math.floor(REQS * 0.99)] as number,
      first: firsts[k] as string,
    }
  })
}
const pgDb = await database()
const sqliteDb = sqliteFile('query')
await loadPg(pgDb)
loadSqlite(sqliteDb)
const [onPg, onSqlite] = (await reqLatencies([pgDb, sqliteDb])) as [
  { p50: number; p99: number; first: string },
  { p50: number; p99: number; first: string },
]
if (onPg.first !== onSqlite.first || onPg.first.split(',').length !== 100)
  throw new Error('the two backends answer the REQ differently')
record({
  name: 'relay-req-h-latest100-of-100k-pg-vs-sqlite-p50',
  unit: 'req',
  ours: 1000 / onPg.p50,
  baseline: 1000 / onSqlite.p50,
  notes: `REQ->EOSE over WebSocket, {"#h":[one of 3 groups],limit:100}, ${REQS} REQs: PostgreSQL p50 ${onPg.p50.toFixed(2)} ms vs SQLite file p50 ${onSqlite.p50.toFixed(2)} ms`,
})
record({
  name: 'relay-req-h-latest100-of-100k-pg-vs-sqlite-p99',
  unit: 'req',
  ours: 1000 / onPg.p99,
  baseline: 1000 / onSqlite.p99,
  notes: `as the p50 row: PostgreSQL p99 ${onPg.p99.toFixed(2)} ms vs SQLite file p99 ${onSqlite.p99.toFixed(2)} ms`,
})

// --- Ingest through 1 and 2 relay processes on one PostgreSQL database --------------------------
const children = new Set<ChildProcess>()
/** Starts the real CLI on `db`; resolves to its URL once it listens. */
function relayProcess(db: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const p = spawn(
    process.execPath,
    [BIN, '--port', '0', '--db', db, '--secret-key', RELAY_KEY, '--rate-limit', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.add(p)
  let err = ''
  p.stderr?.on('data', (d) => {
    err += String(d)
  })
  const stop = () =>
    new Promise<void>((resolve) => {
      children.delete(p)
      if (p.exitCode !== null || p.signalCode !== null) return resolve()
      p.once('exit', () => resolve())
      p.kill('SIGTERM')
    })
  return new Promise((resolve, reject) => {
    let out = ''
    p.stdout?.on('data', (d) => {
      out += String(d)
      const m = /listening on (ws:\/\/\S+)/.exec(out)
      if (m?.[1]) resolve({ url: m[1], stop })
    })
    p.once('exit', (code) => reject(new Error(`relay process exited (${code}): ${err}`)))
  })
}
process.on('exit', () => {
  for (const p of children) p.kill('SIGKILL')
})

/** Events/s through `n` processes on a fresh database, into 4 groups created by one admin. */
async function cluster(n: number): Promise<Ingest> {
  const db = await database()
  const procs = await Promise.all(Array.from({ length: n }, () => relayProcess(db)))
  const owner = generateSecretKey()
  const groups = ['g0', 'g1', 'g2', 'g3']
  const ws = await open((procs[0] as { url: string }).url)
  const created = groups.map((g) => {
    const e = {
      kind: 9007,
      tags: [['h', g]],
      content: '',
      created_at: Math.floor(Date.now() / 1000),
    } as NostrEvent
    nw.finalizeEvent(e, owner)
    return e
  })
  await pump(ws, created)
  const seed = new Map<string, NostrEvent[]>()
  for (const g of groups) seed.set(g, (await fetchAll(ws, { '#h': [g] })).reverse())
  ws.close()
  const events = messages(groups, INGEST, seed)
  // Two connections either way: one per process, or both on the one process.
  const urls = procs.map((p) => p.url)
  const rate = await ingest(n === 1 ? [urls[0] as string, urls[0] as string] : urls, events)
  await Promise.all(procs.map((p) => p.stop()))
  return rate
}
let one: Ingest = { rate: 0, p99: 0 }
let two: Ingest = { rate: 0, p99: 0 }
for (let round = 0; round < 2; round++) {
  one = best(one, await cluster(1))
  two = best(two, await cluster(2))
}
record({
  name: 'relay-ingest-pg-2-processes-vs-1',
  unit: 'event',
  ours: two.rate,
  baseline: one.rate,
  notes: `${INGEST.toLocaleString('en-US')} kind 9 with previous into 4 groups over WebSockets from this process, ${WINDOW} in flight per connection; ours: 2 roost-relay processes on one PostgreSQL database (one connection each); baseline: 1 process (same events split over 2 connections); best of 2; p99 EVENT→OK 2 processes ${two.p99.toFixed(1)} ms vs 1 process ${one.p99.toFixed(1)} ms`,
})

await admin.end()
const cleanup = new pg.Client(base)
await cleanup.connect()
for (const name of made) await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
await cleanup.end()
rmSync(dir, { recursive: true, force: true })
