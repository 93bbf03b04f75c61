/**
 * `group.reply(target, text)` answers each kind the way it asks for: a kind 9 message with a kind 9
 * reply, a kind 11 thread with a kind 1111 comment rooted at it, and a kind 1111 comment with a
 * comment in the same thread (the root found from the comment's tags) whose parent is the comment.
 * Real relay, real WebSockets, real signatures.
 */
import { KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { afterEach, describe, expect, it } from 'vitest'
import type { GroupEvent } from '../src'
import { groupCode, Harness, until } from './helpers'

const h = new Harness()
afterEach(() => h.close())

const PATIENCE = 15_000
const tag = (e: NostrEvent, name: string) => e.tags.find((t) => t[0] === name)

async function twoMembers() {
  const relay = await h.relay()
  const code = groupCode(relay, await relay.createGroup({ name: 'Replies' }))
  const client = () => h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
  const alice = client()
  const bob = client()
  const a = await alice.groups.join(code)
  const b = await bob.groups.join(code)
  await until(a, (s) => s.membership.status === 'member' && !s.loading, PATIENCE)
  await until(b, (s) => s.membership.status === 'member' && !s.loading, PATIENCE)
  return { a, b }
}

describe('group.reply', () => {
  it('a kind 9 message gets a kind 9 reply that quotes it, as sendMessage({ replyTo }) sends', async () => {
    const { a, b } = await twoMembers()
    const question = await b.sendMessage('anyone here?')
    await until(a, (s) => s.messages.some((m) => m.id === question.id), PATIENCE)
    const row = a.snapshot().messages.find((m) => m.id === question.id)!
    const answer = await a.reply(row, 'yes')
    expect(answer.kind).toBe(KINDS.chat)
    expect(answer.content).toBe('yes')
    expect(tag(answer, 'q')?.[1]).toBe(question.id)
    const seen = await until(b, (s) => s.messages.some((m) => m.id === answer.id), PATIENCE)
    expect(seen.messages.find((m) => m.id === answer.id)?.replyTo).toEqual([question.id])
  })

  it('a kind 11 thread gets a kind 1111 comment with the thread as root and parent', async () => {
    const { a, b } = await twoMembers()
    const thread = await b.postThread('Friday', 'pizza?')
    await until(a, (s) => s.threads.some((t) => t.root.id === thread.id), PATIENCE)
    const comment = await a.reply(a.thread(thread.id)!.root, 'count me in')
    expect(comment.kind).toBe(KINDS.comment)
    expect(tag(comment, 'E')?.[1]).toBe(thread.id)
    expect(tag(comment, 'K')?.[1]).toBe(String(KINDS.thread))
    expect(tag(comment, 'P')?.[1]).toBe(thread.pubkey)
    expect(tag(comment, 'e')?.[1]).toBe(thread.id)
    expect(tag(comment, 'k')?.[1]).toBe(String(KINDS.thread))
    const seen = await until(b, (s) => s.threads.some((t) => t.comments.length === 1), PATIENCE)
    expect(seen.threads.find((t) => t.root.id === thread.id)?.comments.map((c) => c.id)).toEqual([comment.id])
  })

  it('a kind 1111 comment gets a comment in the same thread, the comment as parent, root from its tags', async () => {
    const { a, b } = await twoMembers()
    const thread = await b.postThread('Friday', 'pizza?')
    await until(a, (s) => s.threads.some((t) => t.root.id === thread.id), PATIENCE)
    const heard = new Promise<NostrEvent>((resolve) => {
      const stop = b.subscribe((e: GroupEvent) => {
        if (e.type !== 'incoming' || e.event.kind !== KINDS.comment) return
        stop()
        resolve(e.event)
      })
    })
    const first = await a.comment(thread, thread, 'count me in')
    // bob answers the comment as a bot would: from the event alone, the thread not looked up
    const second = await b.reply(await heard, 'see you there')
    expect(second.kind).toBe(KINDS.comment)
    expect(tag(second, 'E')?.[1]).toBe(thread.id)
    expect(tag(second, 'K')?.[1]).toBe(String(KINDS.thread))
    expect(tag(second, 'P')?.[1]).toBe(thread.pubkey)
    expect(tag(second, 'e')?.[1]).toBe(first.id)
    expect(tag(second, 'k')?.[1]).toBe(String(KINDS.comment))
    expect(tag(second, 'p')?.[1]).toBe(first.pubkey)
    const seen = await until(a, (s) => s.threads.some((t) => t.comments.length === 2), PATIENCE)
    const comments = seen.threads.find((t) => t.root.id === thread.id)?.comments.map((c) => c.id)
    expect(comments).toEqual([first.id, second.id])
  })
})
