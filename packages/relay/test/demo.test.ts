import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToHex } from '@noble/hashes/utils.js'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { DEMO_INVITE_USES } from '../src/demo'
import { connect, fetch, h, publish, relay, user } from './helpers'

describe('demo seed', () => {
  it('creates general (open, with history), design (closed, with an invite) and private (private+closed)', async () => {
    const r = await relay({ demo: true })
    expect(r.demo?.groups).toEqual(['general', 'design', 'private'])
    expect(r.state('general')).toMatchObject({ closed: false, private: false, name: 'General' })
    expect(r.state('design')).toMatchObject({ closed: true, private: false })
    expect(r.state('private')).toMatchObject({ closed: true, private: true })
    expect(r.state('design')?.invites).toContain(r.demo?.invite)
    const c = await connect(r.url)
    const history = await fetch(c, [{ kinds: [9], '#h': ['general'] }])
    expect(history.events.length).toBeGreaterThanOrEqual(3)
    const users = new Set(r.demo?.users.map((u) => u.pubkey))
    for (const e of history.events) expect(users.has(e.pubkey)).toBe(true)
    const profiles = await fetch(c, [{ kinds: [0], authors: [...users] }])
    expect(profiles.events.map((e) => JSON.parse(e.content).name).sort()).toEqual(['Alice', 'Bob', 'Carol'])
    const listing = await fetch(c, [{ kinds: [39000] }])
    expect(listing.events.map((e) => e.tags[0]![1]).sort()).toEqual(['design', 'general', 'private'])
    // A newcomer can join design with the printed code.
    const newcomer = user()
    expect(
      (await publish(c, newcomer.sign({ kind: 9021, tags: h('design', ['code', r.demo!.invite]) }))).ok,
    ).toBe(true)
  })

  it('is idempotent: a second start on the same db keeps the same groups, users and an unused code', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'roost-demo-')), 'demo.db')
    const first = await relay({ db, demo: true })
    const c = await connect(first.url)
    const count = (await fetch(c, [{ '#h': ['general'] }])).events.length
    const info = first.demo
    await first.close()
    const second = await relay({ db, demo: true })
    expect(second.demo).toEqual(info)
    const c2 = await connect(second.url)
    expect((await fetch(c2, [{ '#h': ['general'] }])).events.length).toBe(count)
    const profiles = await fetch(c2, [{ kinds: [0] }])
    expect(profiles.events).toHaveLength(3)
    expect(new Set(profiles.events.map((e) => e.pubkey))).toEqual(new Set(info?.users.map((u) => u.pubkey)))
  })

  it('prints a code good for many newcomers, and a fresh one once it is spent', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'roost-demo-')), 'demo.db')
    const first = await relay({ db, demo: true })
    const c = await connect(first.url)
    const code = first.demo!.invite
    expect(first.state('design')?.inviteTerms).toEqual({ [code]: { left: DEMO_INVITE_USES } })
    for (let i = 0; i < 5; i++)
      expect((await publish(c, user().sign({ kind: 9021, tags: h('design', ['code', code]) }))).ok).toBe(true)
    expect(first.state('design')?.inviteTerms).toEqual({ [code]: { left: DEMO_INVITE_USES - 5 } })
    await first.close()
    // A restart prints the same code while it has uses left.
    const second = await relay({ db, demo: true })
    expect(second.demo!.invite).toBe(code)
    await second.close()
    // Spent (a 9000 naming the code, as its last use's does): a new one next time.
    const sk = generateSecretKey()
    const spent = await relay({ db, demo: true, secretKey: bytesToHex(sk) })
    const cs = await connect(spent.url)
    const put = { kind: 9000, created_at: Math.floor(Date.now() / 1000), content: '' }
    const last = finalizeEvent({ ...put, tags: h('design', ['p', user().pk], ['code', code]) }, sk)
    expect((await publish(cs, last)).ok).toBe(true)
    expect(await publish(cs, user().sign({ kind: 9021, tags: h('design', ['code', code]) }))).toEqual({
      ok: false,
      message: 'restricted: invalid or already used invite code',
    })
    await spent.close()
    const third = await relay({ db, demo: true, secretKey: bytesToHex(sk) })
    expect(third.demo!.invite).not.toBe(code)
    expect(third.state('design')?.invites).toEqual([third.demo!.invite])
  })
})
