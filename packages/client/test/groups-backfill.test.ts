import { join } from 'node:path'
import type { NostrEvent } from 'nostr-tools/core'
import { afterEach, describe, expect, it } from 'vitest'
import type { Group, GroupSnapshot } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
const PATIENCE = 20_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
afterEach(() => h.close())

describe('a group backfills its cached window by NIP-77 after a restart', () => {
  it('fills the hole the newest-100 REQ leaves and drops an event deleted before it, in the timeline and the store', async () => {
    const relay = await h.relay()
    const alice = h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
    const id = await relay.createGroup({ name: 'Away', admins: [await alice.signer.getPublicKey()] })
    const a = await alice.groups.join(groupCode(relay, id))
    await until(a, (s) => s.membership.status === 'member')
    const path = join(h.tmp(), 'bob.db')
    const bobFirst = h.roost({ store: SqliteEventStore.open(path), pool: { eoseTimeout: PATIENCE } })
    const b1 = await bobFirst.groups.join(groupCode(relay, id))
    await until(b1, (s) => s.membership.status === 'member')
    const seen: NostrEvent[] = []
    for (let i = 0; i < 5; i++) seen.push(await a.sendMessage(`before ${i}`))
    await until(b1, (s) => s.messages.length === 5)
    await bobFirst.close()

    // While Bob is away: a moderator deletes one message he cached, then 150 new messages come,
    // more than the newest 100 his standing REQ asks for, so the REQ alone sees neither the
    // deletion nor the 50 oldest of them.
    const doomed = seen[1]!
    await a.deleteEvent(doomed.id)
    const fresh: NostrEvent[] = []
    for (let i = 0; i < 150; i++) fresh.push(await a.sendMessage(`after ${i}`))

    const bob = h.roost({ store: SqliteEventStore.open(path), pool: { eoseTimeout: PATIENCE } })
    const b = await bob.groups.join(groupCode(relay, id))
    const want = [...seen.filter((e) => e.id !== doomed.id), ...fresh].map((e) => e.id).sort()
    const done = await until(
      b,
      (s) => s.messages.length === want.length && !s.messages.some((m) => m.id === doomed.id),
    )
    expect(done.messages.map((m) => m.id).sort()).toEqual(want)
    const stored = await SqliteEventStore.open(path)
    h.defer(() => stored.close())
    const kept = (await stored.query({ fork: b.key.toString(), kinds: [9] })).map((e) => e.id)
    expect(kept).not.toContain(doomed.id)
  })

  it('after a reconnect, drops a message its author withdrew with a kind 5 that names no group (no REQ of the group sees it)', async () => {
    const relay = await h.relay()
    const id = await relay.createGroup({ name: 'Withdrawn' })
    const alice = h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
    const bob = h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
    const a = await alice.groups.join(groupCode(relay, id))
    const b = await bob.groups.join(groupCode(relay, id))
    await until(a, (s) => s.membership.status === 'member')
    await until(b, (s) => s.membership.status === 'member')
    const gone = await a.sendMessage('I take this back')
    const stays = await a.sendMessage('this stays')
    await until(b, (s) => s.messages.some((m) => m.id === stays.id))
    // NIP-09 from another client: no `h` tag, so neither the live REQ nor its resume carries it.
    const withdrawal = await alice.signer.signEvent({
      kind: 5,
      tags: [['e', gone.id]],
      content: '',
      created_at: Math.floor(Date.now() / 1000),
    })
    const [ok] = await alice.pool.publish([relay.url], withdrawal)
    expect(ok?.ok).toBe(true)
    expect(b.snapshot().messages.some((m) => m.id === gone.id)).toBe(true)
    bob.pool.disconnect(relay.url)
    await until(b, (s) => !s.messages.some((m) => m.id === gone.id))
    expect(b.snapshot().messages.some((m) => m.id === stays.id)).toBe(true)
  })
})
