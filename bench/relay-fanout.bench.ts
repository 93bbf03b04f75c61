/**
 * Fan-out to live subscribers: 1,000 and 3,000 connections subscribed to one group, opened by a separate
 * process (bench/relay-fanout.client.mjs), which also publishes events one at a time and times
 * publish → first receipt (p50, p99) and publish → last receipt.
 *
 * Baseline: the transport alone, a bare `ws` server in this process that, for each EVENT, writes the
 * same frame to every subscriber and then the OK (no storage, no matching, no visibility): the floor
 * any relay on Node and `ws` works above. (`@nostr-relay/core`, which the issue compared by hand, is
 * not a dependency of this workspace.)
 */
import { fork } from 'node:child_process'
import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import { WebSocketServer } from 'ws'
import { startRelay } from '../packages/relay/src/index'
import { record } from './lib'

/** Live subscribers per row. */
const SIZES = [1_000, 3_000]
const EVENTS = 200

const nw = await initNostrWasm()
const author = generateSecretKey()
function events(group: string): NostrEvent[] {
  const now = Math.floor(Date.now() / 1000)
  return Array.from({ length: EVENTS }, (_, i) => {
    const e = { kind: 9, tags: [['h', group]], content: `fan-out ${i}`, created_at: now } as NostrEvent
    nw.finalizeEvent(e, author)
    return e
  })
}

interface Timing {
  first: number[]
  last: number[]
}
/** Runs the subscriber process against `url` and returns its timings. */
function subscribers(url: string, group: string, n: number): Promise<Timing> {
  const child = fork(new URL('./relay-fanout.client.mjs', import.meta.url), [], { stdio: 'inherit' })
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as Timing))
    child.once('exit', (code) => reject(new Error(`subscriber process exited (${code})`)))
    child.send({ url, group, n, events: events(group) })
  })
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)] as number

async function roost(n: number): Promise<Timing> {
  const relay = await startRelay({
    rateLimit: { events: 1e9, perSeconds: 1 },
    limits: { maxConnectionsPerIp: n + 10, maxConnections: n + 10 },
  })
  const group = await relay.createGroup({ name: 'fan-out' })
  const t = await subscribers(relay.url, group, n)
  await relay.close()
  return t
}

async function bare(n: number): Promise<Timing> {
  const wss = new WebSocketServer({ port: 0, perMessageDeflate: false })
  await new Promise((resolve) => wss.once('listening', resolve))
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data))
      if (m[0] === 'REQ') ws.send(JSON.stringify(['EOSE', m[1]]))
      if (m[0] !== 'EVENT') return
      const frame = `["EVENT","live",${JSON.stringify(m[1])}]`
      for (const c of wss.clients) if (c !== ws) c.send(frame)
      ws.send(JSON.stringify(['OK', m[1].id, true, '']))
    })
  })
  const { port } = wss.address() as { port: number }
  const t = await subscribers(`ws://127.0.0.1:${port}`, 'g', n)
  for (const c of wss.clients) c.terminate()
  await new Promise((resolve) => wss.close(resolve))
  return t
}

for (const n of SIZES) {
  const ours = await roost(n)
  const floor = await bare(n)
  const p50 = pct(ours.first, 0.5)
  const p99 = pct(ours.first, 0.99)
  const b50 = pct(floor.first, 0.5)
  const b99 = pct(floor.first, 0.99)
  record({
    name: `relay-fanout-${n}-first-receipt-p50`,
    unit: 'event',
    ours: 1000 / p50,
    baseline: 1000 / b50,
    notes: `${n.toLocaleString('en-US')} subscribers of one group in a separate process, ${EVENTS} events published one at a time: publish→first receipt p50 ${p50.toFixed(2)} ms (p99 ${p99.toFixed(2)} ms, last receipt p50 ${pct(ours.last, 0.5).toFixed(2)} ms) vs a bare ws broadcast p50 ${b50.toFixed(2)} ms (p99 ${b99.toFixed(2)} ms, last ${pct(floor.last, 0.5).toFixed(2)} ms)`,
  })
  record({
    name: `relay-fanout-${n}-first-receipt-p99`,
    unit: 'event',
    ours: 1000 / p99,
    baseline: 1000 / b99,
    notes: `as the p50 row: publish→first receipt p99 ${p99.toFixed(2)} ms vs bare ws ${b99.toFixed(2)} ms`,
  })
}
