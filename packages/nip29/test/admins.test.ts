import { describe, expect, it } from 'vitest'
import { GroupAdmins, GroupMembers, GroupRoles, InvalidEventError } from '../src/index'
import { alice, aliceSecret, bob, carol, relayKey, signed, state } from './helpers'

describe('GroupAdmins', () => {
  it("parses the spec's own example, free-form roles included", () => {
    const admins = GroupAdmins.parse(
      state(39001, 'pizza', [
        ['p', alice, 'ceo'],
        ['p', bob, 'secretary', 'gardener'],
      ]),
    )
    expect(admins.id).toBe('pizza')
    expect(admins.relayKey).toBe(relayKey)
    expect(admins.entries).toEqual([
      { pubkey: alice, roles: ['ceo'] },
      { pubkey: bob, roles: ['secretary', 'gardener'] },
    ])
    expect(admins.contains(bob)).toBe(true)
    expect(admins.hasRole(bob, 'gardener')).toBe(true)
    expect(admins.contains(carol)).toBe(false)
  })

  it('compares roles case-insensitively', () => {
    const admins = GroupAdmins.parse(state(39001, 'g', [['p', alice, 'Admin']]))
    expect(admins.hasRole(alice, 'admin')).toBe(true)
    expect(admins.hasRole(alice, ' ADMIN ')).toBe(true)
    expect(admins.hasRole(alice, 'moderator')).toBe(false)
    expect(admins.rolesOf(alice)).toEqual(['Admin'])
    expect(admins.rolesOf(carol)).toEqual([])
  })

  it('counts a role-less entry as an admin, and a member-only or empty-role entry as not', () => {
    const admins = GroupAdmins.parse(
      state(39001, 'g', [
        ['p', alice],
        ['p', bob, 'Member'],
        ['p', carol, '', ''],
      ]),
    )
    expect(admins.contains(alice)).toBe(true)
    expect(admins.contains(bob)).toBe(false)
    expect(admins.contains(carol)).toBe(true)
  })

  it('skips invalid pubkeys and merges repeated entries', () => {
    const admins = GroupAdmins.parse(
      state(39001, 'g', [
        ['p', 'not-hex', 'admin'],
        ['p', alice.toUpperCase(), 'admin'],
        ['p', alice, 'admin'],
        ['p', alice, 'ADMIN', 'mod'],
        ['p'],
      ]),
    )
    expect(admins.entries).toEqual([{ pubkey: alice, roles: ['admin', 'mod'] }])
  })

  it('every state parser refuses another author when given the relay key', () => {
    const byAlice = (kind: number) => signed(aliceSecret, kind, [['d', 'g']])
    for (const parse of [GroupAdmins.parse, GroupMembers.parse, GroupRoles.parse]) {
      for (const kind of [39001, 39002, 39003]) {
        try {
          parse(byAlice(kind), { relayKey })
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidEventError)
          continue
        }
        expect.unreachable('parsed an event by another author')
      }
    }
    expect(GroupMembers.parse(state(39002, 'g', [['p', alice]]), { relayKey }).contains(alice)).toBe(true)
  })

  it('rejects other kinds with InvalidEventError', () => {
    expect(() => GroupAdmins.parse(state(39002, 'g', []))).toThrow(InvalidEventError)
    expect(() => GroupAdmins.parse(signed(aliceSecret, 39001, []))).toThrow(InvalidEventError)
  })
})

describe('GroupMembers', () => {
  it('lists members in order, with any roles beside them', () => {
    const members = GroupMembers.parse(
      state(39002, 'g', [
        ['p', alice],
        ['p', bob, 'member'],
        ['p', 'bad'],
      ]),
    )
    expect(members.pubkeys()).toEqual([alice, bob])
    expect(members.entries[1]).toEqual({ pubkey: bob, roles: ['member'] })
    expect(members.contains(alice)).toBe(true)
    expect(members.contains(carol)).toBe(false)
    expect(members.createdAt).toBe(1_700_000_000)
  })

  it('rejects other kinds', () => {
    expect(() => GroupMembers.parse(state(39001, 'g', []))).toThrow(InvalidEventError)
  })
})

describe('GroupRoles', () => {
  it('reads role names with optional descriptions', () => {
    const roles = GroupRoles.parse(
      state(39003, 'g', [
        ['role', 'admin', 'can do everything'],
        ['role', 'moderator'],
        ['role', 'Admin', 'duplicate in another case'],
        ['role', ''],
        ['role'],
        ['role', 'gardener', ''],
      ]),
    )
    expect(roles.roles).toEqual([
      { name: 'admin', description: 'can do everything' },
      { name: 'moderator' },
      { name: 'gardener' },
    ])
    expect(roles.get('ADMIN')?.description).toBe('can do everything')
    expect(roles.get('ceo')).toBeUndefined()
  })

  it('rejects other kinds', () => {
    expect(() => GroupRoles.parse(state(39000, 'g', []))).toThrow(InvalidEventError)
  })
})
