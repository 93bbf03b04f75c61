/**
 * A group's first page from the store is folded lazily (`GroupCore.ingestStored`): a cold start opens
 * every group but shows one. Whatever reads it, and whenever live events arrive, a group opened
 * that way must answer exactly as one that folded the page at once: rows and their order, threads,
 * reactions, deletions, unread and mention counts, membership, join requests, the `previous` tag a
 * send carries, and snapshots taken before a change keep showing what they showed.
 */
import { KINDS, mentionUri } from '@roost/nip29'
import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools/core'
import { describe, expect, it } from 'vitest'
import type { GroupSnapshot, ReadStateSource } from '../src'
import type { GroupCore } from '../src/groups/group-core'
import { CHANNEL, event, ME, offlineGroup, RELAY_KEY } from './group-fixtures'

const PEOPLE = [ME, '3'.repeat(64), '4'.repeat(64), RELAY_KEY]

function readState(contexts: Record<string, number>): ReadStateSource {
  return { contexts, frontier: (ctx) => contexts[ctx] ?? 0, markRead() {}, subscribe: () => () => {} }
}

function group(rs?: ReadStateSource, relayKey?: () => string): GroupCore {
  return offlineGroup({ readState: rs, relayKey, now: 10_000 })
}

/** What a user of the group sees, in plain values. */
function view(g: GroupCore, s: GroupSnapshot = g.snapshot()) {
  return {
    messages: s.messages.map((m) => ({
      id: m.id,
      reactions: m.reactions.map((r) => [r.emoji, r.count, r.mine]),
      thread: m.thread ? [m.thread.comments, m.thread.lastCommentAt] : undefined,
    })),
    threads: s.threads.map((t) => [t.root.id, t.comments.map((c) => c.id)]),
    unread: s.unread,
    unreadThreads: s.unreadThreads,
    mentions: s.mentions,
    membership: s.membership,
    joinRequests: s.joinRequests.map((r) => r.event.id),
  }
}

/** The `previous` tag a send from this group would carry now (decision 4). */
function previousTag(g: GroupCore): string[] | undefined {
  return g.window.previousTag(ME)
}

/**
 * A recipe for one event, built in order so that reactions, comments and deletions can point at
 * events made before them.
 */
const recipe = fc.record({
  kind: fc.constantFrom(9, 9, 9, 1, 11, 1111, 7, 5, KINDS.deleteEvent, KINDS.putUser, KINDS.joinRequest),
  author: fc.nat(PEOPLE.length - 1),
  at: fc.integer({ min: 100, max: 112 }), // few seconds: many ties
  target: fc.nat(),
  mention: fc.boolean(),
  other: fc.boolean(), // belongs to another group
})

type Recipe = typeof recipe extends fc.Arbitrary<infer T> ? T : never

function build(recipes: Recipe[], made: NostrEvent[]): NostrEvent[] {
  const out: NostrEvent[] = []
  for (const [i, r] of recipes.entries()) {
    const pubkey = PEOPLE[r.author]!
    const all = [...made, ...out]
    const target = all.length ? all[r.target % all.length] : undefined
    const tags: string[][] = []
    let content = `m${i} ${r.at}`
    if (r.mention) content += ` ${mentionUri(ME)}`
    if ((r.kind === 7 || r.kind === 5 || r.kind === KINDS.deleteEvent) && target) tags.push(['e', target.id])
    if (r.kind === 7) content = r.mention ? '🔥' : '+'
    if (r.kind === 1111) {
      const root = all.filter((e) => e.kind === 11)[r.target % Math.max(1, all.length)] ?? target
      if (root) tags.push(['E', root.id], ['K', '11'], ['e', root.id], ['k', '11'])
    }
    if (r.kind === KINDS.putUser) tags.push(['p', r.mention ? ME : PEOPLE[1]!])
    const e = event(r.kind, pubkey, r.at, tags, content)
    out.push(r.other ? event(r.kind, pubkey, r.at, [['h', 'elsewhere']], content) : e)
  }
  return out
}

