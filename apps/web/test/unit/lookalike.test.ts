import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { type GroupOrigin, inRankOrder, judgeLookalikes, nameSkeleton } from '../../src/lib/lookalike'

describe('nameSkeleton', () => {
  test('names a reader could take for one another share it', () => {
    const general = nameSkeleton('General')
    for (const twin of [
      'general',
      'GENERAL',
      ' General ',
      'Gen\u200Beral',
      'Gеneral', // Cyrillic е
      'Genera1',
      'GeneraI', // capital i
      'Généràl',
      'General.',
      'Gen eral',
      'Ｇｅｎｅｒａｌ', // fullwidth
      '𝐆𝐞𝐧𝐞𝐫𝐚𝐥', // mathematical bold
      `G${'\u0301'.repeat(50)}eneral`,
    ])
      expect(nameSkeleton(twin), twin).toBe(general)
    expect(nameSkeleton('Design')).not.toBe(general)
    expect(nameSkeleton('Generals')).not.toBe(general)
    expect(nameSkeleton('Modern')).toBe(nameSkeleton('Modem'))
  })

  test('a name of nothing but symbols is its own skeleton', () => {
    expect(nameSkeleton('🚀🚀')).toBe('🚀🚀')
    expect(nameSkeleton('🚀')).not.toBe(nameSkeleton('🌙'))
  })
})

const operator: GroupOrigin = { byOperator: true, createdAt: 1_000, members: 3 }
const stranger = (o: Partial<GroupOrigin> = {}): GroupOrigin => ({ byOperator: false, ...o })

describe('judgeLookalikes', () => {
  test('the group the relay operator made comes first, whatever the others claim', () => {
    const v = judgeLookalikes([
      { key: 'fake', name: 'General', origin: stranger({ createdAt: 10, members: 500 }) },
      { key: 'real', name: 'General', origin: operator },
      { key: 'design', name: 'Design', origin: stranger() },
    ])
    expect(v.get('real')).toMatchObject({ rank: 0, original: true, undecided: false })
    expect(v.get('fake')).toMatchObject({ rank: 1, original: false, warning: 'operator' })
    expect(v.has('design')).toBe(false)
  })

  test('between members’ groups, the older one as the relay vouches', () => {
    const v = judgeLookalikes([
      { key: 'b', name: 'General', origin: stranger({ createdAt: 2_000 }) },
      { key: 'a', name: 'Genera1', origin: stranger({ createdAt: 1_000 }) },
      { key: 'c', name: 'general', origin: stranger({ createdAt: 3_000 }) },
    ])
    expect(v.get('a')).toMatchObject({ rank: 0, original: true })
    expect(v.get('b')).toMatchObject({ rank: 1, warning: 'older' })
    expect(v.get('c')).toMatchObject({ rank: 2, warning: 'older' })
  })

  test('a date counts only when every look-alike has one the relay vouches for', () => {
    // A copy on a relay that takes backdated events claims 1970; the original's 9007 is hidden (private).
    const v = judgeLookalikes([
      { key: 'copy', name: 'General', origin: stranger({ claimedAt: 1 }) },
      { key: 'hidden', name: 'General', origin: stranger() },
      { key: 'dated', name: 'General', origin: stranger({ createdAt: 5_000 }) },
    ])
    for (const key of ['copy', 'hidden', 'dated'])
      expect(v.get(key)).toMatchObject({ original: false, undecided: true })
  })

  test('the original is the one no other ties with', () => {
    const v = judgeLookalikes([
      { key: 'x', name: 'Chat', origin: stranger({ createdAt: 1 }) },
      { key: 'y', name: 'Chat', origin: stranger({ createdAt: 1 }) },
      { key: 'z', name: 'Chat', origin: stranger({ createdAt: 9 }) },
    ])
    for (const key of ['x', 'y', 'z']) expect(v.get(key)).toMatchObject({ original: false, undecided: true })
  })

  test('members break a tie; with no fact at all, none is called the original', () => {
    const byMembers = judgeLookalikes([
      { key: 'x', name: 'Chat', origin: stranger({ members: 2 }) },
      { key: 'y', name: 'Chat', origin: stranger({ members: 9 }) },
    ])
    expect(byMembers.get('y')).toMatchObject({ rank: 0, original: true })
    expect(byMembers.get('x')).toMatchObject({ warning: 'members' })
    const unknown = judgeLookalikes([
      { key: 'x', name: 'Chat' },
      { key: 'y', name: 'Chat' },
    ])
    expect(unknown.get('x')).toMatchObject({ original: false, undecided: true })
    expect(unknown.get('y')).toMatchObject({ original: false, undecided: true })
    expect(unknown.get('y')?.warning).toBeUndefined()
  })

  test('property: one original at most per set, ranks 0..n-1, and the order does not depend on the input order', () => {
    const origin = fc.option(
      fc.record({
        byOperator: fc.boolean(),
        createdAt: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
        members: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      }),
      { nil: undefined },
    )
    const item = fc.record({
      name: fc.constantFrom('General', 'genera1', 'Design', 'Dеsign'),
      origin,
      scope: fc.constantFrom('wss://a.example', 'wss://b.example'),
    })
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (raw) => {
        const items = raw.map((r, i) => ({ ...r, key: `k${i}` }))
        const v = judgeLookalikes(items)
        const reversed = judgeLookalikes([...items].reverse())
        for (const [key, verdict] of v) expect(reversed.get(key)?.rank).toBe(verdict.rank)
        const sets = new Map<string, number[]>()
        for (const verdict of v.values())
          sets.set(verdict.set, [...(sets.get(verdict.set) ?? []), verdict.rank])
        for (const [set, ranks] of sets) {
          expect(ranks.sort((a, b) => a - b)).toEqual(ranks.map((_, i) => i))
          const originals = [...v.values()].filter((x) => x.set === set && x.original)
          expect(originals.length).toBeLessThanOrEqual(1)
        }
      }),
    )
  })
})

