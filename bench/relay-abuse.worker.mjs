// The abusive client of bench/relay-abuse.bench.ts, in its own thread so that its work does not
// delay the normal client being measured: one connection floods EVENTs, another hoards REQs and
// disconnects (every second), and
// 40 connections subscribe to everything and never read, until told to stop.
import { parentPort, workerData } from 'node:worker_threads'
import WebSocket from 'ws'

const { url, group, flood } = workerData
const open = () =>
  new Promise((resolve) => {
    const ws = new WebSocket(url)
    ws.on('error', () => {})
    ws.once('open', () => resolve(ws))
    ws.once('close', () => resolve(ws))
  })

let running = true
parentPort.on('message', (m) => {
  if (m === 'stop') running = false
})

const sinks = []
for (let i = 0; i < 40; i++) {
  const ws = await open()
  ws.send(JSON.stringify(['REQ', 'all', { '#h': [group], limit: 500 }]))
  ws.send(JSON.stringify(['REQ', 'live', { kinds: [9] }]))
  ws._socket?.pause()
  sinks.push(ws)
}
parentPort.postMessage('ready')
const frames = flood.map((e) => JSON.stringify(['EVENT', e]))
const flooder = await open()
let round = 0
while (running) {
  // Every second, a client queues 2,000 REQs and leaves without reading the answers.
  if (round++ % 10 === 0) {
    const hoarder = await open()
    for (let i = 0; i < 2000; i++)
      hoarder.send(JSON.stringify(['REQ', `q${i % 60}`, { '#h': [group], limit: 500 }]))
    hoarder.terminate()
  }
  // One connection floods: 1,000 EVENTs every 100 ms, whatever the answers say.
  for (const f of frames) flooder.send(f)
  await new Promise((resolve) => setTimeout(resolve, 100))
}
flooder.terminate()
for (const ws of sinks) ws.terminate()
parentPort.postMessage('stopped')
