/**
 * Unread counts after another device's blob arrives: 100 groups × 1,000 messages each (950
 * top-level messages and thread roots, 50 replies in 5 threads; one message in 7 is ours), and
 * a remote blob that advances every group's channel mark plus some `thread:` and `msg:` marks.
 *
 * Ours: `UnreadIndex` from @roost/read-state (rows indexed by `created_at` as they arrive; a
 * recount is a binary search plus the rows actually unread). Baseline: a full recount with
 * `unreadCount` over every row of every group. nostr-tools has no unread logic, so the
 * "baseline" field here is the full recount, not nostr-tools. Both sides recount all 100 groups
 * against the same merged contexts (the merge itself, equal for both, is not timed) and must
 * give identical results.
 */

import { GroupKey } from '@roost/nip29'
import {
  type Contexts,
  mergeContexts,
  messageContext,
  threadContext,
  type UnreadCount,
  UnreadIndex,
  type UnreadRow,
  unreadCount,
} from '@roost/read-state'
import { record } from './lib'

const GROUPS = 100
const PER_GROUP = 1_000
const THREADS = 5
const REPLIES = 10
const REPS = 20
const ROUNDS = 15
const me = 'a1'.repeat(32)
const authors = ['b2', 'c3', 'd4', 'e5', 'f6'].map((p) => p.repeat(32))
const base = 1_700_000_000

let seed = 42
/** Deterministic 64-hex ids (mulberry32), so every run measures the same data. */
function id(): string {
  let out = ''
  for (let i = 0; i < 8; i++) {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    out += ((t ^ (t >>> 14)) >>> 0).toString(16).padStart(8, '0')
  }
  return out
}

interface Group {
  channel: string
  topLevel: UnreadRow[]
  threads: { root: string; replies: UnreadRow[] }[]
  index: UnreadIndex
}

const groups: Group[] = []
const before: Record<string, number> = {}
const remote: Record<string, number> = {}
let indexing = 0
for (let g = 0; g < GROUPS; g++) {
  const channel = new GroupKey(`wss://relay-${g % 4}.example.com`, `group-${g}`).toString()
  const topLevel: UnreadRow[] = []
  const threads: Group['threads'] = []
  const top = PER_GROUP - THREADS * REPLIES
  for (let i = 0; i < top; i++) {
    const pubkey = i % 7 === 0 ? me : authors[i % authors.length]!
    topLevel.push({ id: id(), createdAt: base + g * 10 + i * 60, pubkey })
  }
  for (let t = 0; t < THREADS; t++) {
    const root = topLevel[100 + t * 150]!
    const replies: UnreadRow[] = []
    for (let r = 0; r < REPLIES; r++) {
      replies.push({
        id: id(),
        createdAt: root.createdAt + 30 + r * 900,
        pubkey: authors[(t + r) % authors.length]!,
      })
    }
    threads.push({ root: root.id, replies })
  }
  // Rows reach the index one by one as they arrive, in no particular order.
  const index = new UnreadIndex(channel, me)
  const arrivals = [
    ...topLevel.map((row) => ({ ...row })),
    ...threads.flatMap((t) => t.replies.map((row) => ({ ...row, root: t.root }))),
  ].sort((a, b) => (a.id < b.id ? -1 : 1))
  const started = performance.now()
  for (const row of arrivals) index.add(row)
  indexing += performance.now() - started
  groups.push({ channel, topLevel, threads, index })
  // Before: this device had read a third of the way; the other device read further.
  before[channel] = base + g * 10 + (top / 3) * 60
  remote[channel] = base + g * 10 + (top - 5 - (g % 40)) * 60
  if (g % 3 === 0) remote[threadContext(threads[0]!.root)] = threads[0]!.replies.at(-1)!.createdAt
  if (g % 2 === 0) remote[messageContext(topLevel[top - 1]!.id)] = topLevel[top - 1]!.createdAt
}
const contexts: Contexts = mergeContexts(before, remote) // the blob has arrived

function full(ctx: Contexts): UnreadCount[] {
  return groups.map((g) =>
    unreadCount({ channel: g.channel, topLevel: g.topLevel, threads: g.threads, me, contexts: ctx }),
  )
}
function incremental(ctx: Contexts): UnreadCount[] {
  return groups.map((g) => g.index.count(ctx))
}

// Same answers, group by group, before and after the blob.
for (const ctx of [before, contexts]) {
  const a = full(ctx)
  const b = incremental(ctx)
  for (let g = 0; g < GROUPS; g++) {
    const norm = (c: UnreadCount) =>
      JSON.stringify({ m: c.messages, t: [...c.threads].sort(), f: c.firstUnread && { ...c.firstUnread } })
    if (norm(a[g]!) !== norm(b[g]!)) throw new Error(`group ${g}: ${norm(a[g]!)} vs ${norm(b[g]!)}`)
  }
}
const unread = full(contexts).reduce((n, c) => n + c.messages + c.threads.length, 0)

/** Recounts of all 100 groups per second. */
function pass(recount: (ctx: Contexts) => UnreadCount[]): number {
  let sink = 0
  const start = performance.now()
  for (let r = 0; r < REPS; r++) sink += recount(contexts).length
  const elapsed = performance.now() - start
  if (sink !== REPS * GROUPS) throw new Error('lost a result')
  return (REPS * 1000) / elapsed
}

for (let i = 0; i < 3; i++) {
  pass(full)
  pass(incremental)
}
let ours = 0
let baseline = 0
for (let r = 0; r < ROUNDS; r++) {
  baseline = Math.max(baseline, pass(full))
  ours = Math.max(ours, pass(incremental))
}
record({
  name: `unread-recount-${GROUPS}x${PER_GROUP}`,
  unit: 'recount',
  ours,
  baseline,
  notes: `one recount = all ${GROUPS} groups × ${PER_GROUP} messages (${THREADS} threads × ${REPLIES} replies each) after a remote blob, ${unread} unread left; ours: UnreadIndex.count per group (indexing the ${GROUPS * PER_GROUP} rows as they arrived took ${indexing.toFixed(1)} ms once); baseline: a full recount with unreadCount (not nostr-tools, which has no unread logic); results checked identical; best of ${ROUNDS}`,
})
