import { nip19, nip22, verifyEvent } from 'nostr-tools'
import { finalizeEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { GroupId, InvalidArgumentError } from '../src/index'
import { alice, aliceSecret, bob, bobSecret, signed } from './helpers'

const id = GroupId.parse('general')
const parent = signed(bobSecret, 9, [['h', 'general']], { content: 'hi' })

describe('GroupId.message', () => {
  it('is a kind 9 with the h tag first, the content and the given created_at', () => {
    expect(id.message('hello', { createdAt: 1234 })).toEqual({
      kind: 9,
      content: 'hello',
      tags: [['h', 'general']],
      created_at: 1234,
    })
  })

  it('carries an e tag per reply target, and a NIP-C7 q tag with relay and author when known', () => {
    const t = id.message('same', { replyTo: { id: parent.id, pubkey: parent.pubkey, relay: 'wss://r' } })
    expect(t.tags).toEqual([
      ['h', 'general'],
      ['e', parent.id],
      ['q', parent.id, 'wss://r', bob],
    ])
    const two = id.message('both', { replyTo: [parent.id, { id: 'a'.repeat(64), relay: 'wss://r' }] })
    expect(two.tags.filter((x) => x[0] === 'e').map((x) => x[1])).toEqual([parent.id, 'a'.repeat(64)])
    expect(two.tags.filter((x) => x[0] === 'q')).toEqual([
      ['q', parent.id],
      ['q', 'a'.repeat(64), 'wss://r'],
    ])
  })

  it('writes the NIP-C7 reply shape: a nostr:nevent1 link of the quoted event on its own line before the text', () => {
    const t = id.message('yes', {
      replyTo: { id: parent.id, pubkey: parent.pubkey, relay: 'wss://r', kind: 9 },
      createdAt: 1234,
    })
    const link = `nostr:${nip19.neventEncode({ id: parent.id, relays: ['wss://r'], author: bob, kind: 9 })}`
    expect(t).toEqual({
      kind: 9,
      content: `${link}\nyes`,
      tags: [
        ['h', 'general'],
        ['e', parent.id],
        ['q', parent.id, 'wss://r', bob],
      ],
      created_at: 1234,
    })
    expect(nip19.decode(link.slice('nostr:'.length))).toEqual({
      type: 'nevent',
      data: { id: parent.id, relays: ['wss://r'], author: bob, kind: 9 },
    })
    // a bare id: a link with the id alone; two targets: one line each, in order
    const other = 'a'.repeat(64)
    expect(id.message('both', { replyTo: [parent.id, other] }).content).toBe(
      `nostr:${nip19.neventEncode({ id: parent.id })}\nnostr:${nip19.neventEncode({ id: other })}\nboth`,
    )
    // text that already starts with the link does not get it twice; no reply, no link
    expect(
      id.message(`${link}\nyes`, { replyTo: { id: parent.id, pubkey: bob, relay: 'wss://r', kind: 9 } })
        .content,
    ).toBe(`${link}\nyes`)
    expect(id.message('plain').content).toBe('plain')
    expect(() => id.message('x', { replyTo: { id: parent.id, kind: -1 } })).toThrow(InvalidArgumentError)
  })

  it('adds previous as one tag, from the window tag or bare values, and only when non-empty', () => {
    expect(id.message('x', { previous: ['previous', 'aabbccdd', '11223344'] }).tags).toContainEqual([
      'previous',
      'aabbccdd',
      '11223344',
    ])
    expect(id.message('x', { previous: ['aabbccdd'] }).tags).toContainEqual(['previous', 'aabbccdd'])
    expect(id.message('x', { previous: ['previous'] }).tags).toEqual([['h', 'general']])
    expect(id.message('x', { previous: [] }).tags).toEqual([['h', 'general']])
    expect(id.message('x', { previous: undefined }).tags).toEqual([['h', 'general']])
  })

  it('signs into a valid event (defaults created_at to now)', () => {
    const before = Math.floor(Date.now() / 1000)
    const e = finalizeEvent(id.message('hello'), aliceSecret)
    expect(verifyEvent(e)).toBe(true)
    expect(e.created_at).toBeGreaterThanOrEqual(before)
  })

  it('rejects a reply target that is not an event id', () => {
    expect(() => id.message('x', { replyTo: 'nope' })).toThrow(InvalidArgumentError)
    expect(() => id.message('x', { replyTo: { id: parent.id, pubkey: 'x' } })).toThrow(InvalidArgumentError)
    expect(() => id.message(5 as unknown as string)).toThrow(InvalidArgumentError)
    expect(() => id.message('x', { replyTo: { id: parent.id, relay: 5 as unknown as string } })).toThrow(
      InvalidArgumentError,
    )
    expect(() => id.message('x', { replyTo: [null as unknown as string] })).toThrow(InvalidArgumentError)
  })
})

describe('GroupId.reaction', () => {
  it('is a kind 7 with h, e, p and k tags, the emoji as content', () => {
    const t = id.reaction(parent, '🔥', { createdAt: 5, previous: ['previous', '01020304'] })
    expect(t).toEqual({
      kind: 7,
      content: '🔥',
      tags: [
        ['h', 'general'],
        ['e', parent.id],
        ['p', bob],
        ['k', '9'],
        ['previous', '01020304'],
      ],
      created_at: 5,
    })
  })

  it('accepts the previous tag as the third argument (shorthand)', () => {
    expect(id.reaction(parent, '+', ['previous', '01020304']).tags).toContainEqual(['previous', '01020304'])
  })

  it('rejects bad targets and an empty emoji', () => {
    expect(() => id.reaction({ ...parent, id: 'x' }, '+')).toThrow(InvalidArgumentError)
    expect(() => id.reaction({ ...parent, pubkey: 'x' }, '+')).toThrow(InvalidArgumentError)
    expect(() => id.reaction({ ...parent, kind: -1 }, '+')).toThrow(InvalidArgumentError)
    expect(() => id.reaction(parent, '')).toThrow(InvalidArgumentError)
    expect(() => id.reaction(null as unknown as typeof parent, '+')).toThrow(InvalidArgumentError)
  })
})

describe('join and leave', () => {
  it('joinRequest is a kind 9021 with the code tag and the reason as content', () => {
    expect(id.joinRequest({ code: 'welcome', reason: 'hi!', createdAt: 9 })).toEqual({
      kind: 9021,
      content: 'hi!',
      tags: [
        ['h', 'general'],
        ['code', 'welcome'],
      ],
      created_at: 9,
    })
    expect(id.joinRequest({ createdAt: 9 }).tags).toEqual([['h', 'general']])
    expect(id.joinRequest({ code: '' }).tags).toEqual([['h', 'general']])
    expect(id.joinRequest().content).toBe('')
  })

  it('leaveRequest is a kind 9022, the reason given as options or as a string', () => {
    expect(id.leaveRequest({ reason: 'bye', createdAt: 3 })).toEqual({
      kind: 9022,
      content: 'bye',
      tags: [['h', 'general']],
      created_at: 3,
    })
    expect(id.leaveRequest('later').content).toBe('later')
    expect(id.leaveRequest().content).toBe('')
  })
})

describe('threads and comments', () => {
  const thread = signed(
    aliceSecret,
    11,
    [
      ['h', 'general'],
      ['title', 'Meetup'],
    ],
    { content: 'Who is in?' },
  )

  it('thread is a kind 11 with the title tag', () => {
    expect(id.thread('Meetup', 'Who is in?', { createdAt: 1, previous: ['aabbccdd'] })).toEqual({
      kind: 11,
      content: 'Who is in?',
      tags: [
        ['h', 'general'],
        ['title', 'Meetup'],
        ['previous', 'aabbccdd'],
      ],
      created_at: 1,
    })
    expect(() => id.thread('  ', 'x')).toThrow(InvalidArgumentError)
    expect(() => id.thread('t', 1 as unknown as string)).toThrow(InvalidArgumentError)
  })

  it('a top-level comment points at the thread as root and parent (NIP-22), read back by nostr-tools', () => {
    const t = id.comment(thread, thread, 'count me in', { relay: 'wss://groups.example.com', createdAt: 2 })
    expect(t.kind).toBe(1111)
    expect(t.tags).toEqual([
      ['h', 'general'],
      ['E', thread.id, 'wss://groups.example.com', alice],
      ['K', '11'],
      ['P', alice],
      ['e', thread.id, 'wss://groups.example.com', alice],
      ['k', '11'],
      ['p', alice],
    ])
    const parsed = nip22.parse(t)
    expect(parsed.root).toMatchObject({ id: thread.id, author: alice })
    expect(parsed.reply).toMatchObject({ id: thread.id })
    expect(parsed.rootKind).toBe(11)
  })

  it('a reply to a comment keeps the thread as root and the comment as parent', () => {
    const first = signed(bobSecret, 1111, [['h', 'general']], { content: 'me too' })
    const t = id.comment(thread, first, 'and me')
    expect(t.tags).toContainEqual(['E', thread.id, '', alice])
    expect(t.tags).toContainEqual(['e', first.id, '', bob])
    expect(t.tags).toContainEqual(['k', '1111'])
    expect(t.tags).toContainEqual(['p', bob])
  })

  it('rejects roots NIP-22 forbids and parents outside the thread', () => {
    const note = signed(bobSecret, 1, [], { content: 'note' })
    const comment = signed(bobSecret, 1111, [])
    expect(() => id.comment(note, note, 'x')).toThrow(InvalidArgumentError)
    expect(() => id.comment(comment, comment, 'x')).toThrow(InvalidArgumentError)
    expect(() => id.comment(thread, parent, 'x')).toThrow(InvalidArgumentError)
    expect(() => id.comment(thread, { ...thread, id: 'bad' }, 'x')).toThrow(InvalidArgumentError)
    expect(() => id.comment(thread, thread, 3 as unknown as string)).toThrow(InvalidArgumentError)
    expect(() => id.comment(thread, thread, 'x', { relay: 1 as unknown as string })).toThrow(
      InvalidArgumentError,
    )
    expect(() => id.comment(null as unknown as typeof thread, thread, 'x')).toThrow(InvalidArgumentError)
    expect(() => id.comment(thread, null as unknown as typeof thread, 'x')).toThrow(InvalidArgumentError)
  })
})
