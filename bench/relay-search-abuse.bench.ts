/**
 * Search abuse, in one run against `roost-relay` in its own process (file database, rate limit off
 * for seeding): a stranger makes a private group of their own (9007 + 9002) and posts 3,000 events
 * with one word. Rows:
 * - an anonymous `{"search": word, "limit": 1}` whose every match is invisible, p50 REQ→EOSE,
 *   beside a word found nowhere (the baseline): the two should cost the same;
 * - a normal client's EVENT→OK p99 while 20 connections run that search back to back (in a worker
 *   thread), beside the same client's p99 with none (the baseline).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import WebSocket from 'ws'
import { record } from './lib'
import { quantile, reqClient, spawnRelay } from './relay-process'

const HIDDEN = 3_000
const SAMPLES = 300
const FLOODERS = 20
const nw = await initNostrWasm()
const dir = mkdtempSync(join(tmpdir(), 'roost-search-abuse-'))
const relay = await spawnRelay(['--db', join(dir, 'relay.db'), '--rate-limit', '0'])

function sign(sk: Uint8Array, t: { kind: number; tags: string[][]; content: string }): NostrEvent {
  const e = { ...t, created_at: Math.floor(Date.now() / 1000) } as NostrEvent
  nw.finalizeEvent(e, sk)
  return e
}

/** A client that pipelines EVENTs and times each OK. */
async function writer(sk?: Uint8Array) {
  const ws = new WebSocket(relay.url)
  await new Promise((resolve) => ws.once('open', resolve))
  const waiting = new Map<string, (m: unknown[]) => void>()
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as unknown[]
    if (m[0] === 'OK') waiting.get(m[1] as string)?.(m)
    if (m[0] === 'AUTH' && sk) {
      const auth = sign(sk, {
        kind: 22242,
        tags: [
          ['relay', relay.url],
          ['challenge', m[1] as string],
        ],
        content: '',
      })
      ws.send(JSON.stringify(['AUTH', auth]))
    }
  })
  return {
    ws,
    async send(e: NostrEvent): Promise<{ ms: number; ok: boolean; message: string }> {
      const t = performance.now()
      const m = await new Promise<unknown[]>((resolve) => {
        waiting.set(e.id, resolve)
        ws.send(JSON.stringify(['EVENT', e]))
      })
      waiting.delete(e.id)
      return { ms: performance.now() - t, ok: m[2] as boolean, message: m[3] as string }
    },
  }
}

async function all(c: Awaited<ReturnType<typeof writer>>, events: NostrEvent[]): Promise<void> {
  const answers = await Promise.all(events.map((e) => c.send(e)))
  const refused = answers.find((a) => !a.ok)
  if (refused) throw new Error(`seeding refused: ${refused.message}`)
}

// An open group with ordinary talk, and the stranger's private group holding the word 3,000 times.
const member = generateSecretKey()
const open = await writer(member)
await all(open, [sign(member, { kind: 9007, tags: [['h', 'lobby']], content: '' })])
await all(
  open,
  Array.from({ length: 300 }, (_, i) =>
    sign(member, { kind: 9, tags: [['h', 'lobby']], content: `hello number ${i}` }),
  ),
)
const stranger = generateSecretKey()
const hideout = await writer(stranger)
await all(hideout, [sign(stranger, { kind: 9007, tags: [['h', 'hideout']], content: '' })])
await all(hideout, [
  sign(stranger, { kind: 9002, tags: [['h', 'hideout'], ['private'], ['closed']], content: '' }),
])
await all(
  hideout,
  Array.from({ length: HIDDEN }, (_, i) =>
    sign(stranger, { kind: 9, tags: [['h', 'hideout']], content: `swordfish ${i}` }),
  ),
)
hideout.ws.close()

const INVISIBLE = { search: 'swordfish', limit: 1 }
const ABSENT = { search: 'zebrafinch', limit: 1 }
const searcher = await reqClient(relay.url)
for (let i = 0; i < 50; i++) {
  await searcher.time(INVISIBLE)
  await searcher.time(ABSENT)
}
const invisible: number[] = []
const absent: number[] = []
for (let i = 0; i < SAMPLES; i++) {
  invisible.push(await searcher.time(INVISIBLE))
  absent.push(await searcher.time(ABSENT))
}
searcher.ws.close()
const inv50 = quantile(invisible, 0.5)
const abs50 = quantile(absent, 0.5)
record({
  name: 'relay-search-invisible-vs-absent-p50',
  unit: 'req',
  ours: 1000 / inv50,
  baseline: 1000 / abs50,
  notes: `anonymous {"search","limit":1} whose ${HIDDEN} matches are all in a stranger's private group: REQ->EOSE p50 ${inv50.toFixed(2)} ms (p99 ${quantile(invisible, 0.99).toFixed(2)}); a word found nowhere ${abs50.toFixed(2)} ms (p99 ${quantile(absent, 0.99).toFixed(2)}), same run (baseline = absent word)`,
})

async function eventOkP99(label: string): Promise<number> {
  const ms: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const r = await open.send(sign(member, { kind: 9, tags: [['h', 'lobby']], content: `${label} ${i}` }))
    if (!r.ok) throw new Error(`refused: ${r.message}`)
    ms.push(r.ms)
    await new Promise((resolve) => setTimeout(resolve, 40))
  }
  return quantile(ms, 0.99)
}

const quiet = await eventOkP99('quiet')
const worker = new Worker(new URL('./relay-search.worker.mjs', import.meta.url), {
  workerData: { url: relay.url, filter: INVISIBLE, connections: FLOODERS },
})
await new Promise<void>((resolve) => worker.once('message', () => resolve()))
const started = performance.now()
const flooded = await eventOkP99('flooded')
const elapsed = (performance.now() - started) / 1000
worker.postMessage('stop')
const { answered } = await new Promise<{ answered: number }>((resolve) =>
  worker.on('message', (m) => m?.stopped && resolve(m)),
)
await worker.terminate()
open.ws.close()
await relay.stop()
rmSync(dir, { recursive: true, force: true })

record({
  name: 'relay-search-flood-event-ok-p99',
  unit: 'event',
  ours: 1000 / flooded,
  baseline: 1000 / quiet,
  notes: `EVENT->OK p99 ${flooded.toFixed(1)} ms while ${FLOODERS} connections search a word whose ${HIDDEN} matches they cannot see, back to back (${Math.round(answered / elapsed)} searches/s answered); ${quiet.toFixed(1)} ms with none, same run (baseline = no flooders)`,
})
