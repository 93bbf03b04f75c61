/**
 * The fault/abuse test: while one client floods EVENTs, another queues 2,000 REQs and disconnects,
 * and 40 clients subscribe and never read, a well-behaved client is still answered before the flood
 * ends and the process stays within its memory budget. Loopback only, every loop bounded.
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

/** The flood: 1,000 signed EVENTs, each sent three times, all at once. */
const FLOOD = 3000

it('a well-behaved client is answered before the flood ends while others flood, hoard REQs and never read; RSS stays under 512 MB', async () => {
  // No EVENT rate limit: every EVENT of the flood is verified and stored, as a flood spread over
  // many connections would be (a rate-limited one is refused at once and ends too soon to measure).
  const r = await relay({ rateLimit: { events: 0, perSeconds: 1 } })
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
  // One client floods EVENTs (valid, signed, in the open group), all sent before the well-behaved
  // client asks anything: a relay that served connections first come, first served would answer
  // every one of them before it.
  const flood = await signMany(
    user(),
    Array.from({ length: FLOOD / 3 }, (_, i) => ({
      kind: 9,
      tags: h(g),
      content: `flood ${i} ${'z'.repeat(500)}`,
    })),
  )
  const flooder = await open(r.url)
  sockets.push(flooder)
  /** The flood's EVENTs the relay has answered so far: the flood ends when it has answered all. */
  let floodAnswered = 0
  const floodEnded = new Promise<void>((resolve) => {
    flooder.on('message', (data) => {
      if ((JSON.parse(data.toString()) as unknown[])[0] === 'OK' && ++floodAnswered === FLOOD) resolve()
    })
  })
  for (let copy = 0; copy < 3; copy++) for (const e of flood) flooder.send(JSON.stringify(['EVENT', e]))

  const good = await RawClient.open(r.url)
  const me = user()
  /** For each answer to the well-behaved client, how much of the flood had been answered before it. */
  const floodBefore: number[] = []
  let rss = process.memoryUsage().rss
  for (let round = 0; round < 5; round++) {
    const read = await good.req(`good${round}`, { '#h': [g], limit: 20 })
    floodBefore.push(floodAnswered)
    const sent: NostrEvent = me.sign({ kind: 9, tags: h(g), content: `hello ${round}` })
    const ok = await good.publish(sent)
    floodBefore.push(floodAnswered)
    good.send(['CLOSE', `good${round}`])
    // 20 stored events (and perhaps a live one that followed EOSE before the check).
    expect(read.events.length).toBeGreaterThanOrEqual(20)
    expect(ok.ok).toBe(true)
    rss = Math.max(rss, process.memoryUsage().rss)
  }
  await floodEnded
  for (const ws of sockets) ws.terminate()

  // Every answer to the well-behaved client came before the relay had answered the whole flood.
  expect(floodBefore.filter((n) => n >= FLOOD)).toEqual([])
  expect(rss).toBeLessThan(512 * 1024 * 1024)
}, 120_000)
