/**
 * The order of a relay's public groups in Browse: by name, except that groups whose names look
 * alike (`lib/lookalike.ts`) take their places in rank order, the original first, each with its
 * origin and verdict, so a newcomer's first "Join General" is the group the facts point to.
 */
import { type GroupOrigin, inRankOrder, judgeLookalikes, nameSkeleton } from '../lib/lookalike'
import type { BrowseEntry } from './types'

/**
 * Sorts `entries` by name, asks `origins` about the groups whose names look alike (only those),
 * and puts each such set in rank order with its origin and verdict attached.
 *
 * @example
 * await browseOrder(entries, (ids) => app.groupOrigins(relay, ids)) // [General (operator's), General (newer, warned), …]
 */
export async function browseOrder(
  entries: readonly BrowseEntry[],
  origins: (ids: string[]) => Promise<Record<string, GroupOrigin>>,
): Promise<BrowseEntry[]> {
  const sorted = [...entries].sort(
    (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id.localeCompare(b.id),
  )
  const counts = new Map<string, number>()
  for (const e of sorted) counts.set(nameSkeleton(e.name), (counts.get(nameSkeleton(e.name)) ?? 0) + 1)
  const twins = sorted.filter((e) => (counts.get(nameSkeleton(e.name)) ?? 0) > 1)
  if (twins.length === 0) return sorted
  const found = await origins(twins.map((e) => e.id))
  const withOrigin = sorted.map((e) => (found[e.id] ? { ...e, origin: found[e.id] } : e))
  const verdicts = judgeLookalikes(withOrigin.map((e) => ({ key: e.id, name: e.name, origin: e.origin })))
  const judged = withOrigin.map((e) => {
    const twin = verdicts.get(e.id)
    return twin ? { ...e, twin } : e
  })
  return inRankOrder(judged, (e) => e.id, verdicts)
}
