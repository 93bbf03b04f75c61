import { type GroupTreeNode, groupForest } from '@roost/nip29'
import type { GroupSummary } from '../model/types'

/** One sidebar row: a group and how deep it hangs under its parents. */
export interface TreeRow {
  group: GroupSummary
  depth: number
}

/**
 * The sidebar's groups as a tree (NIP-29 `parent`/`child`, per relay): each subgroup follows its
 * parent, indented; roots keep the list's order. A parent not in the list, or a loop, leaves the
 * group at the top level (`groupForest`'s rules).
 */
export function treeOrder(groups: readonly GroupSummary[]): TreeRow[] {
  const byKey = new Map(groups.map((g) => [g.key, g]))
  const relays = [...new Set(groups.map((g) => g.relay))]
  const childrenOf = new Map<string, string[]>() // group key → child keys, in the forest's order
  const nested = new Set<string>()
  for (const relay of relays) {
    const here = groups.filter((g) => g.relay === relay)
    const walk = (node: GroupTreeNode) => {
      const kids = node.children.map((c) => `${relay}'${c.id}`)
      childrenOf.set(`${relay}'${node.id}`, kids)
      for (const k of kids) nested.add(k)
      for (const c of node.children) walk(c)
    }
    for (const root of groupForest(here.map((g) => ({ id: g.id, parent: g.parent })))) walk(root)
  }
  const out: TreeRow[] = []
  const visit = (key: string, depth: number) => {
    const group = byKey.get(key)
    if (!group) return
    out.push({ group, depth })
    for (const k of childrenOf.get(key) ?? []) visit(k, depth + 1)
  }
  for (const g of groups) if (!nested.has(g.key)) visit(g.key, 0)
  return out
}

/**
 * The groups `group` can be moved under: on its relay, holding our `admin` role there
 * ({@link GroupSummary.mayParent}), and neither the group itself nor one of its subgroups (a
 * loop). These are the parents the relay accepts; the rest would only be refused.
 */
export function moveTargets(
  groups: readonly GroupSummary[],
  group: { id: string; relay: string },
): GroupSummary[] {
  const here = groups.filter((g) => g.relay === group.relay)
  const parentOf = new Map(here.map((g) => [g.id, g.parent]))
  const under = (id: string) => {
    for (let at: string | undefined = id, hops = 0; at !== undefined && hops < 1000; hops++) {
      if (at === group.id) return true
      at = parentOf.get(at)
    }
    return false
  }
  return here.filter((g) => g.mayParent && !under(g.id))
}
