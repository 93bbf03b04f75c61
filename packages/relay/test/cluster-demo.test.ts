/**
 * `--demo` on several relay processes started at once on one PostgreSQL database: the seed is
 * decided once, in the database, so every process serves and prints the same demo.
 */
import { hexToBytes } from '@noble/hashes/utils.js'
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { relayProcess } from './cluster'
import { connect, fetch, h, pgDatabase, publish, type User, user } from './helpers'

const KEY = '7a'.repeat(32)
/** The relay key as a user: it reads everything, as the staff of every group. */
const relaySk = hexToBytes(KEY)
const relayUser: User = {
  sk: relaySk,
  pk: getPublicKey(relaySk),
  sign: (t) =>
    finalizeEvent({ content: '', tags: [], created_at: Math.floor(Date.now() / 1000), ...t }, relaySk),
}

/** The invite code a process printed in its start banner. */
const printedInvite = (out: string[]) => /design invite:\s+(\S+)/.exec(out.join(''))?.[1]

describe('--demo on processes starting together on one database', { timeout: 120_000 }, () => {
  it('seeds the demo groups, history, profiles and one invite code exactly once', async () => {
    const db = await pgDatabase()
    const procs = await Promise.all([0, 1, 2].map(() => relayProcess(db, KEY, ['--demo'])))
    const invites = procs.map((p) => printedInvite(p.out))
    expect(invites[0]).toMatch(/^[0-9a-f]{12}$/)
    expect(new Set(invites)).toEqual(new Set([invites[0]]))

    for (const p of procs) {
      const c = await connect(p.url)
      // One creation per readable group (private stays hidden), the five history messages once,
      // one profile per demo user.
      const created = await fetch(c, [{ kinds: [9007] }])
      expect(created.events.map((e) => e.tags.find((t) => t[0] === 'h')?.[1]).sort()).toEqual([
        'design',
        'general',
      ])
      const history = await fetch(c, [{ kinds: [9], '#h': ['general'] }])
      expect(history.events).toHaveLength(5)
      const profiles = await fetch(c, [{ kinds: [0] }])
      expect(profiles.events).toHaveLength(3)
      // The code's 9009 is for the group's staff (here the relay key): a stranger is asked to AUTH.
      expect((await fetch(c, [{ kinds: [9009], '#h': ['design'] }])).closed).toMatch(/^auth-required: /)
      const asRelay = await connect(p.url, relayUser)
      const codes = await fetch(asRelay, [{ kinds: [9009], '#h': ['design'] }])
      expect(codes.events.map((e) => e.tags.find((t) => t[0] === 'code')?.[1])).toEqual([invites[0]])
      asRelay.close()
      const listing = await fetch(c, [{ kinds: [39000] }])
      expect(listing.events.map((e) => e.tags[0]?.[1]).sort()).toEqual(['design', 'general', 'private'])
      c.close()
    }

    // The printed code admits newcomers through any process, many of them.
    const a = await connect(procs[1]!.url)
    const b = await connect(procs[2]!.url)
    for (const c of [a, b, a, b])
      expect(
        (await publish(c, user().sign({ kind: 9021, tags: h('design', ['code', invites[0]!]) }))).ok,
      ).toBe(true)
    a.close()
    b.close()
    await Promise.all(procs.map((p) => p.stop()))
  })
})
