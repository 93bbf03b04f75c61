/**
 * What {@link groupForest} reads of a group: its id, its `parent` and its ordered `child` ids.
 * A {@link GroupMetadata} fits.
 * @example groupForest(metadatas)
 */
export interface SubgroupInput {
  /** The group id. */
  readonly id: string
  /** Its parent group's id (9002 `parent`). */
  readonly parent?: string
  /** Its children's ids, in order. */
  readonly children?: readonly string[]
}

/**
 * One group in the forest, with its subgroups. `detached` says why a group that names a parent
 * is shown as a root: the parent is not among the groups, or following parents loops back.
 * @example function render(n: GroupTreeNode) { return [n.id, n.children.map(render)] }
 */
export interface GroupTreeNode {
  /** The group id. */
  id: string
  /** Its subgroups, in order. */
  children: GroupTreeNode[]
  /** Set when the group is shown at the top although it names a parent: the parent is missing, or the parents form a cycle. */
  detached?: 'missing-parent' | 'cycle'
}

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Lays groups out as a forest from NIP-29 subgroup metadata. A group's own `parent` decides where
 * it hangs (the relay keeps both sides in step; a child's word wins over a stale `child` list);
 * the parent's `child` tags only give the order of its children, the others follow by id.
 * Roots are ordered by id. Deterministic and total, whatever the input order or content:
 *
 * - a duplicate id: the first occurrence counts;
 * - a parent that is not among the groups: the group is a root, `detached: 'missing-parent'`;
 * - a cycle (self-parenting included): the smallest id of the cycle becomes a root,
 *   `detached: 'cycle'`; the others keep their parents.
 *
 * It never recurses, so a chain of any depth is safe.
 *
 * @example
 * const forest = groupForest([{ id: 'eng' }, { id: 'eng-web', parent: 'eng' }])
 * // [{ id: 'eng', children: [{ id: 'eng-web', children: [] }] }]
 */
export function groupForest(groups: Iterable<SubgroupInput>): GroupTreeNode[] {
  const inputs = new Map<string, SubgroupInput>()
  for (const g of groups) {
    if (typeof g !== 'object' || g === null || typeof g.id !== 'string' || inputs.has(g.id)) continue
    inputs.set(g.id, g)
  }
  const ids = [...inputs.keys()].sort(byId)
  const parentOf = new Map<string, string>()
  const detached = new Map<string, 'missing-parent' | 'cycle'>()
  for (const id of ids) {
    const parent = inputs.get(id)?.parent
    if (typeof parent !== 'string' || parent === '') continue
    if (inputs.has(parent)) parentOf.set(id, parent)
    else detached.set(id, 'missing-parent')
  }
  // Each group has at most one parent, so every cycle is a simple loop: walk up from each id,
  // and cut a loop at its smallest id.
  const state = new Map<string, 'walking' | 'done'>()
  for (const start of ids) {
    const path: string[] = []
    let cur: string | undefined = start
    while (cur !== undefined && !state.has(cur)) {
      state.set(cur, 'walking')
      path.push(cur)
      cur = parentOf.get(cur)
    }
    if (cur !== undefined && state.get(cur) === 'walking') {
      const loop = path.slice(path.indexOf(cur))
      const cut = [...loop].sort(byId)[0] as string
      parentOf.delete(cut)
      detached.set(cut, 'cycle')
    }
    for (const id of path) state.set(id, 'done')
  }
  const nodes = new Map<string, GroupTreeNode>()
  for (const id of ids) {
    const node: GroupTreeNode = { id, children: [] }
    const why = detached.get(id)
    if (why !== undefined) node.detached = why
    nodes.set(id, node)
  }
  const roots: GroupTreeNode[] = []
  const kids = new Map<string, string[]>()
  for (const id of ids) {
    const parent = parentOf.get(id)
    if (parent === undefined) roots.push(nodes.get(id) as GroupTreeNode)
    else kids.set(parent, [...(kids.get(parent) ?? []), id])
  }
  for (const [parent, children] of kids) {
    const listed = inputs.get(parent)?.children
    const order = Array.isArray(listed) ? listed : []
    const rank = (id: string): number => {
      const at = order.indexOf(id)
      return at < 0 ? Number.MAX_SAFE_INTEGER : at
    }
    children.sort((a, b) => rank(a) - rank(b) || byId(a, b))
    ;(nodes.get(parent) as GroupTreeNode).children = children.map((id) => nodes.get(id) as GroupTreeNode)
  }
  return roots
}
