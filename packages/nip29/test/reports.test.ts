import { describe, expect, it } from 'vitest'
import { GroupId, InvalidArgumentError, parseReport, REPORT_TYPES } from '../src/index'
import { alice, aliceSecret, bob, signed } from './helpers'

const id = GroupId.parse('pizza')
const at = { createdAt: 1_700_000_000 }
const message = signed(aliceSecret, 9, [['h', 'pizza']])

describe('reports (NIP-56 kind 1984 in a group)', () => {
  it('a message: e with the type, p of its author, the reason as content, the group h and previous', () => {
    expect(
      id.report({ event: message }, { ...at, type: 'spam', reason: 'ten links', previous: ['aabbccdd'] }),
    ).toEqual({
      kind: 1984,
      content: 'ten links',
      tags: [
        ['h', 'pizza'],
        ['e', message.id, 'spam'],
        ['p', alice],
        ['previous', 'aabbccdd'],
      ],
      created_at: 1_700_000_000,
    })
  })

  it('a person: p with the type', () => {
    expect(id.report({ pubkey: bob }, { ...at, type: 'impersonation' }).tags).toEqual([
      ['h', 'pizza'],
      ['p', bob, 'impersonation'],
    ])
  })

  it('refuses an unknown type and a target that is no key or id', () => {
    expect(() => id.report({ pubkey: bob }, { type: 'rude' as 'spam' })).toThrow(InvalidArgumentError)
    expect(() => id.report({ pubkey: 'npub1…' }, { type: 'spam' })).toThrow(InvalidArgumentError)
    expect(() => id.report({ event: { id: 'x', pubkey: bob } }, { type: 'spam' })).toThrow(
      InvalidArgumentError,
    )
  })

  it('parses what it builds, and reads an unknown type as other', () => {
    for (const type of REPORT_TYPES) {
      const onMessage = signed(aliceSecret, 1984, id.report({ event: message }, { type, reason: 'r' }).tags, {
        content: 'r',
      })
      expect(parseReport(onMessage)).toMatchObject({ type, eventId: message.id, pubkey: alice, reason: 'r' })
      const onPerson = signed(aliceSecret, 1984, id.report({ pubkey: bob }, { type }).tags)
      expect(parseReport(onPerson)).toMatchObject({ type, pubkey: bob, reporter: alice })
      expect(parseReport(onPerson)?.eventId).toBeUndefined()
    }
    expect(parseReport(signed(aliceSecret, 1984, [['p', bob, 'rude']]))?.type).toBe('other')
    expect(parseReport(signed(aliceSecret, 1984, [['h', 'pizza']]))).toBeUndefined()
    expect(parseReport(message)).toBeUndefined()
  })
})
