import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { h, RawClient, relay, user } from './helpers'

describe('injected faults', () => {
  it('a verifier that throws still yields exactly one OK (error:) and the relay keeps serving', async () => {
    let fail = true
    const r = await relay({
      nonGroupKinds: [1],
      verifyEvent: () => {
        if (fail) throw new Error('verifier crashed')
        return true
      },
    })
    const raw = await RawClient.open(r.url)
    const e = user().sign({ kind: 1 })
    expect(await raw.publish(e)).toEqual({
      ok: false,
      message: 'error: internal error, the event was not stored',
    })
    expect(raw.frames.filter((f) => f[0] === 'OK')).toHaveLength(1)
    fail = false
    expect((await raw.publish(e)).ok).toBe(true)
  })

  it('a failure in the middle of ingest rolls back the database and the in-memory group state', async () => {
    let armed = false
    let calls = 0
    const now = Math.floor(Date.now() / 1000)
    const r = await relay({
      // Fails on the second reading of the clock while armed: after the checks, while the 9007's
      // state events are being generated, i.e. inside the transaction.
      clock: () => {
        if (armed && calls++ >= 1) throw new Error('clock failed')
        return now
      },
    })
    const raw = await RawClient.open(r.url)
    const alice = user()
    armed = true
    const create = alice.sign({ kind: 9007, tags: h('fragile') })
    expect((await raw.publish(create)).message).toMatch(/^error: /)
    armed = false
    expect(r.state('fragile')).toBeUndefined()
    expect((await raw.req('q', { '#h': ['fragile'] })).events).toEqual([])
    expect((await raw.publish(create)).ok).toBe(true)
    expect(r.state('fragile')?.admins).toEqual([{ pubkey: alice.pk, roles: ['admin'] }])
  })

  it('drops a peer that stops answering pings, keeps one that answers', async () => {
    const r = await relay({ heartbeat: 0.05 })
    const dead = new WebSocket(r.url, { autoPong: false })
    const alive = await RawClient.open(r.url)
    await new Promise<void>((resolve) => dead.once('close', () => resolve()))
    await alive.ping()
    expect(alive.ws.readyState).toBe(WebSocket.OPEN)
  })
})
