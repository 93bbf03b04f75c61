// The relay side of bench/ingest.bench.ts, in its own thread so that serving the events does not
// take time from the client being measured (as a real relay would not).
import { parentPort } from 'node:worker_threads'
import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import WebSocket from 'ws'
import { startRelay } from '../packages/relay/src/index'

const { groups, perGroup } = (await new Promise((resolve) => parentPort!.once('message', resolve))) as {
  groups: number
  perGroup: number
}
const n = groups * perGroup
const nw = await initNostrWasm()
const relay = await startRelay({ profile: 'groups_relay', rateLimit: { events: 1e9, perSeconds: 1 } })
const ids: string[] = []
for (let g = 0; g < groups; g++) ids.push(await relay.createGroup({ name: `bench ${g}` }))
const authors = Array.from({ length: 20 }, () => generateSecretKey())
const base = Math.floor(Date.now() / 1000) - n
const ws = new WebSocket(relay.url)
await new Promise((resolve) => ws.once('open', resolve))
let accepted = 0
const done = new Promise<void>((resolve, reject) => {
  ws.on('message', (data) => {
    const m = JSON.parse(String(data))
    if (m[0] !== 'OK') return
    if (!m[2]) reject(new Error(`refused: ${m[3]}`))
    if (++accepted === n) resolve()
  })
})
for (let i = 0; i < n; i++) {
  const e = {
    kind: 9,
    created_at: base + i,
    tags: [['h', ids[i % groups]!]],
    content: `message ${i} `.repeat(1 + (i % 6)),
  } as NostrEvent
  nw.finalizeEvent(e, authors[i % authors.length]!)
  ws.send(JSON.stringify(['EVENT', e]))
}
await done
ws.close()
parentPort!.postMessage({ url: relay.url, pubkey: relay.pubkey, ids })
parentPort!.once('message', async () => {
  await relay.close()
  parentPort!.postMessage('closed')
})