describe('a stored page folded lazily', () => {
  it('answers exactly as the page folded at once, whatever is read first and whatever arrives', () => {
    fc.assert(
      fc.property(
        fc.array(recipe, { maxLength: 30 }),
        fc.array(recipe, { maxLength: 8 }),
        fc.dictionary(fc.constantFrom('channel', 'thread'), fc.integer({ min: 99, max: 113 })),
        fc.constantFrom('nothing', 'snapshot', 'messages', 'unread', 'previous'),
        fc.boolean(),
        (pageRecipes, liveRecipes, marks, readFirst, withReadState) => {
          const page = build(pageRecipes, [])
          // what a store hands back: newest first (ties in any order, the same for both)
          const newestFirst = [...page].reverse().sort((a, b) => b.created_at - a.created_at)
          const live = build(liveRecipes, page)
          const redelivered = page.length ? [page[0]!, ...live] : live
          const contexts: Record<string, number> = {}
          if (marks.channel !== undefined) contexts[CHANNEL] = marks.channel
          const root = page.find((e) => e.kind === 11)
          if (marks.thread !== undefined && root) contexts[`thread:${root.id}`] = marks.thread
          const rs = withReadState ? readState(contexts) : undefined

          const lazy = group(rs)
          const eager = group(rs)
          lazy.ingestStored(newestFirst)
          eager.ingestMany(newestFirst, { fromStore: true, older: true })

          let before: GroupSnapshot | undefined
          if (readFirst === 'snapshot') before = lazy.snapshot()
          if (readFirst === 'messages') lazy.group.messages()
          if (readFirst === 'unread') lazy.group.unread()
          if (readFirst === 'previous') expect(previousTag(lazy)).toEqual(previousTag(eager))
          const eagerBefore = before ? eager.snapshot() : undefined

          for (const e of redelivered) expect(lazy.ingest(e)).toBe(eager.ingest(e))

          expect(view(lazy)).toEqual(view(eager))
          expect(previousTag(lazy)).toEqual(previousTag(eager))
          for (const e of [...page, ...live]) expect(lazy.group.event(e.id)).toBe(eager.group.event(e.id))
          // a snapshot taken before the live events still shows the page alone
          if (before && eagerBefore) expect(view(lazy, before)).toEqual(view(eager, eagerBefore))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('a live message arriving before anything read the page lands after it, in timeline order', () => {
    const g = group()
    const page = [30, 20, 10].map((at) => event(9, PEOPLE[1]!, at, [], `stored ${at}`))
    g.ingestStored(page)
    const first = g.snapshot() // what the group list shows at start: no rows built
    const live = event(9, PEOPLE[2]!, 25, [], 'live, older than the newest stored')
    const tie = event(9, PEOPLE[2]!, 30, [], 'live, same second as the newest stored')
    g.ingest(live, { older: false })
    g.ingest(tie, { older: false })
    expect(first.messages.map((m) => m.content)).toEqual(['stored 10', 'stored 20', 'stored 30'])
    expect(g.snapshot().messages.map((m) => m.content)).toEqual([
      'stored 10',
      'stored 20',
      'live, older than the newest stored',
      'stored 30',
      'live, same second as the newest stored',
    ])
  })

  it('counts unread and mentions of the stored page on demand, and a restart notifies nothing', async () => {
    const rs = readState({ [CHANNEL]: 15 })
    const g = group(rs)
    const incoming: string[] = []
    g.subscribe((e) => {
      if (e.type === 'incoming') incoming.push(e.event.id)
    })
    const page = [
      event(9, PEOPLE[1]!, 20, [['p', ME]], 'tagged'),
      event(9, PEOPLE[1]!, 18, [], `by uri ${mentionUri(ME)}`),
      event(9, ME, 17, [], 'mine'),
      event(9, PEOPLE[2]!, 10, [['p', ME]], 'read already'),
    ]
    g.ingestStored(page)
    expect(g.snapshot().unread).toBe(2)
    expect(g.snapshot().mentions).toBe(2)
    await Promise.resolve()
    expect(incoming).toEqual([])
  })

  it('a page holding a join request, a membership change or a deletion is folded at once', () => {
    const g = group()
    g.rememberMembership({ status: 'pending', since: 1 })
    const put = event(KINDS.putUser, RELAY_KEY, 50, [['p', ME]], '')
    const request = event(KINDS.joinRequest, PEOPLE[2]!, 40, [], '')
    g.ingestStored([put, request])
    expect(g.snapshot().membership).toEqual({ status: 'member' })
    expect(g.snapshot().joinRequests.map((r) => r.pubkey)).toEqual([PEOPLE[2]])
  })

  it('judges a moderator’s deletion in the page by the relay key held when the page came', () => {
    let key = RELAY_KEY
    const lazy = group(undefined, () => key)
    const eager = group(undefined, () => key)
    const message = event(9, PEOPLE[1]!, 10, [], 'removed by the relay')
    const removal = event(KINDS.deleteEvent, RELAY_KEY, 11, [['e', message.id]], '')
    lazy.ingestStored([removal, message])
    eager.ingestMany([removal, message], { fromStore: true, older: true })
    key = PEOPLE[2]! // NIP-11 names another key
    lazy.relayKeyChanged()
    eager.relayKeyChanged()
    expect(lazy.group.messages().map((m) => m.id)).toEqual(eager.group.messages().map((m) => m.id))
    expect(lazy.group.messages()).toEqual([])
  })
})
