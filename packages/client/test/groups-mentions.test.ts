/**
 * The mention badge (`snapshot().mentions`): unread messages and thread replies by others that
 * mention us, by the same read rules as the unread count; and the writes around mentions and
 * reactions: `sendMessage` p-tags everyone the content mentions, `unreact` withdraws our reaction.
 */
import { mentionsPubkey, mentionUri } from '@roost/nip29'
import { isUnread, maxDefined } from '@roost/read-state'
import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools/core'
import { afterEach, describe, expect, it } from 'vitest'
import type { Group, GroupSnapshot } from '../src'
import { CHANNEL, event, ME, movingReadState, offlineGroup } from './group-fixtures'
import { groupCode, Harness, until as untilWithin } from './helpers'

const OTHER = '3'.repeat(64)

describe('the mention badge', () => {
  it('counts unread mentions by others, in content or p tag, in the channel and in threads', () => {
    const rs = movingReadState()
    const g = offlineGroup({ readState: rs })
    const byUri = event(9, OTHER, 10, [], `hey ${mentionUri(ME)} look`)
    const byTag = event(9, OTHER, 11, [['p', ME]], 'tagged')
    const plain = event(9, OTHER, 12, [], 'no mention')
    const mine = event(9, ME, 13, [], `note to self ${mentionUri(ME)}`)
    // A reaction p-tags the author it answers: that is not a mention.
    const reaction = event(
      7,
      OTHER,
      14,
      [
        ['e', mine.id],
        ['p', ME],
        ['k', '9'],
      ],
      '+',
    )
    const root = event(11, OTHER, 15, [['title', 'Plans']], 'plans')
    const reply = event(
      1111,
      OTHER,
      16,
      [
        ['E', root.id],
        ['K', '11'],
        ['e', root.id],
        ['k', '11'],
      ],
      `${mentionUri(ME)}?`,
    )
    g.ingestMany([byUri, byTag, plain, mine, reaction, root, reply])
    expect(g.snapshot().mentions).toBe(3)
    expect(g.group.unreadMentions()).toBe(3)

    rs.markRead(`msg:${byUri.id}`, byUri.created_at)
    expect(g.snapshot().mentions).toBe(2)
    rs.markRead(`thread:${root.id}`, reply.created_at)
    expect(g.snapshot().mentions).toBe(1)
    // The author withdraws the tagged message (kind 5): it no longer counts.
    g.ingest(
      event(
        5,
        OTHER,
        20,
        [
          ['e', byTag.id],
          ['k', '9'],
        ],
        '',
      ),
    )
    expect(g.snapshot().mentions).toBe(0)
    const later = event(9, OTHER, 30, [], `again ${mentionUri(ME)}`)
    g.ingest(later)
    expect(g.snapshot().mentions).toBe(1)
    rs.markRead(CHANNEL, 30)
    expect(g.snapshot().mentions).toBe(0)
  })

  it('is 0 without read state, and a stranger withdrawing a mention changes nothing', () => {
    const g = offlineGroup()
    g.ingest(event(9, OTHER, 10, [['p', ME]], 'hi'))
    expect(g.snapshot().mentions).toBe(0)
    const rs = movingReadState()
    const h = offlineGroup({ readState: rs })
    const m = event(9, OTHER, 10, [['p', ME]], 'hi')
    h.ingestMany([m, event(5, '4'.repeat(64), 11, [['e', m.id]], '')])
    expect(h.snapshot().mentions).toBe(1)
  })

  it('equals a recount over the visible rows after any arrivals and marks', () => {
    type Op =
      | { op: 'row'; author: number; at: number; mention: 0 | 1 | 2 }
      | { op: 'mark'; msg: boolean; target: number; at: number }
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        op: fc.constant('row' as const),
        author: fc.integer({ min: 0, max: 1 }),
        at: fc.integer({ min: 1, max: 10 }),
        mention: fc.constantFrom(0 as const, 1 as const, 2 as const),
      }),
      fc.record({
        op: fc.constant('mark' as const),
        msg: fc.boolean(),
        target: fc.nat(30),
        at: fc.integer({ min: 1, max: 10 }),
      }),
    )
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const rs = movingReadState()
        const g = offlineGroup({ readState: rs })
        const made: NostrEvent[] = []
        let n = 0
        for (const o of ops) {
          if (o.op === 'row') {
            const tags = o.mention === 2 ? [['p', ME]] : []
            const content = `${n++} ${o.mention === 1 ? mentionUri(ME) : ''}`
            const e = event(9, o.author === 0 ? ME : OTHER, o.at, tags, content)
            made.push(e)
            g.ingest(e)
          } else if (o.msg && made.length > 0) {
            const e = made[o.target % made.length]!
            rs.markRead(`msg:${e.id}`, e.created_at)
          } else rs.markRead(CHANNEL, o.at)
          const s = g.snapshot()
          const expected = s.messages.filter(
            (m) =>
              m.pubkey !== ME &&
              mentionsPubkey(m.event, ME) &&
              isUnread(m.createdAt, maxDefined(rs.contexts[`msg:${m.id}`], rs.contexts[CHANNEL])),
          ).length
          expect(s.mentions).toBe(expected)
        }
      }),
    )
  })
})

const h = new Harness()
const PATIENCE = 15_000
const until = (g: Group, predicate: (s: GroupSnapshot) => boolean) => untilWithin(g, predicate, PATIENCE)
const client = () => h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
afterEach(() => h.close())

describe('mention and reaction writes', () => {
  it('p-tags each person the content mentions, and a second tap withdraws our reaction live', async () => {
    const relay = await h.relay({ profile: 'roost' })
    const id = await relay.createGroup({ name: 'Mentions' })
    const alice = client()
    const bob = client()
    const a = await alice.groups.join(groupCode(relay, id))
    const b = await bob.groups.join(groupCode(relay, id))
    await until(a, (s) => s.membership.status === 'member')
    await until(b, (s) => s.membership.status === 'member')
    const bobKey = await bob.signer.getPublicKey()
    const sent = await a.sendMessage(`thanks ${mentionUri(bobKey)} and ${mentionUri(bobKey)}!`)
    expect(sent.tags.filter((t) => t[0] === 'p')).toEqual([['p', bobKey]])
    const extra = await a.sendMessage('ping', { mentions: [bobKey] })
    expect(extra.tags).toContainEqual(['p', bobKey])
    await until(b, (s) => s.messages.some((m) => m.id === extra.id))

    await b.react(sent, '👍')
    await b.react(sent, '🎉')
    await until(a, (s) => s.messages.find((m) => m.id === sent.id)?.reactions.length === 2)
    // Not ours to withdraw: nothing is sent.
    expect(await a.unreact(sent, '👍')).toEqual([])
    const withdrawn = await b.unreact(sent, '👍')
    expect(withdrawn).toHaveLength(1)
    expect(withdrawn[0]!.kind).toBe(5)
    await until(a, (s) => {
      const r = s.messages.find((m) => m.id === sent.id)?.reactions ?? []
      return r.length === 1 && r[0]!.emoji === '🎉'
    })
  })
})
