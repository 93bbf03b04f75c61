/**
 * A dead link: the time from the network's return to the first successful send after a black
 * hole. A `RelayPool` holds a standing subscription to the in-process relay through the fault
 * proxy; the proxy black-holes the link (nothing moves, nothing closes), then the network comes
 * back half-open: the old TCP flow stays dead (the relay or a NAT forgot it) and new connections
 * work. From that moment the app sends a kind 9 again and again (each publish with the default
 * 10 s deadline, the next one as soon as one fails) until one is accepted.
 *
 * Ours: the pool's defaults (a send unanswered for 3 s with nothing heard from the relay sends a
 * probe REQ; no answer within 5 s drops the socket, and the pool reconnects with its backoff).
 * Baseline, same run, same relay: the same pool with `liveness: false`, so only nostr-tools'
 * own ping (every 29 s, 20 s to answer, then a graceful close that `ws` gives 30 s) notices, as
 * the pool did before it had a probe. The ping's cycle starts when the socket opens, just before
 * the black hole; each round black-holes for a different time, so the network comes back at a
 * different point of that cycle. Recorded as recoveries per second (1000 / median ms).
 */
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import WebSocket from 'ws'
import { nobleVerifier, RelayPool, type RelayPoolOptions } from '../packages/client/src/index'
import { startRelay } from '../packages/relay/src/index'
import { startFaultProxy } from '../test/support/fault-proxy'
import { record } from './lib'

const HOLES_MS = [3_000, 13_000, 23_000]
const relay = await startRelay({ port: 0, host: '127.0.0.1', db: ':memory:' })
const group = await relay.createGroup({ name: 'Outage' })
const sk = generateSecretKey()
const note = (content: string) =>
  finalizeEvent({ kind: 9, created_at: Math.floor(Date.now() / 1000), tags: [['h', group]], content }, sk)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One outage for a fresh pool: ms from the network's return to the first accepted send. */
async function recovery(holeMs: number, extra: Partial<RelayPoolOptions>): Promise<number> {
  const proxy = await startFaultProxy(relay.url)
  const pool = new RelayPool({
    websocket: WebSocket as unknown as typeof globalThis.WebSocket,
    verifier: nobleVerifier,
    ...extra,
  })
  try {
    await new Promise<void>((resolve) => {
      pool.subscribe(proxy.url, [{ kinds: [9], '#h': [group], since: Math.floor(Date.now() / 1000) }], {
        onevent: () => {},
        oneose: resolve,
      })
    })
    const [warm] = await pool.publish([proxy.url], note('before'))
    if (!warm?.ok) throw new Error(`warm-up send failed: ${warm?.message}`)
    proxy.blackhole()
    await sleep(holeMs)
    proxy.restore({ halfOpen: true })
    const back = performance.now()
    for (let i = 0; ; i++) {
      const [r] = await pool.publish([proxy.url], note(`after ${i}`))
      if (r?.ok) return performance.now() - back
    }
  } finally {
    pool.close()
    await proxy.close()
  }
}

const ours: number[] = []
const baseline: number[] = []
for (const hole of HOLES_MS) {
  // Side by side: each has its own proxy and pool, on the same relay, at the same time.
  const [o, b] = await Promise.all([recovery(hole, {}), recovery(hole, { liveness: false })])
  ours.push(o)
  baseline.push(b)
  console.log(
    `black hole ${hole / 1000} s: ours ${(o / 1000).toFixed(1)} s, ping only ${(b / 1000).toFixed(1)} s`,
  )
}
await relay.close()

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const secs = (xs: number[]) => xs.map((x) => (x / 1000).toFixed(1)).join(', ')
record({
  name: 'client-dead-link-back-to-first-send',
  unit: 'recovery',
  ours: 1000 / median(ours),
  baseline: 1000 / median(baseline),
  notes: `from the network's return (half-open: the old flow stays dead) to the first accepted send, black holes of ${HOLES_MS.map((h) => h / 1000).join(', ')} s; ours (probe after 3 s unanswered, 5 s to answer): ${secs(ours)} s; baseline, the same pool with liveness: false (nostr-tools' 29 s ping, 20 s timeout, graceful close): ${secs(baseline)} s`,
})
