import { describe, expect, it } from 'vitest'
import { contextKind, InvalidOptionError, publishTemplate, ReadStateEngine } from '../src'
import { blob, counterIds, fakeId, find, PK, setup, T0 } from './harness'

const X = 'ab'.repeat(32)

describe('ReadStateEngine: edges', () => {
  it('refuses bad options with typed errors', () => {
    const base = { clock: () => T0, randomId: counterIds() }
    expect(() => new ReadStateEngine({ ...base, pubkey: 'F'.repeat(64) })).toThrow(InvalidOptionError)
    expect(() => new ReadStateEngine({ ...base, pubkey: PK, budget: 50_000 })).toThrow(InvalidOptionError)
    expect(() => new ReadStateEngine({ ...base, pubkey: PK, debounceMs: 10, maxWaitMs: 5 })).toThrow(
      InvalidOptionError,
    )
  })

  it('a newer blob with our client_id at another slot, after we published here, is a clone', () => {
    const h = setup()
    h.engine.loaded([])
    h.engine.markRead('a', 1)
    h.complete(h.engine.flush())
    const before = { clientId: h.engine.clientId, slotId: h.engine.slotId }
    const fx = h.engine.receive(
      blob({ slot: 'elsewhere', clientId: before.clientId, contexts: { q: 2 }, createdAt: h.nowSec() + 5 }),
    )
    expect(find(fx, 'rotated')).toMatchObject({ reason: 'clone', previousSlotId: before.slotId })
    expect(h.engine.clientId).not.toBe(before.clientId)
    expect(find(fx, 'delete')).toBeUndefined()
    expect(h.engine.contexts.q).toBe(2)
  })

  it('never published here: the newest own blob elsewhere is adopted (restored install), older duplicates carried then deleted', () => {
    const h = setup()
    const me = h.engine.clientId
    const fresh = h.engine.slotId
    const t = h.nowSec()
    const fx = h.engine.loaded([
      blob({ slot: 'was-mine', clientId: me, contexts: { a: 5 }, createdAt: t - 10 }),
      blob({ slot: 'older', clientId: me, contexts: { b: 6 }, createdAt: t - 100 }),
    ])
    expect(h.engine.slotId).toBe('was-mine')
    expect(find(fx, 'rotated')).toMatchObject({
      reason: 'adopted',
      previousSlotId: fresh,
      slotId: 'was-mine',
    })
    // the adopted blob already holds a: 5; b: 6 only the older duplicate holds, so it is carried
    // into our blob first and the duplicate deleted after that publish
    expect(find(fx, 'delete')).toBeUndefined()
    expect(h.engine.status().pending).toBe(true)
    const { pub, done } = h.complete(h.advance(5_000))
    expect(pub?.slotId).toBe('was-mine')
    expect(pub?.contexts).toEqual({ a: 5, b: 6 })
    expect(find(done, 'delete')?.slotIds).toEqual(['older'])
  })

  it('a rotation while a publish is in flight: the old publish is not recorded, the new slot is written', () => {
    const h = setup()
    h.engine.loaded([])
    h.engine.markRead('a', 1)
    const fetch = find(h.engine.flush(), 'fetch-own')!
    const pub = find(h.engine.ownFetched(fetch.ref, []), 'publish')!
    h.engine.receive(
      blob({ slot: pub.slotId, clientId: 'squatter', contexts: { s: 1 }, createdAt: h.nowSec() }),
    )
    expect(h.engine.slotId).not.toBe(pub.slotId)
    h.engine.published(pub.ref, { id: fakeId(), ok: true })
    expect(h.engine.status().pending).toBe(true)
    expect(h.engine.snapshot().lastPublished).toBeUndefined()
    const next = h.complete(h.advance(5_000))
    expect(next.pub?.slotId).toBe(h.engine.slotId)
    expect(next.pub?.contexts).toEqual({ a: 1, s: 1 })
  })

  it('answers for unknown or stale refs are harmless', () => {
    const h = setup()
    h.engine.loaded([])
    expect(h.engine.ownFetched(99, [])).toEqual([])
    expect(h.engine.published(99, { ok: true })).toEqual([])
    h.engine.markRead('a', 1)
    const fetch = find(h.engine.flush(), 'fetch-own')!
    expect(find(h.engine.published(fetch.ref, { ok: true }), 'publish')).toBeUndefined()
    expect(h.engine.status().inFlight).toBe('fetch-own')
  })

  it('with a parent resolver set later, dominance and effective use it', () => {
    const h = setup()
    h.engine.loaded([])
    h.engine.markRead('ch', 200)
    h.engine.markRead(`thread:${X}`, 100)
    expect(h.engine.effective(`thread:${X}`)).toBe(100)
    h.engine.setParentResolver((ctx) => (contextKind(ctx) === 'thread' ? 'ch' : undefined))
    expect(h.engine.effective(`thread:${X}`)).toBe(200)
    expect(h.engine.effective(`thread:${X}`, () => undefined)).toBe(100)
  })

  it('publishTemplate builds the event template from a publish effect and the ciphertext', () => {
    const h = setup()
    h.engine.loaded([])
    h.engine.markRead('a', 1)
    const { pub } = h.complete(h.engine.flush())
    expect(publishTemplate(pub!, 'AgAAcipher')).toEqual({
      kind: 30078,
      created_at: pub!.createdAt,
      tags: [
        ['d', `read-state:${h.engine.slotId}`],
        ['t', 'read-state'],
      ],
      content: 'AgAAcipher',
    })
  })

  it('a far-future own blob found at load is followed by rotation at the next publish', () => {
    const h = setup()
    h.engine.loaded([
      blob({
        slot: h.engine.slotId,
        clientId: h.engine.clientId,
        contexts: { a: 1 },
        createdAt: h.nowSec() + 86400,
      }),
    ])
    const old = h.engine.slotId
    h.engine.markRead('b', 2)
    const fx = h.engine.flush()
    const after = h.engine.ownFetched(find(fx, 'fetch-own')!.ref, [])
    expect(find(after, 'rotated')?.reason).toBe('future')
    const { pub } = h.complete(after)
    expect(pub?.slotId).not.toBe(old)
    expect(pub?.createdAt).toBe(h.nowSec())
  })

  it('a stale duplicate holding nothing new is deleted at once', () => {
    const h = setup()
    h.engine.loaded([])
    h.engine.markRead('a', 5)
    h.complete(h.engine.flush())
    const fx = h.engine.receive(
      blob({ slot: 'old', clientId: h.engine.clientId, contexts: { a: 2 }, createdAt: h.nowSec() - 99 }),
    )
    expect(find(fx, 'delete')?.slotIds).toEqual(['old'])
    expect(h.engine.status().pending).toBe(false)
  })
})

