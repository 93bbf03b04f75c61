import { join } from 'node:path'
import { nip19 } from 'nostr-tools'
import { afterEach, describe, expect, it } from 'vitest'
import { CannotSendError, type Group, type GroupSnapshot, PublishRefusedError } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import {
  groupCode,
  Harness,
  recordingWebSocket,
  refusals,
  until as untilWithin,
  type WireLog,
} from './helpers'

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

describe('sending', () => {
  it('a stale `previous` window is refused, refreshed from the relay, and the retry succeeds (relay29)', async () => {
    // One fake clock for the relay and both clients, ticking once per message, so that
    // created_at order is arrival order (a REQ cannot reproduce the relay's arrival ring within
    // one second: it orders ties by id).
    let t = 1_900_000_000
    const clock = () => t
    const relay = await h.relay({ profile: 'relay29', clock })
    const id = await relay.createGroup({ name: 'Busy' })
    const path = join(h.tmp(), 'alice.db')
    const bob = client({ clock })
    const b = await bob.groups.join(groupCode(relay, id))
    await until(b, (s) => s.membership.status === 'member')

    const alice1 = client({ clock, store: SqliteEventStore.open(path) })
    const a1 = await alice1.groups.join(groupCode(relay, id))
    await until(a1, (s) => s.membership.status === 'member')
    for (let i = 0; i < 3; i++) {
      t++
      await b.sendMessage(`old ${i}`)
    }
    await until(a1, (s) => s.messages.filter((m) => m.content.startsWith('old')).length === 3)
    await alice1.close()

    // While Alice is away the group moves on: the relay's ring of 50 no longer holds what she saw.
    for (let i = 0; i < 52; i++) {
      t++
      await b.sendMessage(`new ${i}`)
    }

    const log: WireLog = { sent: [], received: [] }
    const alice2 = client({
      clock,
      signer: alice1.signer,
      store: SqliteEventStore.open(path),
      pool: { websocket: recordingWebSocket(log) },
    })
    await alice2.groups.ready
    const a2 = alice2.groups.group(groupCode(relay, id))!
    expect(a2.snapshot().messages.map((m) => m.content)).toContain('old 2') // from the cache, before any network
    t++
    const sent = await a2.sendMessage('back again') // the window still holds the old events

    const refused = refusals(log)
    expect(refused).toHaveLength(1)
    expect(refused[0]![1]).toMatch(/^blocked: previous id '[0-9a-f]{8}' wasn't found in this relay$/)
    const previous = sent.tags.find((t) => t[0] === 'previous')!.slice(1)
    expect(previous).toHaveLength(3)
    const bobs = await bob.pool.fetch(
      [relay.url],
      [{ '#h': [id], authors: [await bob.signer.getPublicKey()], limit: 3 }],
    )
    expect(previous.sort()).toEqual(bobs.map((e) => e.id.slice(0, 8)).sort()) // Bob's three newest
    await until(b, (s) => s.messages.some((m) => m.id === sent.id))
  })

  for (const how of ['a moderator’s 9005', 'the author’s NIP-09 kind 5'] as const) {
    it(`after ${how} deletes a message, the next post is accepted the first time (the window drops it)`, async () => {
      const relay = await h.relay({ profile: 'relay29' })
      const log: WireLog = { sent: [], received: [] }
      const alice = client({ pool: { websocket: recordingWebSocket(log) } })
      const id = await relay.createGroup({ name: 'Tidy', admins: [await alice.signer.getPublicKey()] })
      const bob = client()
      const a = await alice.groups.join(groupCode(relay, id))
      const b = await bob.groups.join(groupCode(relay, id))
      await until(a, (s) => s.membership.status === 'member')
      await until(b, (s) => s.membership.status === 'member')
      const bobs = []
      for (let i = 0; i < 3; i++) bobs.push(await b.sendMessage(`bob ${i}`))
      const last = bobs[2]!
      await until(a, (s) => s.messages.some((m) => m.id === last.id))
      expect(a.snapshot().messages.some((m) => m.id === last.id)).toBe(true)

      if (how === 'a moderator’s 9005') await a.deleteEvent(last.id)
      else await b.deleteOwn(last)
      await until(a, (s) => !s.messages.some((m) => m.id === last.id)) // Alice has seen the deletion

      log.sent.length = 0
      log.received.length = 0
      const sent = await a.sendMessage('after the deletion')
      expect(refusals(log)).toEqual([]) // no `previous id … wasn't found`, no retry
      expect(log.sent.filter((m) => m.startsWith('["EVENT"'))).toHaveLength(1)
      const previous = sent.tags.find((t) => t[0] === 'previous')?.slice(1) ?? []
      expect(previous).not.toContain(last.id.slice(0, 8))
      expect(previous).toEqual(expect.arrayContaining([bobs[1]!.id.slice(0, 8)]))
      await until(b, (s) => s.messages.some((m) => m.id === sent.id))
    })
  }

  it('a reply carries the NIP-C7 shape over the relay: e and q tags, and the quoted event’s nevent link before the text', async () => {
    const relay = await h.relay()
    const id = await relay.createGroup({ name: 'Quotes' })
    const alice = client()
    const bob = client()
    const a = await alice.groups.join(groupCode(relay, id))
    const b = await bob.groups.join(groupCode(relay, id))
    await until(a, (s) => s.membership.status === 'member')
    await until(b, (s) => s.membership.status === 'member')
    const parent = await a.sendMessage('lunch?')
    await until(b, (s) => s.messages.some((m) => m.id === parent.id))
    const row = b.snapshot().messages.find((m) => m.id === parent.id)!
    const reply = await b.sendMessage('yes', { replyTo: row })

    const [stored] = await alice.pool.fetch([relay.url], [{ ids: [reply.id] }])
    const link = `nostr:${nip19.neventEncode({ id: parent.id, relays: [relay.url], author: parent.pubkey, kind: 9 })}`
    expect(stored!.content).toBe(`${link}\nyes`)
    expect(stored!.tags).toEqual(
      expect.arrayContaining([
        ['e', parent.id],
        ['q', parent.id, relay.url, parent.pubkey],
      ]),
    )
    const seen = await until(a, (s) => s.messages.some((m) => m.id === reply.id))
    expect(seen.messages.find((m) => m.id === reply.id)!.replyTo).toEqual([parent.id])
  })

  it('a reply in thread on a chat message (NIP-22, K 9): a thread of its own for every member, counted under the message', async () => {
    const relay = await h.relay()
    const id = await relay.createGroup({ name: 'Slack-like' })
    const alice = client()
    const bob = client()
    const a = await alice.groups.join(groupCode(relay, id))
    const b = await bob.groups.join(groupCode(relay, id))
    await until(a, (s) => s.membership.status === 'member')
    await until(b, (s) => s.membership.status === 'member')
    const question = await a.sendMessage('who has the slides?')
    await until(b, (s) => s.messages.some((m) => m.id === question.id))

    // A chat message is a thread root before anyone replies: an empty thread, not counted as one.
    const empty = b.thread(question.id)!
    expect(empty.root.id).toBe(question.id)
    expect(empty.comments).toEqual([])
    expect(b.threads()).toEqual([])
    expect(b.snapshot().messages.find((m) => m.id === question.id)!.thread).toBeUndefined()

    const comment = await b.comment(empty.root, empty.root, 'I do')
    expect(comment.kind).toBe(1111)
    expect(comment.tags).toEqual(
      expect.arrayContaining([
        ['h', id],
        ['E', question.id, relay.url, question.pubkey],
        ['K', '9'],
        ['e', question.id, relay.url, question.pubkey],
        ['k', '9'],
      ]),
    )
    for (const g of [a, b]) {
      const s = await until(g, (s) => s.threads.some((t) => t.root.id === question.id))
      const row = s.messages.find((m) => m.id === question.id)!
      expect(row.thread).toEqual({ title: '', comments: 1, lastCommentAt: comment.created_at })
      expect(g.thread(question.id)!.comments.map((c) => c.id)).toEqual([comment.id])
      expect(s.messages.some((m) => m.id === comment.id)).toBe(false) // in the thread, not the channel
    }
    // The author withdraws it: the chat message is no thread any more.
    await b.deleteOwn(comment)
    await until(a, (s) => !s.threads.some((t) => t.root.id === question.id))
    expect(a.snapshot().messages.find((m) => m.id === question.id)!.thread).toBeUndefined()
  })

  it('a late message (clock behind the relay’s window) is refused with the relay’s text and not shown', async () => {
    const relay = await h.relay({ profile: 'strict', lateWindow: 60 })
    const id = await relay.createGroup({ name: 'Clock' })
    let skew = 0
    const erin = client({ clock: () => Math.floor(Date.now() / 1000) - skew })
    const g = await erin.groups.join(groupCode(relay, id))
    await until(g, (s) => s.membership.status === 'member')
    skew = 3600
    const err = await g.sendMessage('an hour late').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PublishRefusedError)
    expect((err as PublishRefusedError).relayMessage).toBe('blocked: event too old')
    expect((err as PublishRefusedError).prefix).toBe('blocked')
    expect(g.snapshot().messages.some((m) => m.content === 'an hour late')).toBe(false)
  })

  it('canSend says why not: supported_kinds without 9, or a restricted group we are not in', async () => {
    const relay = await h.relay({ profile: 'strict' })
    const noChat = await relay.createGroup({ name: 'Threads only', supportedKinds: [11, 1111, 7] })
    const restricted = await relay.createGroup({ name: 'Announcements', restricted: true, closed: true })
    const frank = client()
    const g1 = await frank.groups.join(groupCode(relay, noChat))
    await until(g1, (s) => s.metadata !== undefined && s.membership.status === 'member')
    expect(g1.canSend()).toEqual({ ok: false, reason: 'unsupported-kind', detail: expect.any(String) })
    expect(g1.canSend(11)).toEqual({ ok: true })
    await expect(g1.sendMessage('nope')).rejects.toBeInstanceOf(CannotSendError)
    const thread = await g1.postThread('Plans', 'What next?')
    await g1.comment(thread, thread, 'first!')
    const t = await until(g1, (s) => s.threads[0]?.comments.length === 1)
    expect(t.threads[0]!.root.thread).toEqual({
      title: 'Plans',
      comments: 1,
      lastCommentAt: expect.any(Number),
    })
    expect(t.messages.map((m) => m.kind)).toEqual([11]) // comments live in the thread, not the channel

    const g2 = await frank.groups.join(groupCode(relay, restricted))
    const s2 = await until(g2, (s) => s.metadata !== undefined) // canSend reads `restricted` from it
    expect(s2.membership.status).toBe('refused')
    expect(s2.canSend).toEqual({
      ok: false,
      reason: 'refused',
      detail: s2.membership.status === 'refused' ? s2.membership.reason : '',
    })
  })

  it('canSend is false in a closed group we are not in, and the strict relay agrees', async () => {
    const relay = await h.relay({ profile: 'strict' })
    const id = await relay.createGroup({ name: 'Closed club', closed: true })
    const gina = client()
    const g = await gina.groups.join(groupCode(relay, id))
    const s = await until(g, (s) => s.metadata !== undefined && s.membership.status === 'refused')
    expect(s.canSend).toMatchObject({ ok: false, reason: 'refused' })
    await expect(g.sendMessage('let me in')).rejects.toBeInstanceOf(CannotSendError)
    // What canSend predicts is what the relay does with a hand-built write from a non-member.
    const tpl = g.key.id.message('let me in', { createdAt: Math.floor(Date.now() / 1000) })
    const [result] = await gina.pool.publish([relay.url], await gina.signer.signEvent(tpl))
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/^(blocked|restricted): /) })
  })
})
