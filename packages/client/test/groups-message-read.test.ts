/**
 * Group.markMessageRead: a reply revealed in a thread panel is marked by its own `msg:<id>`
 * context (NIP-RS Write Discipline), the thread stays unread until every reply is read, and
 * neither the channel nor the thread context moves.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ReadStateSync } from '../src/read-state'
import { groupCode, Harness, until } from './helpers'

const h = new Harness()
afterEach(() => h.close())

async function threadWithThreeReplies() {
  const relay = await h.relay()
  const id = await relay.createGroup({ name: 'Threads' })
  const bob = h.roost()
  const b = await bob.groups.join(groupCode(relay, id))
  await until(b, (s) => s.membership.status === 'member')
  const root = await b.postThread('Friday', 'Who is in?')
  const replies = []
  for (const text of ['me', 'me too', 'maybe']) replies.push(await b.comment(root, root, text))

  const alice = h.roost()
  const sync = alice.readState
  if (!(sync instanceof ReadStateSync)) throw new Error('expected the built-in ReadStateSync')
  await sync.ready
  const a = await alice.groups.join(groupCode(relay, id))
  await until(a, (s) => s.threads.some((t) => t.comments.length === 3) && s.unreadThreads.includes(root.id))
  return { alice, a, sync, root, replies }
}

describe('Group.markMessageRead', () => {
  it('keeps the thread unread until every reply is marked by message, without moving channel or thread', async () => {
    const { a, sync, root, replies } = await threadWithThreeReplies()
    const channel = a.key.toString()
    const unreadBefore = a.unread()

    a.markMessageRead(replies[0]!.id)
    a.markMessageRead(replies[1]!.id)
    expect(a.snapshot().unreadThreads).toEqual([root.id])
    expect(sync.contexts[`msg:${replies[0]!.id}`]).toBe(replies[0]!.created_at)
    expect(sync.contexts[`msg:${replies[1]!.id}`]).toBe(replies[1]!.created_at)

    a.markMessageRead(replies[2]!.id)
    expect(a.snapshot().unreadThreads).toEqual([])

    // Write Discipline: only msg: contexts advanced.
    expect(sync.effective(channel)).toBeUndefined()
    expect(sync.effective(`thread:${root.id}`)).toBeUndefined()
    expect(Object.keys(sync.contexts).sort()).toEqual(replies.map((r) => `msg:${r.id}`).sort())
    // The channel's top-level rows (the thread root) are still unread.
    expect(a.unread()).toBe(unreadBefore)
    expect(a.unread()).toBeGreaterThan(0)
  })

  it('the hierarchical rule: a msg: mark is effective as max(msg, channel)', async () => {
    const { a, sync, replies } = await threadWithThreeReplies()
    const reply = replies[0]!
    a.markMessageRead(reply.id)
    expect(sync.effective(`msg:${reply.id}`)).toBe(reply.created_at)
    a.markRead(reply.created_at + 100)
    expect(sync.effective(`msg:${reply.id}`)).toBe(reply.created_at + 100)
    expect(a.snapshot().unreadThreads).toEqual([])
  })

  it('ignores unknown ids and writes nothing', async () => {
    const { a, sync, root } = await threadWithThreeReplies()
    a.markMessageRead('f'.repeat(64))
    a.markMessageRead('not an id')
    expect(sync.contexts).toEqual({})
    expect(a.snapshot().unreadThreads).toEqual([root.id])
  })

  it('a reply’s msg: parent is its channel, not its thread (NIP-RS hierarchical frontier rule)', async () => {
    const { alice, a, sync, root, replies } = await threadWithThreeReplies()
    const channel = a.key.toString()
    expect(alice.groups.parentOf(`msg:${replies[0]!.id}`)).toBe(channel)
    expect(alice.groups.parentOf(`thread:${root.id}`)).toBe(channel)
    // so the thread's frontier does not make a reply's own mark inert (dominance uses the base rule)
    sync.markRead(`thread:${root.id}`, replies[2]!.created_at)
    a.markMessageRead(replies[0]!.id)
    expect(sync.effective(`msg:${replies[0]!.id}`)).toBe(replies[0]!.created_at)
    expect(a.snapshot().unreadThreads).toEqual([]) // the display still folds in the thread (the MAY)
  })
})
