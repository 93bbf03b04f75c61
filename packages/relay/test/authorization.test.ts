/**
 * The authorization holes found by trying the relay from outside, each reproduced with a client that
 * is not ours (raw `ws` frames and nostr-tools) and refused.
 */
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { connect, fetch, h, publish, RawClient, relay, TestClock, user } from './helpers'

async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const clock = new TestClock()
  const r = await relay({ clock: clock.now, ...opts })
  const c = await connect(r.url)
  return { r, c, clock, u: () => user(clock) }
}

describe('authorization holes', () => {
  it('cross-user deletion: a 9008 deletes only its group’s events, never other events by their d value', async () => {
    const { r, c, u } = await setup()
    const victim = u()
    const attacker = u()
    const slot = 'read-state:laptop'
    const appData = victim.sign({ kind: 30078, tags: [['d', slot]], content: 'marks' })
    expect((await publish(c, appData)).ok).toBe(true)
    await r.createGroup({ id: 'general', name: 'General' })
    const chat = victim.sign({
      kind: 9,
      tags: [
        ['h', 'general'],
        ['d', slot],
      ],
      content: 'hi',
    })
    expect((await publish(c, chat)).ok).toBe(true)

    expect((await publish(c, attacker.sign({ kind: 9007, tags: h(slot) }))).ok).toBe(true)
    const mine = attacker.sign({ kind: 9, tags: h(slot), content: 'own' })
    expect((await publish(c, mine)).ok).toBe(true)
    expect((await publish(c, attacker.sign({ kind: 9008, tags: h(slot) }))).ok).toBe(true)

    const left = await fetch(c, [{ ids: [appData.id, chat.id, mine.id] }])
    expect(left.events.map((e) => e.id).sort()).toEqual([appData.id, chat.id].sort())
    // Republishing the victim's events is not refused as deleted.
    expect(await publish(c, appData)).toEqual({ ok: true, message: 'duplicate: already have this event' })
  })

  it('injection into a closed or private group: an event with more than one h tag is refused', async () => {
    const { r, u } = await setup()
    await r.createGroup({ id: 'general' })
    await r.createGroup({ id: 'private', private: true, closed: true })
    const raw = await RawClient.open(r.url)
    const stranger = u()
    const sneaky = stranger.sign({
      kind: 9,
      tags: [
        ['h', 'general'],
        ['h', 'private'],
      ],
      content: 'in',
    })
    const answer = await raw.publish(sneaky)
    expect(answer.ok).toBe(false)
    expect(answer.message).toMatch(/^invalid: /)
    const member = u()
    await raw.auth(member, r.url)
    expect((await raw.req('open', { ids: [sneaky.id] })).events).toEqual([])
  })

  it('moderator rewriting metadata: each moderation kind is allowed to the roles 39003 grants it', async () => {
    const { r, c, u } = await setup()
    const admin = u()
    const mod = u()
    const g = await r.createGroup({ name: 'Rules', admins: [admin.pk] })
    expect((await publish(c, admin.sign({ kind: 9000, tags: h(g, ['p', mod.pk, 'moderator']) }))).ok).toBe(
      true,
    )
    const roles = (await fetch(c, [{ kinds: [39003], '#d': [g] }])).events[0]
    const described = roles?.tags.find((t) => t[0] === 'role' && t[1] === 'moderator')?.[2] ?? ''
    expect(described).not.toMatch(/metadata/)

    expect(
      await publish(c, mod.sign({ kind: 9002, tags: h(g, ['name', 'Taken over'], ['closed']) })),
    ).toEqual({ ok: false, message: 'restricted: insufficient permissions' })
    expect(r.state(g)?.name).toBe('Rules')
    expect(r.state(g)?.closed).toBe(false)
    // What 39003 grants a moderator still works.
    expect((await publish(c, mod.sign({ kind: 9009, tags: h(g, ['code', 'welcome1']) }))).ok).toBe(true)
    expect((await publish(c, mod.sign({ kind: 9000, tags: h(g, ['p', u().pk]) }))).ok).toBe(true)
  })

  it('NIP-42 relay tag trusted from the client: it is checked against the configured URL, never the Host header', async () => {
    const r = await relay({ urls: ['wss://relay.example.com'] })
    const victim = user()
    // A proxy connects with its own Host header and forwards the victim's AUTH made for it.
    const ws = new WebSocket(r.url, { headers: { Host: 'evil.example' } })
    const frames: unknown[][] = []
    const next = (pred: (m: unknown[]) => boolean) =>
      new Promise<unknown[]>((resolve) => {
        const seen = frames.find(pred)
        if (seen) return resolve(seen)
        const on = (data: WebSocket.RawData) => {
          const m = JSON.parse(data.toString()) as unknown[]
          if (pred(m)) {
            ws.off('message', on)
            resolve(m)
          }
        }
        ws.on('message', on)
      })
    ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as unknown[]))
    const challenge = (await next((m) => m[0] === 'AUTH'))[1] as string
    const authFor = (url: string) =>
      victim.sign({
        kind: 22242,
        tags: [
          ['relay', url],
          ['challenge', challenge],
        ],
        created_at: Math.floor(Date.now() / 1000),
      })
    const forged = authFor('ws://evil.example')
    ws.send(JSON.stringify(['AUTH', forged]))
    expect(await next((m) => m[0] === 'OK' && m[1] === forged.id)).toEqual([
      'OK',
      forged.id,
      false,
      'invalid: relay tag does not name this relay',
    ])
    const listen = authFor(r.url)
    ws.send(JSON.stringify(['AUTH', listen]))
    expect((await next((m) => m[0] === 'OK' && m[1] === listen.id))[2]).toBe(false)
    const real = authFor('wss://relay.example.com/')
    ws.send(JSON.stringify(['AUTH', real]))
    expect((await next((m) => m[0] === 'OK' && m[1] === real.id))[2]).toBe(true)
    ws.terminate()
  })

  it('NIP-42: without --url the listen address is the relay’s name, and keys per connection are capped', async () => {
    const r = await relay({ limits: { maxAuthKeys: 2 } })
    const raw = await RawClient.open(r.url)
    expect((await raw.auth(user(), r.url)).ok).toBe(true)
    expect((await raw.auth(user(), r.url)).ok).toBe(true)
    expect(await raw.auth(user(), r.url)).toEqual({
      ok: false,
      message: 'blocked: too many authenticated keys (at most 2)',
    })
  })

  it('non-group kinds without a time window: a kind 0 dated ten years ahead is refused', async () => {
    const { c, clock, u } = await setup()
    const someone = u()
    const future = someone.sign({
      kind: 0,
      content: '{"name":"later"}',
      created_at: clock.now() + 10 * 365 * 86400,
    })
    expect(await publish(c, future)).toEqual({
      ok: false,
      message: 'invalid: created_at is too far in the future',
    })
    expect((await publish(c, someone.sign({ kind: 0, content: '{"name":"now"}' }))).ok).toBe(true)
    const slightly = someone.sign({ kind: 0, content: '{"name":"soon"}', created_at: clock.now() + 60 })
    expect((await publish(c, slightly)).ok).toBe(true)
  })
})
