import type { NostrEvent } from 'nostr-tools/core'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { commands } from 'vitest/browser'
import type { ConnectionView } from '../../../test/support/fault-proxy-commands'
import { LocalSigner, nobleVerifier, RelayPool } from '../src'
import { PROBE_ID } from '../src/pool/liveness'
import { FakeTimers } from './fake-timers'

/**
 * The dead-link test of dead-link.test.ts with Chromium's own WebSocket, which has no ping frame:
 * the probe is the application's REQ. The fault proxy runs in Node (browser commands); only the
 * liveness watch runs on the fake clock.
 */
const relays = inject('browserRelays')
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** Chromium's WebSocket, remembering every frame the page sends. */
function recording(sent: string[]): typeof WebSocket {
  return class extends WebSocket {
    override send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
      sent.push(String(data))
      super.send(data)
    }
  }
}

/** Until some connection's client has sent more than it had at `before`: that connection. */
async function grown(id: string, before: ConnectionView[]): Promise<ConnectionView> {
  for (;;) {
    const now = await commands.faultProxy(id, 'connections')
    const c = now.find((c) => (before.find((b) => b.id === c.id)?.fromClient ?? Infinity) < c.fromClient)
    if (c) return c
  }
}

describe('a dead link in the browser', () => {
  it('a send into a black hole drops the socket 8 s after it, and the pool reconnects and delivers it', async () => {
    const proxy = await commands.startFaultProxy(relays.added)
    cleanups.push(() => commands.faultProxy(proxy.id, 'close'))
    const clock = new FakeTimers()
    const sent: string[] = []
    const pool = new RelayPool({
      websocket: recording(sent),
      verifier: nobleVerifier,
      backoff: { baseMs: 50, maxMs: 400 },
      publishTimeout: 15_000,
      eoseTimeout: 15_000,
      liveness: { now: clock.now, timers: clock.timers },
    })
    cleanups.push(() => pool.close())
    const signer = LocalSigner.generate()
    const me = await signer.getPublicKey()
    let heard: (e: NostrEvent) => void = () => {}
    await new Promise<void>((resolve) =>
      pool.subscribe(
        proxy.url,
        [{ kinds: [30078], authors: [me] }],
        {
          onevent: (e) => heard(e),
          oneose: resolve,
        },
        { id: 'dead-link' },
      ),
    )

    await commands.faultProxy(proxy.id, 'blackhole')
    const before = await commands.faultProxy(proxy.id, 'connections')
    const event = await signer.signEvent({
      kind: 30078,
      created_at: Math.floor(Date.now() / 1000),
      tags: [['d', 'dead-link']],
      content: 'sent into the black hole',
    })
    const arrived = new Promise<NostrEvent>((resolve) => {
      heard = (e) => {
        if (e.id === event.id) resolve(e)
      }
    })
    const publishing = pool.publish([proxy.url], event)
    await grown(proxy.id, before)
    await commands.faultProxy(proxy.id, 'restore', { halfOpen: true })

    clock.advance(7_999)
    expect(pool.connected(proxy.url)).toBe(true)
    clock.advance(1)
    expect(pool.connected(proxy.url)).toBe(false)

    const [result] = await publishing // sent again on the new socket
    expect(result).toMatchObject({ ok: true })
    expect((await arrived).id).toBe(event.id) // the subscription resumed there
    const frames = sent.map((f) => JSON.parse(f) as unknown[])
    expect(frames.filter((m) => m[0] === 'REQ' && m[1] === PROBE_ID)).toHaveLength(1)
    expect(frames.filter((m) => m[0] === 'REQ' && m[1] === 'dead-link')).toHaveLength(2)
    expect(frames.filter((m) => m[0] === 'EVENT')).toHaveLength(2) // the same signed event, twice
  })
})
