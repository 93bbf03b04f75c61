import { describe, expect, it } from 'vitest'
import { detectForks, GroupAdmins, GroupKey, GroupList } from '../src/index'
import { alice, aliceSecret, bob, bobSecret, carol, carolSecret, signed, state } from './helpers'

const HOME = 'wss://home.example'
const key = new GroupKey(HOME, 'pizza')

function list(secret: Uint8Array, entries: [string, string][], createdAt = 1_700_000_000) {
  let l = GroupList.empty()
  for (const [id, relay] of entries) l = l.upsert({ id, relay })
  const t = l.toTemplate(createdAt)
  return signed(secret, t.kind, t.tags, { createdAt })
}

describe('detectForks', () => {
  it('is unknown without lists naming the group, here when they name only this relay', () => {
    expect(detectForks(key, [alice], [])).toEqual({ status: 'unknown', elsewhere: [], evidence: [] })
    const l = list(aliceSecret, [
      ['pizza', HOME],
      ['other', 'wss://x.example'],
    ])
    expect(detectForks(key, [alice], [l])).toMatchObject({ status: 'here', elsewhere: [] })
  })

  it('reports "also lives on" with the admins and lists as evidence', () => {
    const a = list(aliceSecret, [
      ['pizza', HOME],
      ['pizza', 'wss://mirror.example'],
    ])
    const b = list(bobSecret, [['pizza', 'wss://mirror.example/']])
    const report = detectForks(key, [alice, bob], [a, b])
    expect(report.status).toBe('also-lives-on')
    expect(report.elsewhere).toEqual([{ relay: 'wss://mirror.example', admins: [alice, bob].sort() }])
    expect(report.evidence).toEqual(
      [
        { admin: alice, listId: a.id, listCreatedAt: a.created_at, relays: [HOME, 'wss://mirror.example'] },
        { admin: bob, listId: b.id, listCreatedAt: b.created_at, relays: ['wss://mirror.example'] },
      ].sort((x, y) => (x.admin < y.admin ? -1 : 1)),
    )
  })

  it('reports "moved" when the admins list it only elsewhere, using each admin\'s newest list', () => {
    const old = list(aliceSecret, [['pizza', HOME]], 100)
    const moved = list(aliceSecret, [['pizza', 'wss://new.example']], 200)
    const report = detectForks(key, [alice], [moved, old])
    expect(report.status).toBe('moved')
    expect(report.elsewhere).toEqual([{ relay: 'wss://new.example', admins: [alice] }])
  })

  it('ignores lists by non-admins, other kinds and malformed events', () => {
    const stranger = list(carolSecret, [['pizza', 'wss://evil.example']])
    const notAList = signed(aliceSecret, 1, [['group', 'pizza', 'wss://evil.example']])
    const report = detectForks(
      key,
      [alice, 'nothex'],
      [stranger, notAList, null as never, { kind: 10009 } as never],
    )
    expect(report.status).toBe('unknown')
  })

  it('takes a GroupAdmins, counting only real admins', () => {
    const admins = GroupAdmins.parse(
      state(39001, 'pizza', [
        ['p', alice, 'admin'],
        ['p', carol, 'member'],
      ]),
    )
    const c = list(carolSecret, [['pizza', 'wss://elsewhere.example']])
    const a = list(aliceSecret, [['pizza', 'wss://moved.example']])
    expect(detectForks(key, admins, [c]).status).toBe('unknown')
    expect(detectForks(key, admins, [a, c])).toMatchObject({
      status: 'moved',
      elsewhere: [{ relay: 'wss://moved.example' }],
    })
  })

  it('orders sightings by how many admins vouch for them', () => {
    const a = list(aliceSecret, [
      ['pizza', 'wss://b.example'],
      ['pizza', 'wss://a.example'],
    ])
    const b = list(bobSecret, [['pizza', 'wss://b.example']])
    expect(detectForks(key, [alice, bob], [a, b]).elsewhere.map((s) => s.relay)).toEqual([
      'wss://b.example',
      'wss://a.example',
    ])
  })
})
