/**
 * Recount after a remote blob: 100 groups × 1,000 messages, UnreadIndex (binary search) against a
 * full pass with unreadCount. Run: node --import tsx packages/read-state/bench/unread-index.bench.ts
 */
import { UnreadIndex, type UnreadRow, unreadCount } from '../src'

const GROUPS = 100
const PER = 1000
const me = 'a'.repeat(64)
const them = 'b'.repeat(64)
const hex = (g: number, i: number) => (g * 100_000 + i).toString(16).padStart(64, '0')
const rows: UnreadRow[][] = []
const indexes: UnreadIndex[] = []
const contexts: Record<string, number> = {}
for (let g = 0; g < GROUPS; g++) {
  const list: UnreadRow[] = []
  const index = new UnreadIndex(`g${g}`, me)
  for (let i = 0; i < PER; i++) {
    const row = { id: hex(g, i), createdAt: 1_700_000_000 + i, pubkey: i % 7 === 0 ? me : them }
    list.push(row)
    index.add(row)
  }
  rows.push(list)
  indexes.push(index)
  contexts[`g${g}`] = 1_700_000_000 + PER - 5 - (g % 10) // a few unread in each
}

function time(fn: () => number, rounds = 30): number {
  let best = Number.POSITIVE_INFINITY
  let sink = 0
  for (let r = 0; r < rounds; r++) {
    const t = performance.now()
    sink += fn()
    best = Math.min(best, performance.now() - t)
  }
  if (sink < 0) console.log(sink)
  return best
}

const full = time(() => {
  let n = 0
  for (let g = 0; g < GROUPS; g++)
    n += unreadCount({ channel: `g${g}`, topLevel: rows[g]!, me, contexts }).messages
  return n
})
const fast = time(() => {
  let n = 0
  for (const index of indexes) n += index.count(contexts).messages
  return n
})
console.log(
  `recount ${GROUPS}×${PER}: full ${full.toFixed(3)} ms, incremental ${fast.toFixed(3)} ms, ratio ${(full / fast).toFixed(1)}x`,
)
