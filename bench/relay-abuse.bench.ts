/**
 * Relay fairness: the p99 latency of a normal client's EVENT → OK while an abusive client runs
 * (a flood of EVENTs, 2,000 REQs then a disconnect, and 40 connections that never read, in a
 * worker thread), beside the same figure with no abuse, in the same run. The relay runs as
 * `roost-relay` in its own process with its defaults (rate limit, caps, pacing) and a file
 * database; the group holds 600 messages of about 2 KB so every abusive REQ asks for 1 MB.
 * Recorded as operations per second (1000 / p99 ms): ours is under abuse, the baseline is quiet.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import WebSocket from 'ws'
import { record } from './lib'

const SAMPLES = 300
const nw = await initNostrWasm()
const dir = mkdtempSync(join(tmpdir(), 'roost-abuse-'))
const child = spawn(
  process.execPath,
  ['packages/relay/bin/roost-relay.mjs', '--port', '0', '--db', join(dir, 'relay.db')],
  { stdio: ['ignore', 'pipe', 'inherit'] },
)
const url = await new Promise<string>((resolve, reject) => {
  let out = ''
  child.stdout.on('data', (d) => {
    out += d
    const m = /listening on (ws:\/\/\S+)/.exec(out)
    if (m) resolve(m[1] as string)
  })
  child.once('exit', (code) => reject(new Error(`roost-relay exited with ${code}`)))
})

function sign(sk: Uint8Array, t: { kind: number; tags: string[][]; content: string }): NostrEvent {
  const e = { ...t, created_at: Math.floor(Date.now() / 1000) } as NostrEvent
  nw.finalizeEvent(e, sk)
  return e
}

/** A client that sends one EVENT at a time and times each OK. */
async function client() {
  const ws = new WebSocket(url)
  await new Promise((resolve) => ws.once('open', resolve))
  const waiting = new Map<string, (m: unknown[]) => void>()
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as unknown[]
    if (m[0] === 'OK') waiting.get(m[1] as string)?.(m)
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

// The group and its history (several connections: the default rate limit is per connection).
const admin = generateSecretKey()
const group = 'bench'
const setup = await client()
await setup.send(sign(admin, { kind: 9007, tags: [['h', group]], content: '' }))
for (let part = 0; part < 4; part++) {
  const c = await client()
  const sk = generateSecretKey()
  const events = Array.from({ length: 150 }, (_, i) =>
    sign(sk, { kind: 9, tags: [['h', group]], content: `${part}.${i} ${'y'.repeat(2000)}` }),
  )
  const answers = await Promise.all(events.map((e) => c.send(e)))
  if (!answers.every((a) => a.ok)) throw new Error(`seeding refused: ${answers.find((a) => !a.ok)?.message}`)
  c.ws.close()
}

async function p99(label: string): Promise<number> {
  const normal = await client()
  const sk = generateSecretKey()
  const ms: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    // One message every 40 ms: 25/s stays within the default rate limit (200 per 10 s).
    const r = await normal.send(sign(sk, { kind: 9, tags: [['h', group]], content: `${label} ${i}` }))
    if (!r.ok) throw new Error(`refused: ${r.message}`)
    ms.push(r.ms)
    await new Promise((resolve) => setTimeout(resolve, 40))
  }
  normal.ws.close()
  ms.sort((a, b) => a - b)
  return ms[Math.floor(ms.length * 0.99)] as number
}

const quiet = await p99('quiet')
const floodKey = generateSecretKey()
const flood = Array.from({ length: 1000 }, (_, i) =>
  sign(floodKey, { kind: 9, tags: [['h', group]], content: `flood ${i} ${'z'.repeat(500)}` }),
)
const worker = new Worker(new URL('./relay-abuse.worker.mjs', import.meta.url), {
  workerData: { url, group, flood },
})
await new Promise<void>((resolve) => worker.once('message', () => resolve()))
const abused = await p99('abused')
worker.postMessage('stop')
await new Promise<void>((resolve) => worker.on('message', (m) => m === 'stopped' && resolve()))
await worker.terminate()
child.kill('SIGTERM')
await new Promise((resolve) => child.once('exit', resolve))
rmSync(dir, { recursive: true, force: true })

record({
  name: 'relay-event-ok-p99-under-abuse',
  unit: 'event',
  ours: 1000 / abused,
  baseline: 1000 / quiet,
  notes: `EVENT->OK p99 ${abused.toFixed(1)} ms while one client floods, hoards 2,000 REQs and 40 never read; ${quiet.toFixed(1)} ms with no abuse, same run (baseline = quiet relay)`,
})
