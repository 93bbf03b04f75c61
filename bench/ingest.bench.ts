/**
 * Client ingest: 5,000 kind 9 events (10 groups × 500, the relay's per-REQ maximum) from an
 * in-process relay over real WebSockets, through Roost's whole read path — RelayPool (dedupe,
 * verification with createVerifier(), i.e. nostr-wasm) → Group.ingest → SqliteEventStore (a file,
 * batched writes) → every Group's snapshot with all 500 rows — beside a nostr-tools SimplePool
 * subscription to the same groups with its default verifyEvent (noble) pushing into an array.
 * Same events, same relay, same run, rounds alternating. The relay runs in a worker thread, so
 * serving the events costs neither side (the machine's second core does it).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { GroupKey } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { SimplePool, useWebSocketImplementation } from 'nostr-tools/pool'
import WebSocket from 'ws'
import { createVerifier, Group, LocalSigner, RelayPool } from '../packages/client/src/index'
import { SqliteEventStore } from '../packages/client/src/sqlite'
import { record } from './lib'

const GROUPS = 10
const PER_GROUP = 500
const N = GROUPS * PER_GROUP
const ROUNDS = 2

useWebSocketImplementation(WebSocket)
const dir = mkdtempSync(join(tmpdir(), 'roost-ingest-'))

// ── the relay and its events, in a worker thread ─────────────────────────────────────────
const worker = new Worker(new URL('./ingest-relay.worker.mjs', import.meta.url))
worker.postMessage({ groups: GROUPS, perGroup: PER_GROUP })
const relay = (await new Promise((resolve, reject) => {
  worker.once('message', resolve)
  worker.once('error', reject)
})) as { url: string; pubkey: string; ids: string[] }
const ids = relay.ids

// ── one round each ─────────────────────────────────────────────────────────────────────────
async function baselineRound(): Promise<number> {
  const pool = new SimplePool()
  const got: NostrEvent[] = []
  const start = performance.now()
  await Promise.all(
    ids.map(
      (id) =>
        new Promise<void>((resolve) => {
          const sub = pool.subscribe(
            [relay.url],
            { kinds: [9], '#h': [id], limit: PER_GROUP },
            {
              maxWait: 600_000, // wait for the real EOSE, however long verification takes
              onevent: (e) => {
                got.push(e)
              },
              oneose: () => {
                sub.close()
                resolve()
              },
            },
          )
        }),
    ),
  )
  const elapsed = performance.now() - start
  pool.close([relay.url])
  if (got.length !== N) throw new Error(`baseline got ${got.length} events`)
  return (N * 1000) / elapsed
}

const verifier = await createVerifier()
const signer = LocalSigner.generate()
const me = await signer.getPublicKey()

async function oursRound(r: number): Promise<number> {
  const path = join(dir, `client-${r}.db`)
  const store = SqliteEventStore.open(path)
  const pool = new RelayPool({
    websocket: WebSocket as unknown as typeof globalThis.WebSocket,
    verifier,
    signer,
    eoseTimeout: 600_000,
  })
  const groups = ids.map(
    (id) =>
      new Group(new GroupKey(relay.url, id), {
        pool,
        store,
        signer,
        me,
        clock: () => Math.floor(Date.now() / 1000),
        relayKey: () => relay.pubkey,
        pinRelayKey: () => {},
      }),
  )
  const start = performance.now()
  await Promise.all(
    groups.map(
      (group, g) =>
        new Promise<void>((resolve) => {
          const sub = pool.subscribe(
            relay.url,
            [{ kinds: [9], '#h': [ids[g]!], limit: PER_GROUP }],
            {
              onevent: (e) => group.ingest(e),
              oneose: () => {
                sub.close()
                resolve()
              },
            },
            { id: `grp-${g.toString(16).padStart(8, '0')}` },
          )
        }),
    ),
  )
  await Promise.all(groups.map((g) => g.flush())) // every event is in SQLite
  let rows = 0
  for (const g of groups) rows += g.snapshot().messages.length // and every snapshot is built
  const elapsed = performance.now() - start
  if (rows !== N) throw new Error(`ours rendered ${rows} rows`)
  pool.close()
  await store.close()
  const stored = SqliteEventStore.open(path)
  const check = await stored.query({ kinds: [9] })
  await stored.close()
  if (check.length !== N) throw new Error(`ours stored ${check.length} events`)
  return (N * 1000) / elapsed
}

let ours = 0
let baseline = 0
await baselineRound() // warm both paths up once
await oursRound(-1)
for (let r = 0; r < ROUNDS; r++) {
  baseline = Math.max(baseline, await baselineRound())
  ours = Math.max(ours, await oursRound(r))
}
worker.postMessage('close')
await new Promise((resolve) => worker.once('message', resolve))
await worker.terminate()
rmSync(dir, { recursive: true, force: true })

record({
  name: 'client-ingest-5000-kind9',
  unit: 'event',
  ours,
  baseline,
  notes: `${GROUPS} groups x ${PER_GROUP}; ours: RelayPool + ${verifier.backend} verify + SqliteEventStore (file) + Group snapshots; baseline: SimplePool + verifyEvent (noble) into an array; best of ${ROUNDS}`,
})
