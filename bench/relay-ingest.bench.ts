/**
 * Relay ingest: events accepted per second into one group over a real WebSocket, with strict
 * `previous` checks on (3 references per event), beside bare nostr-tools `verifyEvent` over the
 * same events in the same run. The relay verifies with its default (nostr-wasm), so the ratio shows
 * what the whole pipeline gains over noble alone; the notes also give the share of ingest time the
 * relay spends verifying, measured inside the same run (target: at least 70%, i.e. the rest of the
 * pipeline stays cheap next to the signature checks).
 */
import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import WebSocket from 'ws'
import { startRelay } from '../packages/relay/src/index'
import { defaultVerifier } from '../packages/relay/src/verify'
import { record } from './lib'

const N = 2_000
const ROUNDS = 5
const nw = await initNostrWasm()
const relayVerify = await defaultVerifier()
const keys = Array.from({ length: 10 }, () => generateSecretKey())

async function round(): Promise<{ ours: number; baseline: number; share: number }> {
  // The relay's own default check; the wrapper only times it.
  let verifying = 0
  const timedVerify = (e: NostrEvent) => {
    const t = performance.now()
    const ok = relayVerify(e)
    verifying += performance.now() - t
    return ok
  }
  const relay = await startRelay({
    profile: 'strict',
    rateLimit: { events: 1e9, perSeconds: 1 },
    verifyEvent: timedVerify,
  })
  const group = await relay.createGroup({ name: 'bench' })
  const ws = new WebSocket(relay.url)
  await new Promise((resolve) => ws.once('open', resolve))
  // The group's own events (the relay's 9007 and 9002) are the first references.
  const recent: NostrEvent[] = await new Promise((resolve) => {
    const got: NostrEvent[] = []
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data))
      if (m[0] === 'EVENT') got.push(m[2])
      if (m[0] === 'EOSE') {
        ws.off('message', onMessage)
        resolve(got.reverse())
      }
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify(['REQ', 'seed', { '#h': [group] }]))
  })
  const now = Math.floor(Date.now() / 1000)
  const events: NostrEvent[] = []
  for (let i = 0; i < N; i++) {
    const sk = keys[i % keys.length] as Uint8Array
    const me = getPublicKey(sk)
    const refs = recent.filter((e) => e.pubkey !== me).slice(-3)
    const tags = [['h', group]]
    if (refs.length > 0) tags.push(['previous', ...refs.map((e) => e.id.slice(0, 8))])
    const e = { kind: 9, tags, content: `message ${i} `.repeat(1 + (i % 8)), created_at: now } as NostrEvent
    nw.finalizeEvent(e, sk)
    events.push(e)
    recent.push(e)
  }
  const json = events.map((e) => JSON.stringify(['EVENT', e]))

  // Warm the verifier up on copies, then time a pass on fresh copies (unbranded, as from a socket).
  for (const e of JSON.parse(JSON.stringify(events.slice(0, 200))) as NostrEvent[]) verifyEvent(e)
  const copies = JSON.parse(JSON.stringify(events)) as NostrEvent[]
  let start = performance.now()
  for (const e of copies) if (!verifyEvent(e)) throw new Error('bad signature')
  const baseline = (N * 1000) / (performance.now() - start)

  let accepted = 0
  const done = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data))
      if (m[0] !== 'OK') return
      if (!m[2]) reject(new Error(`refused: ${m[3]}`))
      if (++accepted === N) resolve()
    })
  })
  verifying = 0
  start = performance.now()
  for (const frame of json) ws.send(frame)
  await done
  const elapsed = performance.now() - start
  ws.close()
  await relay.close()
  return { ours: (N * 1000) / elapsed, baseline, share: verifying / elapsed }
}

let ours = 0
let baseline = 0
let share = 0
for (let r = 0; r < ROUNDS; r++) {
  const x = await round()
  if (x.ours > ours) {
    ours = x.ours
    share = x.share
  }
  baseline = Math.max(baseline, x.baseline)
}
record({
  name: `relay-ingest-${N}-kind9-previous`,
  unit: 'event',
  ours,
  baseline,
  notes: `accepted over WebSocket (verify + rules + previous + SQLite + OK) (relay default: nostr-wasm) vs bare nostr-tools verifyEvent (noble); signature checks are ${(share * 100).toFixed(0)}% of the relay's ingest time`,
})
