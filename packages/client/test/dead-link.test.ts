import type { NostrEvent } from 'nostr-tools'
import { afterEach, describe, expect, it } from 'vitest'
import { type FaultProxy, type ProxiedConnection, startFaultProxy } from '../../../test/support/fault-proxy'
import { type Group, type GroupSnapshot, nobleVerifier, RelayPool } from '../src'
import { PROBE_ID } from '../src/pool/liveness'
import { FakeTimers } from './fake-timers'
import { Harness, recordingWebSocket, until as untilWithin, type WireLog } from './helpers'

const h = new Harness()
afterEach(() => h.close())

/**
 * Only the liveness watch runs on the fake clock: its 3 s and 5 s are moved by hand, so "dropped
 * 8 s after the unanswered send" is exact and never a wall-clock race. Everything else (the relay,
 * the sockets, the backoff) is real; round trips on a loaded machine get patience, not deadlines.
 */
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)

async function proxy(target: () => string): Promise<FaultProxy> {
  const p = await startFaultProxy(target)
  h.defer(() => p.close())
  return p
}

/** Until the proxy has read more than `bytes` from connection `id`'s client. */
async function reached(p: FaultProxy, id: number, bytes: number): Promise<void> {
  while ((p.connections[id - 1]?.fromClient ?? 0) <= bytes) await new Promise((r) => setTimeout(r, 5))
}

/** The first connection whose client sent more than it had at `before` (one count per connection). */
async function grown(p: FaultProxy, before: number[]): Promise<ProxiedConnection> {
  for (;;) {
    const c = p.connections.find((c, i) => i < before.length && c.fromClient > before[i]!)
    if (c) return c
    await new Promise((r) => setTimeout(r, 5))
  }
}

