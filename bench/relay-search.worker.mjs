// The searching clients of bench/relay-search.bench.ts, in their own thread so that their work
// does not delay the client being measured: `connections` sockets each send one REQ with `filter`,
// wait for its EOSE (or CLOSED), and send the next, back to back, until told to stop.
import { parentPort, workerData } from 'node:worker_threads'
import WebSocket from 'ws'

const { url, filter, connections } = workerData
let running = true
let answered = 0
parentPort.on('message', (m) => {
  if (m === 'stop') running = false
})

async function searcher(n) {
  const ws = new WebSocket(url)
  ws.on('error', () => {})
  await new Promise((resolve) => ws.once('open', resolve))
  let next
  ws.on('message', (data) => {
    const m = JSON.parse(String(data))
    if ((m[0] === 'EOSE' || m[0] === 'CLOSED') && next) next()
  })
  while (running) {
    await new Promise((resolve) => {
      next = resolve
      ws.send(JSON.stringify(['REQ', `s${n}`, filter]))
    })
    ws.send(JSON.stringify(['CLOSE', `s${n}`]))
    answered++
  }
  ws.terminate()
}

const all = Array.from({ length: connections }, (_, n) => searcher(n))
parentPort.postMessage('ready')
await Promise.all(all)
parentPort.postMessage({ stopped: true, answered })
