import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { moveTargets, treeOrder } from '../../src/lib/group-tree'
import { togglePin, webJoinLink } from '../../src/model/community'
import type { GroupSummary } from '../../src/model/types'

const R = 'ws://127.0.0.1:7777'
function g(id: string, parent?: string, relay = R, mayParent = true): GroupSummary {
  return {
    key: `${relay}'${id}`,
    id,
    relay,
    name: id,
    unread: 0,
    threadUnread: false,
    access: { status: 'member' },
    requests: 0,
    mentions: 0,
    notify: 'all',
    mayParent,
    ...(parent !== undefined ? { parent } : {}),
  }
}
const rows = (list: GroupSummary[]) => treeOrder(list).map((r) => `${'  '.repeat(r.depth)}${r.group.id}`)

describe('the sidebar tree', () => {
  it('puts subgroups under their parent, keeps the list order for roots, and never nests across relays', () => {
    const list = [g('zoo'), g('web', 'eng'), g('eng'), g('ops', 'web'), g('x', 'eng', 'wss://other.example')]
    expect(rows(list)).toEqual(['zoo', 'eng', '  web', '    ops', 'x'])
  })

  it('a missing parent or a loop leaves groups at the top level', () => {
    expect(rows([g('a', 'b'), g('b', 'a'), g('c', 'nope')])).toEqual(['a', '  b', 'c'])
  })

  it('property: every group appears exactly once, each child right under an ancestor one level up', () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f']
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...ids), { minLength: 1 }),
        fc.array(fc.option(fc.constantFrom(...ids, 'missing'), { nil: undefined }), {
          minLength: 6,
          maxLength: 6,
        }),
        (present, parents) => {
          const list = present.map((id, i) => g(id, parents[i]))
          const out = treeOrder(list)
          expect(out.map((r) => r.group.id).sort()).toEqual([...present].sort())
          out.forEach((row, i) => {
            if (row.depth === 0) return
            // The nearest row above with depth - 1 is the parent named by the group.
            const above = out
              .slice(0, i)
              .reverse()
              .find((r) => r.depth === row.depth - 1)
            expect(above?.group.id).toBe(row.group.parent)
          })
        },
      ),
    )
  })
})

describe('pins and links', () => {
  it('pins append at the end, unpin removes, and a re-pin moves to the end', () => {
    expect(togglePin(['a', 'b'], 'c', true)).toEqual(['a', 'b', 'c'])
    expect(togglePin(['a', 'b'], 'a', false)).toEqual(['b'])
    expect(togglePin(['a', 'b'], 'a', true)).toEqual(['b', 'a'])
  })

  it('the web link opens the join dialog on the encoded naddr', () => {
    expect(webJoinLink('http://h', 'naddr1x?invite=y')).toBe('http://h/#/join/naddr1x%3Finvite%3Dy')
  })
})

describe('where a group can be moved', () => {
  it('under the groups of its relay where we hold the admin role, never under itself or its subgroups', () => {
    const groups = [
      g('garden'),
      g('tomatoes', 'garden'),
      g('seedlings', 'tomatoes'),
      g('kitchen'),
      g('lobby', undefined, R, false),
      g('elsewhere', undefined, 'ws://other.example'),
    ]
    expect(moveTargets(groups, { id: 'garden', relay: R }).map((x) => x.id)).toEqual(['kitchen'])
    expect(moveTargets(groups, { id: 'tomatoes', relay: R }).map((x) => x.id)).toEqual(['garden', 'kitchen'])
    expect(moveTargets(groups, { id: 'kitchen', relay: R }).map((x) => x.id)).toEqual([
      'garden',
      'tomatoes',
      'seedlings',
    ])
  })
})
