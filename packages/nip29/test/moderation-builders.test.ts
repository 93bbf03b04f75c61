import { finalizeEvent, verifyEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { GroupId, GroupMetadata, InvalidArgumentError, KINDS, MODERATION_KINDS } from '../src/index'
import { alice, aliceSecret, bob, relayKey, signed, state } from './helpers'

const id = GroupId.parse('pizza')
const at = { createdAt: 1_700_000_000 }
const eventId = signed(aliceSecret, 9, [['h', 'pizza']]).id

describe('moderation builders', () => {
  it('9000 put-user carries the p tag with its roles (PUT semantics)', () => {
    expect(id.putUser(bob, ['moderator', 'gardener'], { ...at, reason: 'promoted' })).toEqual({
      kind: 9000,
      content: 'promoted',
      tags: [
        ['h', 'pizza'],
        ['p', bob, 'moderator', 'gardener'],
      ],
      created_at: 1_700_000_000,
    })
    expect(id.putUser(bob, undefined, at).tags).toEqual([
      ['h', 'pizza'],
      ['p', bob],
    ])
    expect(() => id.putUser('npub1xyz')).toThrow(InvalidArgumentError)
    expect(() => id.putUser(bob, [''])).toThrow(InvalidArgumentError)
  })

  it('9001 remove-user', () => {
    expect(id.removeUser(bob, { ...at, reason: 'spam', previous: ['previous', 'aabbccdd'] })).toEqual({
      kind: 9001,
      content: 'spam',
      tags: [
        ['h', 'pizza'],
        ['p', bob],
        ['previous', 'aabbccdd'],
      ],
      created_at: 1_700_000_000,
    })
    expect(() => id.removeUser(bob.slice(1))).toThrow(InvalidArgumentError)
  })

  it('9002 edit-metadata replaces the full positive field set, in the spec order', () => {
    const t = id.editMetadata(
      {
        name: 'Pizza',
        picture: 'https://p.example/p.png',
        banner: 'https://p.example/b.png',
        about: 'Pizza lovers',
        private: true,
        restricted: false,
        hidden: true,
        closed: true,
        livekit: true,
        supportedKinds: [9, 11, 9000],
        parent: 'food',
        children: ['napoli', 'roma'],
      },
      at,
    )
    expect(t.kind).toBe(9002)
    expect(t.tags).toEqual([
      ['h', 'pizza'],
      ['name', 'Pizza'],
      ['picture', 'https://p.example/p.png'],
      ['banner', 'https://p.example/b.png'],
      ['about', 'Pizza lovers'],
      ['private'],
      ['hidden'],
      ['closed'],
      ['livekit'],
      ['supported_kinds', '9', '11', '9000'],
      ['parent', 'food'],
      ['child', 'napoli'],
      ['child', 'roma'],
    ])
  })

  it('9002 with no flags sends none (a public, open group), never the legacy public/open', () => {
    const t = id.editMetadata({ name: 'Open' }, at)
    expect(t.tags).toEqual([
      ['h', 'pizza'],
      ['name', 'Open'],
    ])
  })

  it('9002 reproduces a 39000 when fed its fields: what the relay reports is what we sent', () => {
    const t = id.editMetadata({ name: 'N', closed: true, supportedKinds: [] }, at)
    const echoed = GroupMetadata.parse(
      state(
        39000,
        'pizza',
        t.tags.filter((x) => x[0] !== 'h'),
      ),
    )
    expect(echoed.toFields()).toEqual({ name: 'N', closed: true, supportedKinds: [] })
  })

  it('9002 rejects fields that cannot be tags', () => {
    expect(() => id.editMetadata({ name: 3 as unknown as string })).toThrow(InvalidArgumentError)
    expect(() => id.editMetadata({ supportedKinds: [1.5] })).toThrow(InvalidArgumentError)
    expect(() => id.editMetadata({ parent: '' })).toThrow(InvalidArgumentError)
    expect(() => id.editMetadata({ children: [''] })).toThrow(InvalidArgumentError)
    expect(() => id.editMetadata(null as unknown as object)).toThrow(InvalidArgumentError)
  })

  it('9005 delete-event carries the e tag', () => {
    expect(id.deleteEvent(eventId, at).tags).toEqual([
      ['h', 'pizza'],
      ['e', eventId],
    ])
    expect(() => id.deleteEvent('abc')).toThrow(InvalidArgumentError)
  })

  it('9007 create-group and 9008 delete-group carry only h', () => {
    expect(id.createGroup(at)).toEqual({
      kind: 9007,
      content: '',
      tags: [['h', 'pizza']],
      created_at: 1_700_000_000,
    })
    expect(id.deleteGroup({ ...at, reason: 'archived' })).toEqual({
      kind: 9008,
      content: 'archived',
      tags: [['h', 'pizza']],
      created_at: 1_700_000_000,
    })
  })

  it('9009 create-invite carries one code tag per code', () => {
    expect(id.createInvite('welcome', at).tags).toEqual([
      ['h', 'pizza'],
      ['code', 'welcome'],
    ])
    expect(id.createInvite(['a', 'b'], at).tags).toEqual([
      ['h', 'pizza'],
      ['code', 'a'],
      ['code', 'b'],
    ])
    expect(() => id.createInvite('')).toThrow(InvalidArgumentError)
    expect(() => id.createInvite([])).toThrow(InvalidArgumentError)
  })

  it('9009 terms: uses, unlimited (reusable) and a NIP-40 expiration', () => {
    expect(id.createInvite('w', { ...at, uses: 25, expiresAt: 1_700_086_400 }).tags).toEqual([
      ['h', 'pizza'],
      ['code', 'w'],
      ['uses', '25'],
      ['expiration', '1700086400'],
    ])
    expect(id.createInvite('w', { ...at, uses: 'unlimited' }).tags).toEqual([
      ['h', 'pizza'],
      ['code', 'w'],
      ['reusable'],
    ])
    // One use is the default every relay knows: no tag for it.
    expect(id.createInvite('w', { ...at, uses: 1 }).tags).toEqual([
      ['h', 'pizza'],
      ['code', 'w'],
    ])
    for (const uses of [0, 2.5, 1_000_001])
      expect(() => id.createInvite('w', { uses })).toThrow(InvalidArgumentError)
    expect(() => id.createInvite('w', { expiresAt: -1 })).toThrow(InvalidArgumentError)
  })

  it('9010 update-pin-list carries the full ordered list of e ids and a addresses', () => {
    const address = `30023:${relayKey}:article`
    expect(id.pin([eventId, address, eventId], at).tags).toEqual([
      ['h', 'pizza'],
      ['e', eventId],
      ['a', address],
    ])
    expect(id.pin(eventId, at).tags).toEqual([
      ['h', 'pizza'],
      ['e', eventId],
    ])
    expect(id.pin([], at).tags).toEqual([['h', 'pizza']])
    expect(() => id.pin('not-an-id')).toThrow(InvalidArgumentError)
    expect(() => id.pin(5 as unknown as string)).toThrow(InvalidArgumentError)
  })

  it('every moderation builder yields its kind, and signs into a valid event', () => {
    const templates = [
      id.putUser(alice),
      id.removeUser(alice),
      id.editMetadata({}),
      id.deleteEvent(eventId),
      id.createGroup(),
      id.deleteGroup(),
      id.createInvite('c'),
      id.pin(eventId),
    ]
    expect(templates.map((t) => t.kind)).toEqual([...MODERATION_KINDS])
    for (const t of templates) {
      expect(t.tags[0]).toEqual(['h', 'pizza'])
      expect(verifyEvent(finalizeEvent(t, aliceSecret))).toBe(true)
    }
    expect(KINDS.pin).toBe(9010)
  })
})
