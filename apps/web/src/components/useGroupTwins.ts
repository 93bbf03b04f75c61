import { useEffect, useMemo, useState } from 'react'
import { useApp } from '../hooks'
import { type GroupOrigin, judgeLookalikes, nameSkeleton, type TwinVerdict } from '../lib/lookalike'
import type { GroupSummary } from '../model/types'

/**
 * The user's groups whose names look alike (`lib/lookalike.ts`), keyed by group key: their
 * origins are asked of their relays once, and until they arrive every look-alike is shown with its
 * id and none is called the original. Groups on different relays are never ranked against each
 * other (each relay vouches only for itself); they show their relay too.
 * @example const twins = useGroupTwins(snap.groups); twins.get(key)?.warning // 'operator' on a copy
 */
export function useGroupTwins(groups: readonly GroupSummary[]): Map<string, TwinVerdict> {
  const app = useApp()
  const twins = useMemo(() => {
    const counts = new Map<string, number>()
    for (const g of groups) counts.set(nameSkeleton(g.name), (counts.get(nameSkeleton(g.name)) ?? 0) + 1)
    return groups.filter((g) => (counts.get(nameSkeleton(g.name)) ?? 0) > 1)
  }, [groups])
  const wanted = twins.map((g) => g.key).join('\n')
  const [origins, setOrigins] = useState<Record<string, GroupOrigin>>({})
  // biome-ignore lint/correctness/useExhaustiveDependencies: `wanted` names the groups asked about
  useEffect(() => {
    if (twins.length === 0) return
    let live = true
    const byRelay = new Map<string, GroupSummary[]>()
    for (const g of twins) byRelay.set(g.relay, [...(byRelay.get(g.relay) ?? []), g])
    void Promise.all(
      [...byRelay].map(async ([relay, list]) => {
        const found = await app.groupOrigins(
          relay,
          list.map((g) => g.id),
        )
        return list.flatMap((g) => (found[g.id] ? [[g.key, found[g.id] as GroupOrigin] as const] : []))
      }),
    ).then((pairs) => {
      if (live) setOrigins(Object.fromEntries(pairs.flat()))
    })
    return () => {
      live = false
    }
  }, [app, wanted])
  return useMemo(
    () =>
      judgeLookalikes(
        twins.map((g) => ({ key: g.key, name: g.name, origin: origins[g.key], scope: g.relay })),
      ),
    [twins, origins],
  )
}
