// The subscribers of bench/relay-fanout.bench.ts, in a process of their own: opens `n` connections
// that each subscribe to one group, then publishes events one at a time on another connection and
// times, for each, publish → first receipt and publish → last receipt among the subscribers.
import WebSocket from 'ws'

const open = (url) =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })

process.once('message', async ({ url, group, n, events }) => {
  const subs = []
  let eosed = 0
  let allEosed
  const ready = new Promise((resolve) => {
    allEosed = resolve
  })
  /** Receipts of the event under way: how many subscribers got it, and when the first did. */
  let current
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => open(url)))
    for (const ws of batch) {
      ws.on('message', (data) => {
        const text = String(data)
        if (text.startsWith('["EOSE"')) {
          if (++eosed === n) allEosed()
          return
        }
        if (!current || !text.startsWith('["EVENT"') || !text.includes(current.id)) return
        const now = performance.now()
        current.first ??= now
        if (++current.got === n) {
          current.last = now
          current.done()
        }
      })
      ws.send(JSON.stringify(['REQ', 'live', { '#h': [group], kinds: [9], limit: 0 }]))
      subs.push(ws)
    }
  }
  await ready
  const publisher = await open(url)
  const first = []
  const last = []
  for (const event of events) {
    const done = new Promise((resolve) => {
      current = { id: event.id, got: 0, first: undefined, last: undefined, done: resolve }
    })
    const start = performance.now()
    publisher.send(JSON.stringify(['EVENT', event]))
    await done
    first.push(current.first - start)
    last.push(current.last - start)
    // A pause between events, so each is timed alone.
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  publisher.terminate()
  for (const ws of subs) ws.terminate()
  process.send({ first, last }, () => process.exit(0))
})
