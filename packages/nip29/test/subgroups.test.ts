import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { GroupMetadata, type GroupTreeNode, groupForest, type SubgroupInput } from '../src/index'
import { state } from './helpers'

function shape(nodes: GroupTreeNode[]): unknown[] {
  return nodes.map((n) => (n.children.length === 0 ? n.id : { [n.id]: shape(n.children) }))
}

function flatten(nodes: GroupTreeNode[], out: GroupTreeNode[] = []): GroupTreeNode[] {
  const stack = [...nodes]
  while (stack.length > 0) {
    const n = stack.pop() as GroupTreeNode
    out.push(n)
    stack.push(...n.children)
  }
  return out
}

describe('groupForest', () => {
  it('hangs groups under their parent, in the parent child order, then by id', () => {
    const forest = groupForest([
      { id: 'eng', children: ['eng-web', 'eng-api'] },
      { id: 'eng-api', parent: 'eng' },
      { id: 'eng-web', parent: 'eng' },
      { id: 'eng-ops', parent: 'eng' },
      { id: 'eng-db', parent: 'eng' },
      { id: 'random' },
      { id: 'web-css', parent: 'eng-web' },
    ])
    expect(shape(forest)).toEqual([
      { eng: [{ 'eng-web': ['web-css'] }, 'eng-api', 'eng-db', 'eng-ops'] },
      'random',
    ])
  })

  it('reads GroupMetadata directly', () => {
    const parent = GroupMetadata.parse(state(39000, 'p', [['child', 'c']]))
    const child = GroupMetadata.parse(state(39000, 'c', [['parent', 'p']]))
    expect(shape(groupForest([child, parent]))).toEqual([{ p: ['c'] }])
  })

  it('makes a group with a missing parent a root, and says why', () => {
    const forest = groupForest([{ id: 'orphan', parent: 'gone' }, { id: 'a' }])
    expect(forest).toEqual([
      { id: 'a', children: [] },
      { id: 'orphan', children: [], detached: 'missing-parent' },
    ])
  })

  it('cuts a cycle at its smallest id, whatever the input order', () => {
    const loop: SubgroupInput[] = [
      { id: 'b', parent: 'a' },
      { id: 'c', parent: 'b' },
      { id: 'a', parent: 'c' },
      { id: 'self', parent: 'self' },
      { id: 'tail', parent: 'c' },
    ]
    const expected = [
      {
        id: 'a',
        detached: 'cycle',
        children: [{ id: 'b', children: [{ id: 'c', children: [{ id: 'tail', children: [] }] }] }],
      },
      { id: 'self', detached: 'cycle', children: [] },
    ]
    expect(groupForest(loop)).toEqual(expected)
    expect(groupForest([...loop].reverse())).toEqual(expected)
  })

  it('ignores a stale child claim and duplicate ids (first wins)', () => {
    const forest = groupForest([
      { id: 'x', children: ['y'] },
      { id: 'y' },
      { id: 'y', parent: 'x' },
      null as never,
      { id: 3 } as never,
    ])
    expect(shape(forest)).toEqual(['x', 'y'])
  })

  it('handles a 20,000-deep chain without recursion', () => {
    const chain: SubgroupInput[] = Array.from({ length: 20_000 }, (_, i) => ({
      id: `g${String(i).padStart(5, '0')}`,
      parent: i === 0 ? undefined : `g${String(i - 1).padStart(5, '0')}`,
    }))
    const forest = groupForest(chain)
    expect(forest).toHaveLength(1)
    expect(flatten(forest)).toHaveLength(20_000)
  })

  it('property: every group appears once, parents are honoured unless detached, output is order-independent', () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f']
    const input = fc.uniqueArray(
      fc.record({
        id: fc.constantFrom(...ids),
        parent: fc.option(fc.constantFrom(...ids, 'zz'), { nil: undefined }),
      }),
      { selector: (g) => g.id },
    )
    fc.assert(
      fc.property(input, fc.integer(), (groups, seed) => {
        const forest = groupForest(groups)
        const all = flatten(forest)
        expect(all.map((n) => n.id).sort()).toEqual(groups.map((g) => g.id).sort())
        const parentIn = new Map<string, string>()
        for (const n of all) for (const c of n.children) parentIn.set(c.id, n.id)
        for (const g of groups) {
          const node = all.find((n) => n.id === g.id) as GroupTreeNode
          if (node.detached === undefined) expect(parentIn.get(g.id)).toBe(g.parent)
          else expect(parentIn.has(g.id)).toBe(false)
        }
        const shuffled = [...groups].sort(
          (x, y) => ((x.id.charCodeAt(0) * seed) % 7) - ((y.id.charCodeAt(0) * seed) % 7),
        )
        expect(groupForest(shuffled)).toEqual(forest)
      }),
      { numRuns: 500 },
    )
  })
})
