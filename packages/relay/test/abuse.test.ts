/**
 * The fault/abuse test: while one client floods EVENTs, another queues 2,000 REQs and disconnects,
 * and 40 clients subscribe and never read, a well-behaved client is still answered promptly and the
 * process stays within its memory budget. Loopback only, every loop bounded.
 */
import type { NostrEvent } from 'nostr-tools'
import { expect, it } from 'vitest'
import WebSocket from 'ws'
import { connect, h, publish, RawClient, relay, signMany, user } from './helpers'

function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url)
  ws.on('error', () => {})
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

it('a well-behaved client is answered within 1 s while others flood, hoard REQs and never read; RSS stays under 512 MB', async () => {
  const r = await relay()
  const g = await r.createGroup({ id: 'general', name: 'General' })
  // 510 stored messages of about 2 KB: every REQ below asks for up to 500 of them (about 1 MB).
  for (let part = 0; part < 3; part++) {
    const c = await connect(r.url)
    const history = await signMany(
      user(),
      Array.from({ length: 170 }, (_, i) => ({
        kind: 9,
        tags: h(g),
        content: `${part}.${i} ${'y'.repeat(2000)}`,
      })),
    )
    const answers = await Promise.all(history.map((e) => publish(c, e)))
    expect(answers.every((a) => a.ok)).toBe(true)
  }
  const sockets: WebSocket[] = []

  // 40 clients that ask for everything and never read.
  for (let i = 0; i < 40; i++) {
    const ws = await open(r.url)
    ws.send(JSON.stringify(['REQ', 'all', { '#h': [g], limit: 500 }]))
    ws.send(JSON.stringify(['REQ', 'live', { kinds: [9] }]))
    ;(ws as unknown as { _socket: { pause(): void } })._socket.pause()
    sockets.push(ws)
  }
  // One client queues 2,000 REQs and leaves without waiting for any answer.
  const hoarder = await open(r.url)
  for (let i = 0; i < 2000; i++)
    hoarder.send(JSON.stringify(['REQ', `q${i % 60}`, { '#h': [g], limit: 500 }]))
  hoarder.terminate()
  // One client floods EVENTs (valid, signed, in the open group) as fast as the socket takes them.
  const flood = await signMany(
    user(),
    Array.from({ length: 1000 }, (_, i) => ({
      kind: 9,
      tags: h(g),
      content: `flood ${i} ${'z'.repeat(500)}`,
    })),
  )
  const flooder = await open(r.url)
  sockets.push(flooder)
  let flooding = true
  const floodDone = (async () => {
    for (let round = 0; round < 3 && flooding; round++) {
      for (const e of flood) flooder.send(JSON.stringify(['EVENT', e]))
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()

  const good = await RawClient.open(r.url)
  const me = user()
  const latencies: { req: number; event: number }[] = []
  let rss = process.memoryUsage().rss
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now()
    const read = await good.req(`good${round}`, { '#h': [g], limit: 20 })
    const t1 = performance.now()
    const sent: NostrEvent = me.sign({ kind: 9, tags: h(g), content: `hello ${round}` })
    const ok = await good.publish(sent)
    const t2 = performance.now()
    good.send(['CLOSE', `good${round}`])
    // 20 stored events (and perhaps a live one that followed EOSE before the check).
    expect(read.events.length).toBeGreaterThanOrEqual(20)
    expect(ok.ok).toBe(true)
    latencies.push({ req: t1 - t0, event: t2 - t1 })
    rss = Math.max(rss, process.memoryUsage().rss)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  flooding = false
  await floodDone
  for (const ws of sockets) ws.terminate()

  const worst = {
    req: Math.max(...latencies.map((l) => l.req)),
    event: Math.max(...latencies.map((l) => l.event)),
  }
  expect(worst.req).toBeLessThan(1000)
  expect(worst.event).toBeLessThan(1000)
  expect(rss).toBeLessThan(512 * 1024 * 1024)
}, 120_000)