describe('groups on different relays', () => {
  test('are never ranked against each other: another relay’s operator may be the one copying', () => {
    const v = judgeLookalikes([
      { key: 'ours', name: 'General', scope: 'wss://ours.example', origin: stranger({ createdAt: 500 }) },
      // A relay run by the copier: its own key made the group and its clock says 2020.
      {
        key: 'theirs',
        name: 'General',
        scope: 'wss://theirs.example',
        origin: { byOperator: true, createdAt: 1 },
      },
    ])
    for (const key of ['ours', 'theirs'])
      expect(v.get(key)).toMatchObject({ rank: 0, original: false, elsewhere: true, undecided: false })
    expect(v.get('theirs')?.warning).toBeUndefined()
    expect(v.get('ours')?.warning).toBeUndefined()
  })

  test('within one relay they still are, and the twin elsewhere is noted', () => {
    const v = judgeLookalikes([
      { key: 'real', name: 'General', scope: 'a', origin: operator },
      { key: 'copy', name: 'General', scope: 'a', origin: stranger({ createdAt: 2_000 }) },
      { key: 'far', name: 'General', scope: 'b' },
    ])
    expect(v.get('real')).toMatchObject({ original: true, elsewhere: true, size: 2 })
    expect(v.get('copy')).toMatchObject({ warning: 'operator', elsewhere: true })
    expect(v.get('far')).toMatchObject({ original: false, undecided: false, size: 1, elsewhere: true })
  })
})

describe('inRankOrder', () => {
  test('each look-alike set is put in rank order in the places it held; the rest stay', () => {
    const v = judgeLookalikes([
      { key: 'fake', name: 'General', origin: stranger() },
      { key: 'real', name: 'General', origin: operator },
      { key: 'x', name: 'X' },
      { key: 'y', name: 'Y' },
    ])
    expect(inRankOrder(['x', 'fake', 'y', 'real'], (k) => k, v)).toEqual(['x', 'real', 'y', 'fake'])
  })
})