describe('ReadStateEngine: bounded local state', () => {
  it('above maxLocalContexts, dominated children are dropped locally without changing any frontier', () => {
    const parentOf = (ctx: string) => (contextKind(ctx) === 'msg' ? 'ch' : undefined)
    const h = setup({ parentOf, maxLocalContexts: 5 })
    h.engine.loaded([])
    const ids = Array.from({ length: 10 }, (_, i) => (i + 1).toString(16).padStart(64, '0'))
    for (const [i, id] of ids.entries()) h.engine.markRead(`msg:${id}`, 50 + i)
    h.engine.markRead(`msg:${'f'.repeat(64)}`, 500)
    const before = Object.fromEntries(
      [...ids, 'f'.repeat(64)].map((id) => [id, h.engine.effective(`msg:${id}`)]),
    )
    expect(Object.keys(h.engine.contexts)).toHaveLength(11) // nothing is dominated yet
    h.engine.markRead('ch', 100)
    expect(Object.keys(h.engine.contexts).sort()).toEqual(['ch', `msg:${'f'.repeat(64)}`])
    for (const id of ids) expect(h.engine.effective(`msg:${id}`)).toBe(100)
    expect(h.engine.effective(`msg:${'f'.repeat(64)}`)).toBe(before['f'.repeat(64)])
    expect(Object.keys(h.engine.snapshot().advancedAt)).toHaveLength(2)
  })
})
