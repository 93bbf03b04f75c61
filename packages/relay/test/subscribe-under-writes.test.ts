/**
 * A subscription opened while a group is being written to sees every event acknowledged after it:
 * each is either among its stored results or sent live, never neither. Readers subscribe one after
 * another during a burst of writes, and each subscription must end up with the whole burst.
 */
import type { NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { connect, h, publish, RawClient, relay, user } from './helpers'

const EVENTS = 800
/** Publishes in flight at once from the writer. */
const IN_FLIGHT = 16
const READERS = 4
const SUBS_PER_READER = 40

describe('a REQ opened during writes', () => {
  it('misses nothing acknowledged: every event is in its stored answer or sent live', async () => {
    // Every subscription asks for the whole burst, which the relay must be willing to send.
    const r = await relay({ rateLimit: { events: 0, perSeconds: 1 }, limits: { maxLimit: EVENTS } })
    const gid = 'busy'
    const writer = user()
    await r.createGroup({ id: gid, name: 'Busy', members: [writer.pk] })
    const w = await connect(r.url)
    const readers = await Promise.all(Array.from({ length: READERS }, () => RawClient.open(r.url)))

    const events: NostrEvent[] = Array.from({ length: EVENTS }, (_, i) =>
      writer.sign({ kind: 9, tags: h(gid), content: `message ${i}` }),
    )
    let acked = 0
    let next = 0
    const send = async () => {
      while (next < events.length) {
        const res = await publish(w, events[next++] as NostrEvent)
        expect(res).toEqual({ ok: true, message: '' })
        acked++
      }
    }
    const writing = Promise.all(Array.from({ length: IN_FLIGHT }, send))

    // Subscriptions open one after another while the burst goes in, spread over the readers; the
    // raw readers do not verify what they receive, so the burst outruns them less.
    const subs: { reader: RawClient; id: string }[] = []
    for (let i = 0; i < READERS * SUBS_PER_READER && acked < EVENTS; i++) {
      const reader = readers[i % READERS] as RawClient
      const id = `s${i}`
      subs.push({ reader, id })
      const from = reader.frames.length
      reader.send(['REQ', id, { kinds: [9], '#h': [gid], limit: EVENTS }])
      await reader.next((f) => f[0] === 'EOSE' && f[1] === id, from)
    }
    await writing
    expect(subs.length).toBeGreaterThan(READERS)

    const missing = () =>
      subs.map(
        ({ reader, id }) =>
          EVENTS -
          new Set(
            reader.frames.filter((f) => f[0] === 'EVENT' && f[1] === id).map((f) => (f[2] as NostrEvent).id),
          ).size,
      )
    const end = Date.now() + 15_000
    while (missing().some((n) => n > 0) && Date.now() < end) await new Promise((res) => setTimeout(res, 50))
    expect(missing()).toEqual(subs.map(() => 0))
  }, 60_000)
})

describe('a refused REQ opened during writes', () => {
  it('sends nothing but its CLOSED: what came meanwhile is never handed to a reader the group refuses', async () => {
    const r = await relay({ rateLimit: { events: 0, perSeconds: 1 } })
    const gid = 'inner'
    const writer = user()
    await r.createGroup({ id: gid, name: 'Inner', private: true, closed: true, members: [writer.pk] })
    const w = await connect(r.url, writer)
    const outsider = user()
    const anonymous = await RawClient.open(r.url)
    const signedIn = await RawClient.open(r.url)
    expect(await signedIn.auth(outsider, r.url)).toMatchObject({ ok: true })

    let writing = true
    const sending = (async () => {
      for (let i = 0; i < 300; i++)
        expect((await publish(w, writer.sign({ kind: 9, tags: h(gid), content: `secret ${i}` }))).ok).toBe(
          true,
        )
      writing = false
    })()
    // Each reader asks again and again while the burst goes in: the REQ is registered before its
    // check, so a live event may reach it in that moment; it must be dropped with the refusal.
    let asked = 0
    while (writing) {
      for (const reader of [anonymous, signedIn]) {
        const id = `peek${asked++}`
        const answer = await reader.req(id, { kinds: [9], '#h': [gid] })
        expect(answer.closed).toBeDefined()
        expect(answer.events).toEqual([])
      }
    }
    await sending
    expect(asked).toBeGreaterThan(2)
    await Promise.all([anonymous.ping(), signedIn.ping()])
    for (const reader of [anonymous, signedIn])
      expect(reader.frames.filter((f) => f[0] === 'EVENT')).toEqual([])
  }, 60_000)
})
