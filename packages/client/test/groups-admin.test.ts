import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import type { Group, GroupSnapshot, ReadStateSource } from '../src'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()

/**
 * Everything here awaits the state itself (`until` re-checks on each group event). Deadlines are
 * only diagnostics, kept well inside the test timeout: on a loaded machine a round trip can take
 * seconds, and a 3 s publish or EOSE deadline, or a 5 s wait, would fail a test that is fine.
 */
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = (opts: Parameters<Harness['roost']>[0] = {}) =>
  h.roost({ ...opts, pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE, ...opts.pool } })
afterEach(() => h.close())

describe('admins', () => {
  it('create a group (9007, 9002, join), add and remove members, edit metadata, delete, invite', async () => {
    const relay = await h.relay({ profile: 'strict' })
    const admin = client()
    const bob = client()
    const carol = client()
    const bobPk = await bob.signer.getPublicKey()
    const adminPk = await admin.signer.getPublicKey()
    const g = await admin.groups.create(relay.url, { name: 'Book club', about: 'Monthly', closed: true })
    expect(g.key.id.value).toMatch(/^[a-z0-9]{12}$/)
    // The 9002's 39000 is awaited too, not assumed to have arrived with the join.
    await until(
      g,
      (s) =>
        s.membership.status === 'member' &&
        s.admins?.contains(adminPk) === true &&
        s.metadata?.name === 'Book club',
    )
    expect(g.snapshot().metadata).toMatchObject({
      name: 'Book club',
      about: 'Monthly',
      closed: true,
      private: false,
    })
    expect(g.isAdmin(adminPk)).toBe(true)

    const b = await bob.groups.join(groupCode(relay, g.key.id.value))
    expect(b.snapshot().membership.status).toBe('refused') // closed, no code
    await g.admin.putUser(bobPk)
    await until(b, (s) => s.membership.status === 'member') // seen live, though the REQ was never refused
    const spam = await b.sendMessage('buy my coin')
    await until(g, (s) => s.messages.some((m) => m.id === spam.id))
    await g.deleteEvent(spam.id)
    await until(b, (s) => !s.messages.some((m) => m.id === spam.id))
    await g.admin.removeUser(bobPk)
    await until(b, (s) => s.membership.status === 'removed')

    await g.admin.editMetadata({ name: 'Book club (2026)' })
    await until(b, (s) => s.metadata?.name === 'Book club (2026)')
    expect(g.snapshot().metadata).toMatchObject({ about: 'Monthly', closed: true }) // the rest kept

    const invite = await g.admin.createInvite()
    expect(invite.link).toMatch(/^naddr1.+\?invite=[0-9a-f]{16}$/)
    const c = await carol.groups.join(invite.link!)
    await until(c, (s) => s.membership.status === 'member')
  })

  it('loadOlder pages back with until from the store, then the relay, and stops at the start', async () => {
    const relay = await h.relay({ profile: 'groups_relay' })
    const id = await relay.createGroup({ name: 'History' })
    const writer = generateSecretKey()
    const base = Math.floor(Date.now() / 1000) - 1000
    const seed = client()
    const total = 160
    for (let i = 0; i < total; i += 40) {
      const batch = Array.from({ length: 40 }, (_, j) =>
        finalizeEvent({ kind: 9, created_at: base + i + j, tags: [['h', id]], content: `m${i + j}` }, writer),
      )
      const results = await Promise.all(batch.map((e) => seed.pool.publish([relay.url], e)))
      expect(results.every(([r]) => r!.ok)).toBe(true)
    }
    const reader = client()
    const g = await reader.groups.join(groupCode(relay, id))
    const contents = (s: GroupSnapshot) => s.messages.map((m) => m.content)
    const first = await until(g, (s) => !s.loading && s.messages.length > 0)
    expect(contents(first).at(-1)).toBe(`m${total - 1}`)
    expect(first.messages.length).toBeLessThan(total) // the standing REQ has a limit: paging is needed
    const pages: number[] = []
    for (let n = await g.loadOlder(50); n > 0; n = await g.loadOlder(50)) pages.push(n)
    expect(pages.length).toBeGreaterThanOrEqual(2)
    expect(contents(g.snapshot())).toEqual(Array.from({ length: total }, (_, i) => `m${i}`))
    expect(g.snapshot().hasOlder).toBe(false)
  })

  it('snapshots are stable between changes (useSyncExternalStore), and unread reads the injected read state', async () => {
    const relay = await h.relay({ profile: 'groups_relay' })
    const id = await relay.createGroup({ name: 'Badges' })
    const marks = new Map<string, number>()
    const listeners = new Set<() => void>()
    const readState: ReadStateSource = {
      frontier: (ctx) => marks.get(ctx) ?? 0,
      markRead: (ctx, ts) => {
        marks.set(ctx, Math.max(marks.get(ctx) ?? 0, ts))
        for (const l of listeners) l()
      },
      subscribe: (l) => {
        listeners.add(l)
        return () => listeners.delete(l)
      },
    }
    const reader = client({ readState })
    const writer = client()
    const g = await reader.groups.join(groupCode(relay, id))
    const w = await writer.groups.join(groupCode(relay, id))
    await until(g, (s) => !s.loading)
    const before = g.snapshot()
    expect(g.snapshot()).toBe(before)
    expect(Object.isFrozen(before)).toBe(true)
    await w.sendMessage('one')
    await w.sendMessage('two')
    const s = await until(g, (s) => s.messages.length === 2)
    expect(s).not.toBe(before)
    expect(s.unread).toBe(2)
    await g.sendMessage('mine does not count')
    expect(g.unread()).toBe(2)
    g.markRead()
    expect(g.unread()).toBe(0)
    expect(marks.get(g.key.toString())).toBe(g.snapshot().messages.at(-1)!.createdAt)
  })
})
