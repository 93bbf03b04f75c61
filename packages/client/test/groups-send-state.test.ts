/**
 * A send whose OK does not come in time is not a failure: through a proxy that stalls the link
 * longer than the publish deadline, each send ends `unknown`, then resolves to `sent` once the link
 * is back, the relay holds each message exactly once, and a Retry (of an unknown send, or of a
 * refused one) never makes a second copy: it sends the same signed event again.
 */
import type { NostrEvent } from 'nostr-tools'
import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { type FaultProxy, startFaultProxy } from '../../../test/support/fault-proxy'
import type { Group, GroupSnapshot } from '../src'
import { Harness, until as untilWithin } from './helpers'

setPoolWebSocket(WebSocket)

const h = new Harness()
afterEach(() => h.close())

const PATIENCE = 60_000
/** Short enough that a stall outlasts it; the stall is longer than the liveness probe's 8 s too. */
const TIMEOUT = 2_000
const STALL = 12_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)

async function proxy(target: () => string): Promise<FaultProxy> {
  const p = await startFaultProxy(target)
  h.defer(() => p.close())
  return p
}

/** What the relay holds of `author`'s kind 9 in `group`, asked directly (not through the proxy). */
async function stored(relayUrl: string, author: string, group: string): Promise<NostrEvent[]> {
  const pool = new SimplePool()
  try {
    return await pool.querySync([relayUrl], { kinds: [9], authors: [author], '#h': [group] })
  } finally {
    pool.destroy()
  }
}

describe('send states', () => {
  it('sends during a stall end unknown, resolve to sent when the link returns, are stored once each; Retry adds no copy', async () => {
    let relayUrl = ''
    const link = await proxy(() => relayUrl)
    const relay = await h.relay({ urls: [link.url] })
    relayUrl = relay.url
    const alice = h.roost({ pool: { publishTimeout: TIMEOUT, eoseTimeout: PATIENCE } })
    const me = await alice.signer.getPublicKey()
    const id = await relay.createGroup({ name: 'Stall', members: [me] })
    const a = await alice.groups.join(`${link.url}'${id}`)
    await until(a, (s) => s.membership.status === 'member' && !s.loading)
    const before = a.send('before the stall')
    expect((await before.answered()).status).toBe('sent')

    // The link stalls longer than the deadline (and than the dead-link probe): five sends go out.
    const stall = link.stall(STALL)
    const texts = ['one', 'two', 'three', 'four', 'five'].map((t) => `${t} during the stall`)
    const sends = texts.map((t) => a.send(t))
    expect(a.outbox.list()).toHaveLength(5)
    const answers = await Promise.all(sends.map((s) => s.answered()))
    expect(answers.map((s) => s.status)).toEqual(['unknown', 'unknown', 'unknown', 'unknown', 'unknown'])
    expect(answers.every((s) => s.status === 'unknown' && s.error.code === 'publish-timeout')).toBe(true)
    const ids = sends.map((s) => s.event!.id)

    // Retry of an unknown send while the link is still stalled: the same signed event goes again.
    void sends[0]!.retry()
    expect(sends[0]!.event!.id).toBe(ids[0])
    await stall

    // Once the link is back every one resolves by itself, with no Retry: it is sent and shown.
    const settled = await Promise.all(sends.map((s) => s.settled()))
    expect(settled.map((s) => s.status)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent'])
    expect(sends.map((s) => s.event!.id)).toEqual(ids)
    expect(a.outbox.list()).toEqual([])
    await until(a, (s) => ids.every((i) => s.messages.some((m) => m.id === i)))

    // A Retry after it is sent changes nothing either.
    expect((await sends[1]!.retry()).status).toBe('sent')

    const held = await stored(relay.url, me, id)
    for (const t of texts) expect(held.filter((e) => e.content === t)).toHaveLength(1)
    expect(held.map((e) => e.id).sort()).toEqual([before.event!.id, ...ids].sort())
  }, 120_000)

  it('a refused send is failed with the relay reason; its Retry sends the same event and no copy appears', async () => {
    const relay = await h.relay()
    const alice = h.roost({ pool: { publishTimeout: 15_000, eoseTimeout: 15_000 } })
    const me = await alice.signer.getPublicKey()
    const id = await relay.createGroup({ name: 'Refusals', members: [me] })
    const a = await alice.groups.join(`${relay.url}'${id}`)
    await until(a, (s) => s.membership.status === 'member' && !s.loading)

    const send = a.send('x'.repeat(70_000)) // more than the relay takes in one message
    const state = await send.answered()
    expect(state.status).toBe('failed')
    if (state.status !== 'failed') return
    expect(state.reason).toMatch(/too long/)
    expect(state.resign).toBe(false)
    expect(a.outbox.list()).toEqual([send]) // not dropped: it waits for Retry or Delete
    const first = send.event!.id
    expect((await send.retry()).status).toBe('failed')
    expect(send.event!.id).toBe(first)
    send.discard()
    expect(a.outbox.list()).toEqual([])
    expect(await stored(relay.url, me, id)).toEqual([])
  }, 60_000)
})
