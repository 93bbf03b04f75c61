/**
 * A group's backfill after a restart, NIP-77 against today's REQ path, on each of the client's
 * three stores. The relay holds a group of 10,200 messages; the client's cache holds the 10,000
 * it saw before the restart (and the relay's own 9007/9002/9000), while on the relay 200 new
 * messages arrived and 50 of the cached ones were deleted (one NIP-09 kind 5). Both paths must
 * end with the fork's window equal to the relay's set (checked every round, or the bench fails):
 *
 * - ours: `negentropyBackfill` — NIP-11, NIP-77 fingerprints and ids, then the 200 new events by
 *   id; the 50 deleted ids leave the cache.
 * - baseline: `refetchWindow` — the window fetched again with REQ, newest first in pages of 500
 *   (`until` paging), then the same repair: what reaching a complete timeline costs without NIP-77.
 *
 * Bytes are counted as received: every WebSocket frame's payload plus its header, and the NIP-11
 * body. Time runs from the backfill's start (a fresh pool: connect included) until the store holds
 * the result. Memory and SQLite (a file) run in this process; IndexedDB in headless Chromium
 * (the same code, bundled), against the same relay. Median of 3 rounds, a fresh store each.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import type { NostrEvent } from 'nostr-tools/core'
import type { Filter } from 'nostr-tools/filter'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { chromium } from 'playwright-core'
import WebSocket from 'ws'
import { MemoryEventStore } from '../packages/client/src/index'
import { SqliteEventStore } from '../packages/client/src/sqlite'
import { startRelay } from '../packages/relay/src/index'
import { record } from './lib'
import { measure, type Run } from './negentropy-backfill.shared'

const CACHED = 10_000
const NEW = 200
const DELETED = 50
const ROUNDS = 3

const dir = mkdtempSync(join(tmpdir(), 'roost-backfill-'))
const page = join(dir, 'page')
await build({
  entryPoints: [new URL('./negentropy-backfill.page.ts', import.meta.url).pathname],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['@roost/source'],
  external: ['ws', 'better-sqlite3'],
  outfile: join(page, 'page.js'),
  logLevel: 'error',
})
writeFileSync(
  join(page, 'index.html'),
  '<!doctype html><title>backfill</title><script type="module" src="/page.js"></script>',
)

const relay = await startRelay({
  port: 0,
  host: '127.0.0.1',
  db: join(dir, 'relay.db'),
  lateWindow: 0,
  rateLimit: { events: 1_000_000_000, perSeconds: 1 },
  staticDir: page,
})
const sk = generateSecretKey()
const groupId = await relay.createGroup({ id: 'backfill', name: 'Backfill', members: [getPublicKey(sk)] })

const { initNostrWasm } = await import('nostr-wasm')
const nw = await initNostrWasm()
const now = Math.floor(Date.now() / 1000)
const sign = (kind: number, tags: string[][], created_at: number, content = ''): NostrEvent => {
  const e = { kind, tags, created_at, content } as unknown as NostrEvent
  nw.finalizeEvent(e, sk)
  return e
}

/** One raw socket: a burst of EVENTs, resolved once each got OK true. */
async function publish(events: NostrEvent[]): Promise<void> {
  const ws = new WebSocket(relay.url)
  await new Promise((resolve) => ws.once('open', resolve))
  const waiting = new Set(events.map((e) => e.id))
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as unknown[]
      if (m[0] !== 'OK') return
      if (m[2] !== true) reject(new Error(`refused: ${m[3]}`))
      waiting.delete(m[1] as string)
      if (waiting.size === 0) resolve()
    })
    for (const e of events) ws.send(JSON.stringify(['EVENT', e]))
  })
  ws.close()
}

/** Every event for a filter, newest first by `until` pages (independent of the client's code). */
async function everything(filter: Filter): Promise<NostrEvent[]> {
  const ws = new WebSocket(relay.url)
  await new Promise((resolve) => ws.once('open', resolve))
  const byId = new Map<string, NostrEvent>()
  let until: number | undefined
  for (let page = 0; ; page++) {
    const got: NostrEvent[] = await new Promise((resolve) => {
      const events: NostrEvent[] = []
      const onMessage = (data: WebSocket.RawData) => {
        const m = JSON.parse(String(data)) as unknown[]
        if (m[1] !== `p${page}`) return
        if (m[0] === 'EVENT') events.push(m[2] as NostrEvent)
        else if (m[0] === 'EOSE' || m[0] === 'CLOSED') {
          ws.off('message', onMessage)
          resolve(events)
        }
      }
      ws.on('message', onMessage)
      ws.send(
        JSON.stringify(['REQ', `p${page}`, { ...filter, limit: 500, ...(until !== undefined && { until }) }]),
      )
    })
    const fresh = got.filter((e) => !byId.has(e.id))
    for (const e of fresh) byId.set(e.id, e)
    if (fresh.length === 0 && got.length < 500) break
    until = Math.min(...got.map((e) => e.created_at)) - (fresh.length === 0 ? 1 : 0)
  }
  ws.close()
  return [...byId.values()]
}

