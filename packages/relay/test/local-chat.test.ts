import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseCli } from '../src/cli-args'
import { connect, fetch, h, live, publish, relay, user } from './helpers'

async function nip11(url: string): Promise<{ roost: { local_chat: boolean } }> {
  const res = await globalThis.fetch(url.replace('ws://', 'http://'), {
    headers: { Accept: 'application/nostr+json' },
  })
  return (await res.json()) as { roost: { local_chat: boolean } }
}

describe("NIP-29's relay-local group '_'", () => {
  it('is closed by default: a post and a 9007 creating it are refused with a reason that says so', async () => {
    const r = await relay()
    const alice = user()
    const c = await connect(r.url)
    const post = await publish(c, alice.sign({ kind: 9, content: 'hello relay', tags: h('_') }))
    expect(post.ok).toBe(false)
    expect(post.message).toMatch(/^restricted: group '_' \(relay-local chat\) is not open on this relay/)
    const create = await publish(c, alice.sign({ kind: 9007, tags: h('_') }))
    expect(create).toMatchObject({ ok: false, message: expect.stringMatching(/--local-chat/) })
    expect(r.state('_')).toBeUndefined()
    expect((await fetch(c, [{ '#h': ['_'] }])).events).toEqual([])
    expect((await nip11(r.url)).roost.local_chat).toBe(false)
  })

  it('opened with localChat: the relay makes it, and anyone posts to it through nostr-tools without joining', async () => {
    const operator = user()
    const r = await relay({ localChat: true, admins: [operator.pk] })
    expect(r.state('_')).toMatchObject({ closed: false, private: false, admins: [{ pubkey: operator.pk }] })
    expect((await nip11(r.url)).roost.local_chat).toBe(true)
    const alice = user()
    const bob = user()
    const watcher = await connect(r.url)
    const feed = live(watcher, [{ kinds: [9], '#h': ['_'] }])
    await feed.ready
    const c = await connect(r.url)
    const meta = await fetch(c, [{ kinds: [39000], '#d': ['_'] }])
    expect(meta.events[0]?.tags).toContainEqual(['name', 'Relay chat'])
    const hello = alice.sign({ kind: 9, content: 'hello relay', tags: h('_') })
    expect(await publish(c, hello)).toEqual({ ok: true, message: '' })
    expect((await feed.next((e) => e.id === hello.id)).content).toBe('hello relay')
    // A reply, a reaction: the other kinds a chat carries.
    const reply = bob.sign({ kind: 9, content: 'hi', tags: h('_', ['q', hello.id]) })
    expect((await publish(c, reply)).ok).toBe(true)
    expect((await publish(c, bob.sign({ kind: 7, content: '+', tags: h('_', ['e', hello.id]) }))).ok).toBe(
      true,
    )
    expect(r.state('_')?.members).not.toContain(alice.pk)
    const stored = await fetch(c, [{ kinds: [9], '#h': ['_'] }])
    expect(stored.events.map((e) => e.id).sort()).toEqual([hello.id, reply.id].sort())
    // Its moderation is its admins' (the operators'), as in any group.
    const kick = await publish(c, bob.sign({ kind: 9001, tags: h('_', ['p', alice.pk]) }))
    expect(kick.ok).toBe(false)
    const removal = operator.sign({ kind: 9005, tags: h('_', ['e', reply.id]) })
    expect((await publish(c, removal)).ok).toBe(true)
  })

  it('anyone posts to it on a relay whose other groups are members-only (relay29), and a restart keeps one', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'roost-local-chat-')), 'relay.db')
    const r = await relay({ localChat: true, profile: 'relay29', db })
    const c = await connect(r.url)
    expect((await publish(c, user().sign({ kind: 9, content: 'hi', tags: h('_') }))).ok).toBe(true)
    await r.close()
    const again = await relay({ localChat: true, profile: 'relay29', db })
    const c2 = await connect(again.url)
    expect((await fetch(c2, [{ kinds: [39000], '#d': ['_'] }])).events).toHaveLength(1)
    expect((await fetch(c2, [{ kinds: [9], '#h': ['_'] }])).events).toHaveLength(1)
  })

  it('--local-chat opens it from the command line', () => {
    expect(parseCli(['--local-chat'])).toMatchObject({ ok: true, options: { localChat: true } })
    const plain = parseCli([])
    expect(plain.ok && plain.options.localChat).toBeUndefined()
  })
})
