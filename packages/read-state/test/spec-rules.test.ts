import { describe, expect, it } from 'vitest'
import { ReadStateEngine } from '../src'
import { blob, counterIds, find, PK, setup, T0 } from './harness'

describe('NIP-RS rules the engine follows as the spec writes them', () => {
  it('rule 3: a pending change identical to what this installation last published is not published again', () => {
    const h = setup()
    h.engine.loaded([])
    h.engine.markRead('ch', 100)
    const first = h.complete(h.engine.flush())
    expect(first.pub?.contexts).toEqual({ ch: 100 })
    // the app stopped after the publish went out but before `pending: false` was saved
    const saved = { ...h.engine.snapshot(), pending: true }
    const clock = { now: T0 + 60_000 }
    const again = new ReadStateEngine({
      pubkey: PK,
      clock: () => clock.now,
      randomId: counterIds('b'),
      state: saved,
    })
    again.start()
    again.loaded([])
    const fx = again.flush()
    const fetch = find(fx, 'fetch-own')!
    // the write relay does not return the blob (lost, or a relay added since): rule 3 still holds
    const after = again.ownFetched(fetch.ref, [])
    expect(find(after, 'publish')).toBeUndefined()
    expect(again.status().pending).toBe(false)
  })

  it('a msg: context is dominated by its channel only (base rule), not by its thread', () => {
    // parent of msg:r is the channel (decision 15); the thread's frontier is a display fold
    const parentOf = (ctx: string) => (ctx.startsWith('msg:') || ctx.startsWith('thread:') ? 'ch' : undefined)
    const h = setup({ parentOf })
    h.engine.loaded([])
    h.engine.markRead('ch', 100)
    h.engine.markRead('thread:t', 200)
    h.complete(h.engine.flush())
    expect(h.engine.status().pending).toBe(false)
    // another device read reply r (150): above the channel, below the thread
    h.engine.receive(
      blob({ slot: 'other', clientId: 'other-install', contexts: { 'msg:r': 150 }, createdAt: h.nowSec() }),
    )
    expect(h.engine.status().pending).toBe(true) // carried on, so a peer that does not fold sees r read
    const { pub } = h.complete(h.advance(60_000))
    expect(pub?.contexts).toMatchObject({ 'msg:r': 150, 'thread:t': 200, ch: 100 })
  })
})
