import { join } from 'node:path'
import { bytesToHex } from '@noble/hashes/utils.js'
import { generateSecretKey } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import type { Group, GroupSnapshot } from '../src'
import { type Gate, gatedWebSocket, groupCode, Harness, until as untilWithin } from './helpers'

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

describe('outages', () => {
  it('a relay killed mid-stream and restarted loses no message, and routing survives the resubscribe', async () => {
    const dir = h.tmp()
    const db = join(dir, 'relay.db')
    const secretKey = bytesToHex(generateSecretKey())
    const first = await h.relay({ db, secretKey, profile: 'groups_relay' })
    const port = Number(new URL(first.url).port)
    const g1 = await first.createGroup({ name: 'One' })
    const g2 = await first.createGroup({ name: 'Two' })

    // Alice's network stays down after the relay restarts, until the burst below is over.
    const gate: Gate = { offline: false }
    const alice = client({ pool: { websocket: gatedWebSocket(gate) } })
    const bob = client()
    const a1 = await alice.groups.join(groupCode(first, g1))
    const a2 = await alice.groups.join(groupCode(first, g2))
    const b1 = await bob.groups.join(groupCode(first, g1))
    const b2 = await bob.groups.join(groupCode(first, g2))
    await until(b1, (s) => s.membership.status === 'member')
    await until(b2, (s) => s.membership.status === 'member')
    const ids = [alice.groups.subscriptionId(a1.key), alice.groups.subscriptionId(a2.key)]
    expect(ids[0]).toMatch(/^grp-[0-9a-f]{8}$/)

    for (let i = 0; i < 5; i++) await b1.sendMessage(`one before ${i}`)
    await until(a1, (s) => s.messages.filter((m) => m.content.startsWith('one before')).length === 5)

    gate.offline = true
    await first.close() // mid-stream: Alice's standing REQs die with the sockets
    const second = await h.relay({ db, secretKey, port, profile: 'groups_relay' })
    expect(second.url).toBe(first.url)

    // More than the timeline filter's limit of 100, sent before Alice is back.
    for (let i = 0; i < 110; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, j) => b1.sendMessage(`one during ${i + j}`)))
    }
    await Promise.all(Array.from({ length: 5 }, (_, i) => b2.sendMessage(`two during ${i}`)))
    expect(alice.pool.connected(first.url)).toBe(false)
    expect(a1.snapshot().messages.some((m) => m.content.startsWith('one during'))).toBe(false)
    gate.offline = false

    const s1 = await until(
      a1,
      (s) => s.messages.filter((m) => m.content.startsWith('one during')).length === 110,
    )
    const s2 = await until(
      a2,
      (s) => s.messages.filter((m) => m.content.startsWith('two during')).length === 5,
    )
    expect(s1.messages.some((m) => m.content.startsWith('two'))).toBe(false)
    expect(s2.messages.some((m) => m.content.startsWith('one'))).toBe(false)
    expect(new Set(s1.messages.map((m) => m.id)).size).toBe(s1.messages.length) // no duplicates
    expect([alice.groups.subscriptionId(a1.key), alice.groups.subscriptionId(a2.key)]).toEqual(ids)

    // and live traffic still flows after the resume
    const after = await b2.sendMessage('two after')
    await until(a2, (s) => s.messages.some((m) => m.id === after.id))
    expect(a1.snapshot().messages.some((m) => m.id === after.id)).toBe(false)
  })

  it('the same id on two relays stays two groups: separate timelines, metadata and caches', async () => {
    const relayA = await h.relay()
    const relayB = await h.relay()
    await relayA.createGroup({ id: 'general', name: 'General on A' })
    await relayB.createGroup({ id: 'general', name: 'General on B' })
    const alice = client()
    const ga = await alice.groups.join(groupCode(relayA, 'general'))
    const gb = await alice.groups.join(groupCode(relayB, 'general'))
    expect(ga).not.toBe(gb)
    expect(alice.groups.groups()).toHaveLength(2)
    await until(ga, (s) => s.metadata?.name === 'General on A' && s.membership.status === 'member')
    await until(gb, (s) => s.metadata?.name === 'General on B' && s.membership.status === 'member')
    const onA = await ga.sendMessage('only on A')
    const onB = await gb.sendMessage('only on B')
    expect(ga.snapshot().messages.map((m) => m.id)).toContain(onA.id)
    expect(ga.snapshot().messages.map((m) => m.id)).not.toContain(onB.id)
    expect(gb.snapshot().messages.map((m) => m.id)).not.toContain(onA.id)

    await alice.groups.idle()
    await alice.groups.leave(ga.key)
    expect(alice.groups.group(ga.key)).toBeUndefined()
    expect(alice.groups.group(gb.key)).toBe(gb)
    const store = (alice as unknown as { groups: { opts: { store: import('../src').EventStore } } }).groups
      .opts.store
    expect(await store.query({ fork: ga.key.toString() })).toEqual([])
    expect((await store.query({ fork: gb.key.toString() })).map((e) => e.id)).toContain(onB.id)
    expect(alice.groups.groupList().keys().map(String)).toEqual([gb.key.toString()])
  })
})