describe('a dead link is noticed', () => {
  it('a send into a black hole: the socket is dropped 8 s after it, then AUTH, the subscription and the send come back', async () => {
    // Alice reaches a relay that wants AUTH for every REQ and EVENT through a proxy that will
    // black-hole; Bob through one that stays healthy. The relay knows both URLs for NIP-42.
    let relayUrl = ''
    const faulty = await proxy(() => relayUrl)
    const healthy = await proxy(() => relayUrl)
    const relay = await h.relay({ profile: 'zooid', urls: [faulty.url, healthy.url] })
    relayUrl = relay.url
    const clock = new FakeTimers()
    const alice = h.roost({
      pool: {
        liveness: { now: clock.now, timers: clock.timers },
        publishTimeout: PATIENCE,
        eoseTimeout: PATIENCE,
      },
    })
    const bob = h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
    const members = [await alice.signer.getPublicKey(), await bob.signer.getPublicKey()]
    const id = await relay.createGroup({ name: 'Outage', members })
    const a = await alice.groups.join(`${faulty.url}'${id}`)
    const b = await bob.groups.join(`${healthy.url}'${id}`)
    await until(a, (s) => s.membership.status === 'member' && !s.loading)
    await until(b, (s) => s.membership.status === 'member' && !s.loading)
    const hello = await b.sendMessage('before the outage')
    await until(a, (s) => s.messages.some((m) => m.id === hello.id))
    expect(alice.pool.authState(faulty.url)).toBe('authenticated')

    // The network dies under Alice, and she sends.
    faulty.blackhole()
    const opened = faulty.connections.length // her WebSocket, and the NIP-11 fetch over HTTP
    const before = faulty.connections.map((c) => c.fromClient)
    const sending = a.sendMessage('sent into the black hole')
    const socket = await grown(faulty, before) // the EVENT left Alice's socket; nothing will answer it
    faulty.restore({ halfOpen: true }) // the network is back, but this TCP flow is dead for good

    clock.advance(7_999)
    expect(alice.pool.connected(faulty.url)).toBe(true) // a probe went out at 3 s; it still has 1 ms
    expect(socket.state).toBe('dead')
    clock.advance(1)
    expect(alice.pool.connected(faulty.url)).toBe(false) // dropped 8 s after the unanswered send
    expect(await socket.closed).toBe('client') // the TCP socket itself, not a close frame

    // The usual reconnect: a new socket, AUTH again, the group's REQ resumed, the send delivered.
    const sent = await sending
    expect(sent.content).toBe('sent into the black hole')
    await until(b, (s) => s.messages.some((m) => m.id === sent.id))
    expect(faulty.connections.length).toBeGreaterThan(opened) // a new socket
    expect(alice.pool.authState(faulty.url)).toBe('authenticated')
    const during = await b.sendMessage('after the outage')
    await until(a, (s) => s.messages.some((m) => m.id === during.id))
    const again = await a.sendMessage('sending again')
    await until(b, (s) => s.messages.some((m) => m.id === again.id))
    expect(new Set(a.snapshot().messages.map((m) => m.id)).size).toBe(a.snapshot().messages.length)
  })

  it('a REQ into a black hole: dropped 8 s after it, resubscribed on a new socket, events flow', async () => {
    const relay = await h.relay()
    const group = await relay.createGroup({ name: 'Subscribe' })
    const faulty = await proxy(() => relay.url)
    const clock = new FakeTimers()
    const log: WireLog = { sent: [], received: [] }
    const pool = new RelayPool({
      websocket: recordingWebSocket(log),
      verifier: nobleVerifier,
      backoff: { baseMs: 50, maxMs: 400 },
      eoseTimeout: PATIENCE,
      liveness: { now: clock.now, timers: clock.timers },
    })
    h.defer(() => pool.close())
    const writer = h.roost()

    // A first subscription, answered: the link is up and nothing is awaited.
    await new Promise<void>((resolve) =>
      pool.subscribe(faulty.url, [{ kinds: [0], limit: 1 }], { onevent: () => {}, oneose: resolve }),
    )

    faulty.blackhole()
    const before = faulty.connections[0]!.fromClient
    let heard: (e: NostrEvent) => void = () => {}
    const eosed = new Promise<void>((resolve) =>
      pool.subscribe(
        faulty.url,
        [{ kinds: [9], '#h': [group] }],
        { onevent: (e) => heard(e), oneose: resolve },
        { id: 'grp-deadbeef' },
      ),
    )
    await reached(faulty, 1, before)
    faulty.restore({ halfOpen: true })
    clock.advance(7_999)
    expect(pool.connected(faulty.url)).toBe(true)
    clock.advance(1)
    expect(pool.connected(faulty.url)).toBe(false)

    await eosed // only on the new socket: nothing came back on the old one
    expect(faulty.connections).toHaveLength(2)
    const g = await writer.groups.join(`${relay.url}'${group}`)
    const arrived = new Promise<NostrEvent>((resolve) => {
      heard = (e) => {
        if (e.content === 'live again') resolve(e)
      }
    })
    const sent = await g.sendMessage('live again')
    expect((await arrived).id).toBe(sent.id)
    // One probe, on the dead socket; the REQ was sent once on each socket.
    const frames = log.sent.map((f) => JSON.parse(f) as unknown[])
    expect(frames.filter((m) => m[0] === 'REQ' && m[1] === PROBE_ID)).toHaveLength(1)
    expect(frames.filter((m) => m[0] === 'REQ' && m[1] === 'grp-deadbeef')).toHaveLength(2)
  })

  it('a healthy link is not probed while it answers, and a quiet one costs one probe per 29 s', async () => {
    const relay = await h.relay()
    const clock = new FakeTimers()
    const log: WireLog = { sent: [], received: [] }
    const pool = new RelayPool({
      websocket: recordingWebSocket(log),
      verifier: nobleVerifier,
      liveness: { now: clock.now, timers: clock.timers },
    })
    h.defer(() => pool.close())
    const probes = () => log.sent.filter((f) => f.includes(`"${PROBE_ID}"`))
    for (let i = 0; i < 5; i++) {
      await pool.fetch([relay.url], [{ kinds: [1], limit: 1 }]) // a REQ answered at once
      clock.advance(2_900)
    }
    expect(probes()).toEqual([])
    clock.advance(29_000) // quiet since the last answer
    await new Promise((r) => setImmediate(r)) // nostr-tools sends a frame on the next microtask
    expect(probes()).toHaveLength(1)
    while (probes().length < 2) await new Promise((r) => setTimeout(r, 5)) // the EOSE came: CLOSE
    expect(probes().map((f) => JSON.parse(f)[0])).toEqual(['REQ', 'CLOSE'])
    clock.advance(5_000)
    expect(pool.connected(relay.url)).toBe(true)
  })

  it('with liveness off, the pool keeps nostr-tools’ own ping and sends no probe', async () => {
    const relay = await h.relay()
    const log: WireLog = { sent: [], received: [] }
    const pool = new RelayPool({
      websocket: recordingWebSocket(log),
      verifier: nobleVerifier,
      liveness: false,
      publishTimeout: 500,
    })
    h.defer(() => pool.close())
    const faulty = await proxy(() => relay.url)
    await pool.fetch([faulty.url], [{ kinds: [1], limit: 1 }])
    faulty.blackhole()
    const e = await h
      .roost()
      .signer.signEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: '' })
    const [r] = await pool.publish([faulty.url], e)
    expect(r).toMatchObject({ ok: false, failure: 'timeout' })
    expect(pool.connected(faulty.url)).toBe(true) // nothing noticed yet: the ping's cycle is 29 s
    expect(log.sent.some((f) => f.includes(PROBE_ID))).toBe(false)
  })
})
