import { describe, expect, it } from 'vitest'
import {
  GroupKey,
  GroupList,
  InvalidEventError,
  InvalidGroupIdError,
  InvalidRelayUrlError,
} from '../src/index'
import { aliceSecret, signed } from './helpers'

const A = 'wss://a.example'
const B = 'wss://b.example'

function listEvent(tags: string[][], content = '', createdAt = 100) {
  return signed(aliceSecret, 10009, tags, { content, createdAt })
}

describe('GroupList.parse', () => {
  it('reads group tags of 1–3 values and r tags', () => {
    const list = GroupList.parse(
      listEvent([
        ['group', 'general', A, 'General'],
        ['group', 'dev', 'B.example/'],
        ['group', 'orphan'],
        ['r', A],
        ['r', 'wss://B.example/'],
      ]),
    )
    expect(list.entries).toEqual([
      { id: 'general', relay: A, name: 'General' },
      { id: 'dev', relay: B },
    ])
    expect(list.relays()).toEqual([A, B])
    expect(list.keys().map(String)).toEqual([`${A}'general`, `${B}'dev`])
    expect(list.has(new GroupKey(A, 'general'))).toBe(true)
    expect(list.has(new GroupKey(B, 'general'))).toBe(false)
    expect(list.get(new GroupKey(A, 'general'))?.name).toBe('General')
    expect(list.createdAt).toBe(100)
  })

  it('keeps one entry per key, and tolerates junk tags', () => {
    const list = GroupList.parse(
      listEvent([
        ['group', 'g', A],
        ['group', 'g', `${A}/`, 'Again'],
        ['group', ' ', A],
        ['group', 'x', 'https://a'],
        ['t', 'z'],
      ]),
    )
    expect(list.entries).toEqual([{ id: 'g', relay: A }])
  })

  it('rejects other kinds', () => {
    expect(() => GroupList.parse(signed(aliceSecret, 3, []))).toThrow(InvalidEventError)
  })
})

describe('GroupList edits are lossless', () => {
  const original = listEvent(
    [
      ['group', 'general', A, 'General'],
      ['unknown', 'kept'],
      ['r', A],
      ['group', 'orphan'],
      ['group', 'dev', B],
    ],
    'nip44-ciphertext-of-private-groups',
  )

  it('parse → upsert → toTemplate keeps every tag it did not touch, and the content', () => {
    const t = GroupList.parse(original)
      .upsert({ id: 'new', relay: 'wss://C.example/', name: 'New' })
      .toTemplate(200)
    expect(t).toEqual({
      kind: 10009,
      content: 'nip44-ciphertext-of-private-groups',
      created_at: 200,
      tags: [
        ['group', 'general', A, 'General'],
        ['unknown', 'kept'],
        ['r', A],
        ['group', 'orphan'],
        ['group', 'dev', B],
        ['group', 'new', 'wss://c.example', 'New'],
        ['r', 'wss://c.example'],
      ],
    })
  })

  it('upsert of a known key edits its name in place and adds no r tag', () => {
    const list = GroupList.parse(original)
    expect(list.upsert({ id: 'dev', relay: `${B}/`, name: 'Dev' }).tags).toEqual([
      ['group', 'general', A, 'General'],
      ['unknown', 'kept'],
      ['r', A],
      ['group', 'orphan'],
      ['group', 'dev', B, 'Dev'],
    ])
    expect(list.upsert({ id: 'general', relay: A }).tags).toEqual(list.tags)
  })

  it('upsert does not add an r tag the list already has', () => {
    const list = GroupList.parse(original).upsert({ id: 'other', relay: A })
    expect(list.tags.filter((t) => t[0] === 'r')).toEqual([['r', A]])
  })

  it('remove drops only the named group, keeping r tags, unknown tags and content', () => {
    const list = GroupList.parse(original).remove(new GroupKey(A, 'general'))
    expect(list.tags).toEqual([
      ['unknown', 'kept'],
      ['r', A],
      ['group', 'orphan'],
      ['group', 'dev', B],
    ])
    expect(list.content).toBe('nip44-ciphertext-of-private-groups')
    expect(list.remove(new GroupKey(A, 'nothing')).tags).toEqual(list.tags)
  })

  it('edits return new lists and leave the original alone, which cannot be edited in place', () => {
    const list = GroupList.parse(original)
    const before = JSON.stringify(list.tags)
    list.upsert({ id: 'x', relay: A })
    list.upsert({ id: 'dev', relay: B, name: 'Renamed' })
    list.remove(new GroupKey(B, 'dev'))
    expect(JSON.stringify(list.tags)).toBe(before)
    expect(() => (list.tags as string[][]).push(['group', 'sneaky', A])).toThrow(TypeError)
    expect(() => {
      ;(list.entries[0] as { name?: string }).name = 'x'
    }).toThrow(TypeError)
    expect(original.tags).toHaveLength(5)
  })

  it('upsert rejects bad entries with typed errors', () => {
    expect(() => GroupList.empty().upsert({ id: ' ', relay: A })).toThrow(InvalidGroupIdError)
    expect(() => GroupList.empty().upsert({ id: 'g', relay: 'https://a' })).toThrow(InvalidRelayUrlError)
  })
})

describe('GroupList.merge', () => {
  it('unions the groups and r relays, keeping this list first', () => {
    const local = GroupList.parse(
      listEvent(
        [
          ['group', 'a', A],
          ['r', A],
        ],
        'mine',
        100,
      ),
    )
    const remote = GroupList.parse(
      listEvent(
        [
          ['group', 'b', B, 'Bee'],
          ['group', 'a', A, 'Ay'],
          ['r', B],
        ],
        'theirs',
        200,
      ),
    )
    const merged = local.merge(remote)
    expect(merged.entries).toEqual([
      { id: 'a', relay: A, name: 'Ay' },
      { id: 'b', relay: B, name: 'Bee' },
    ])
    expect(merged.relays()).toEqual([A, B])
    expect(merged.content).toBe('mine')
    expect(merged.createdAt).toBe(200)
    expect(GroupList.empty().merge(remote).content).toBe('theirs')
  })

  it('toTemplate defaults to a created_at after the list it edits', () => {
    const future = GroupList.parse(listEvent([], '', 4_000_000_000))
    expect(future.toTemplate().created_at).toBe(4_000_000_001)
    const now = Math.floor(Date.now() / 1000)
    expect(GroupList.empty().toTemplate().created_at).toBeGreaterThanOrEqual(now)
  })
})