// Before the restart: 10,000 messages over the last ~6 hours, all of them cached.
const old = Array.from({ length: CACHED }, (_, i) =>
  sign(9, [['h', groupId]], now - 22_000 + i * 2, `old ${i}`),
)
await publish(old)
const cached = await everything({ '#h': [groupId] })
// While the client was away: 200 new messages, and 50 cached ones deleted by their author.
await publish(
  Array.from({ length: NEW }, (_, i) => sign(9, [['h', groupId]], now - 1_000 + i * 4, `new ${i}`)),
)
const doomed = old.filter((_, i) => i % (CACHED / DELETED) === 7).map((e) => ['e', e.id])
await publish([sign(5, doomed, now - 10)])
const since = Math.min(...cached.map((e) => e.created_at))
const truth = (await everything({ '#h': [groupId], since })).map((e) => e.id)
console.log(`relay: ${truth.length} events in the window; cache: ${cached.length}`)

const results: Record<string, { nip77: Run[]; req: Run[] }> = {}
const check = (store: string, method: string, r: Run) => {
  if (!r.equal) throw new Error(`${store} ${method}: the fork does not equal the relay's set`)
  if (r.removed !== DELETED) throw new Error(`${store} ${method}: removed ${r.removed}, not ${DELETED}`)
  console.log(
    `${store.padEnd(9)} ${method.padEnd(5)} ${r.ms.toFixed(0).padStart(6)} ms ${r.bytes.toLocaleString('en-US').padStart(11)} bytes  +${r.added} -${r.removed}`,
  )
}
const stores = {
  memory: async () => new MemoryEventStore(),
  sqlite: async () => SqliteEventStore.open(join(dir, `cache-${Math.random()}.db`)),
}
for (const [name, open] of Object.entries(stores)) {
  results[name] = { nip77: [], req: [] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const method of ['nip77', 'req'] as const) {
      const store = await open()
      const r = await measure({
        store,
        method,
        relay: relay.url,
        groupId,
        cached,
        truth,
        websocket: WebSocket as unknown as typeof globalThis.WebSocket,
      })
      await store.close()
      check(name, method, r)
      results[name]?.[method].push(r)
    }
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
})
try {
  const tab = await browser.newPage()
  await tab.goto(relay.url.replace('ws://', 'http://'))
  await tab.waitForFunction(() => typeof window.backfill === 'function')
  results.indexeddb = { nip77: [], req: [] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const method of ['nip77', 'req'] as const) {
      const r = await tab.evaluate((o) => window.backfill(o), {
        method,
        relay: relay.url,
        groupId,
        cached,
        truth,
      })
      check('indexeddb', method, r)
      results.indexeddb[method].push(r)
    }
  }
} finally {
  await browser.close()
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const mb = (b: number) => `${(b / 1_048_576).toFixed(2)} MiB`
const memory = results.memory as { nip77: Run[]; req: Run[] }
const bytesNeg = median(memory.nip77.map((r) => r.bytes))
const bytesReq = median(memory.req.map((r) => r.bytes))
const scene = `${CACHED.toLocaleString('en-US')} cached, ${NEW} new and ${DELETED} deleted on the relay`
record({
  name: 'client-backfill-nip77-vs-req-bytes',
  unit: 'backfill/MiB',
  ours: 1_048_576 / bytesNeg,
  baseline: 1_048_576 / bytesReq,
  notes: `bytes received (frames and NIP-11) to repair a group's window after a restart (${scene}): NIP-77 ${bytesNeg.toLocaleString('en-US')} (${mb(bytesNeg)}), REQ re-fetch ${bytesReq.toLocaleString('en-US')} (${mb(bytesReq)}); the same on every store; the result equals the relay's set on memory, SQLite and IndexedDB`,
})
for (const [name, runs] of Object.entries(results)) {
  const neg = median(runs.nip77.map((r) => r.ms))
  const req = median(runs.req.map((r) => r.ms))
  record({
    name: `client-backfill-nip77-vs-req-${name}`,
    unit: 'backfill',
    ours: 1000 / neg,
    baseline: 1000 / req,
    notes: `time to a complete timeline after a restart (${scene}) on ${name === 'sqlite' ? 'SQLite (a file)' : name === 'indexeddb' ? 'IndexedDB in Chromium' : 'the memory store'}: NIP-77 ${neg.toFixed(0)} ms, REQ re-fetch ${req.toFixed(0)} ms (median of ${ROUNDS}); the fork equals the relay's set after each`,
  })
}

// After Chromium used its HTTP side, the relay's close() has been seen not to resolve: give it 10 s.
await Promise.race([relay.close(), new Promise((resolve) => setTimeout(resolve, 10_000))])
rmSync(dir, { recursive: true, force: true })
process.exit(0)
