import { nip19 } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import {
  GroupReference,
  InvalidArgumentError,
  InvalidReferenceError,
  type InvalidReferenceReason,
} from '../src/index'
import { alice, RELAY, relayKey } from './helpers'

const naddr = nip19.naddrEncode({ kind: 39000, pubkey: relayKey, identifier: 'general', relays: [RELAY] })

function reason(input: string): InvalidReferenceReason | undefined {
  try {
    GroupReference.parse(input)
    return undefined
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidReferenceError)
    return (err as InvalidReferenceError).reason
  }
}

describe('GroupReference.parse: naddr', () => {
  it('reads id, relay and the relay key', () => {
    const ref = GroupReference.parse(naddr)
    expect(ref.id.value).toBe('general')
    expect(ref.relay).toBe(RELAY)
    expect(ref.relayKey).toBe(relayKey)
    expect(ref.invite).toBeUndefined()
    expect(ref.key().toString()).toBe("wss://groups.example.com'general")
  })

  it('splits ?invite= before bech32 decoding, with or without nostr:', () => {
    for (const input of [
      `${naddr}?invite=welcome`,
      `nostr:${naddr}?invite=welcome`,
      `  ${naddr}?invite=welcome\n`,
    ]) {
      const ref = GroupReference.parse(input)
      expect([ref.id.value, ref.invite, ref.relayKey]).toEqual(['general', 'welcome', relayKey])
    }
    expect(GroupReference.parse(`${naddr}?invite=a%20b%26c`).invite).toBe('a b&c')
    expect(GroupReference.parse(`${naddr}?invite=50%`).invite).toBe('50%')
    expect(GroupReference.parse(`${naddr}?x=1&invite=k`).invite).toBe('k')
    expect(GroupReference.parse(`${naddr}?invite=`).invite).toBeUndefined()
    expect(GroupReference.parse(`${naddr}?other=1`).invite).toBeUndefined()
  })

  it('normalizes the relay hint and skips unusable hints', () => {
    const two = nip19.naddrEncode({
      kind: 39000,
      pubkey: relayKey,
      identifier: 'g',
      relays: ['https://web.example', 'WSS://Groups.Example.com/'],
    })
    expect(GroupReference.parse(two).relay).toBe(RELAY)
  })

  it('names what is wrong: garbage, other entities, wrong kind, missing or bad relay, bad id', () => {
    expect(reason('')).toBe('empty')
    expect(reason('   ')).toBe('empty')
    expect(reason('naddr1garbage')).toBe('bad-bech32')
    expect(reason(`${naddr.slice(0, -1)}${naddr.endsWith('q') ? 'p' : 'q'}`)).toBe('bad-bech32')
    expect(reason(nip19.npubEncode(alice))).toBe('not-naddr')
    expect(reason(`nostr:${nip19.npubEncode(alice)}`)).toBe('not-naddr')
    expect(
      reason(nip19.naddrEncode({ kind: 30023, pubkey: relayKey, identifier: 'g', relays: [RELAY] })),
    ).toBe('wrong-kind')
    expect(reason(nip19.naddrEncode({ kind: 39000, pubkey: relayKey, identifier: 'g', relays: [] }))).toBe(
      'missing-relay',
    )
    expect(reason(nip19.naddrEncode({ kind: 39000, pubkey: relayKey, identifier: 'g' }))).toBe(
      'missing-relay',
    )
    expect(
      reason(
        nip19.naddrEncode({
          kind: 39000,
          pubkey: relayKey,
          identifier: 'g',
          relays: ['https://web.example'],
        }),
      ),
    ).toBe('bad-relay')
    expect(
      reason(nip19.naddrEncode({ kind: 39000, pubkey: relayKey, identifier: '  ', relays: [RELAY] })),
    ).toBe('bad-id')
    expect(reason(42 as unknown as string)).toBe('empty')
  })
})

describe('GroupReference.parse: web links to an naddr', () => {
  it('reads the naddr (and its invite) out of the link', () => {
    for (const link of [`https://njump.me/${naddr}`, `https://app.example/g/${naddr}?invite=welcome#x`]) {
      const ref = GroupReference.parse(link)
      expect([ref.id.value, ref.relay, ref.relayKey]).toEqual(['general', RELAY, relayKey])
    }
    expect(GroupReference.parse(`https://app.example/${naddr}?invite=welcome`).invite).toBe('welcome')
    expect(reason(`https://njump.me/${nip19.npubEncode(alice)}`)).toBe('bad-group-code')
  })
})

describe('GroupReference.parse: group codes', () => {
  it.each([
    ["groups.example.com'general", RELAY, 'general'],
    ["wss://groups.example.com'general", RELAY, 'general'],
    ["WSS://Groups.Example.com/'general", RELAY, 'general'],
    ["ws://127.0.0.1:7777'abc", 'ws://127.0.0.1:7777', 'abc'],
    ["ws://localhost:7777/sub'it's", 'ws://localhost:7777/sub', "it's"],
    ['wss://groups.example.com', RELAY, '_'],
  ])('%s', (input, relay, id) => {
    const ref = GroupReference.parse(input)
    expect([ref.relay, ref.id.value, ref.relayKey, ref.invite]).toEqual([relay, id, undefined, undefined])
  })

  it('reads ?invite= on a group code too', () => {
    const ref = GroupReference.parse("groups.example.com'general?invite=w%2Fx")
    expect([ref.id.value, ref.invite]).toEqual(['general', 'w/x'])
  })

  it('names what is wrong', () => {
    expect(reason('hello')).toBe('bad-group-code')
    expect(reason('not a reference')).toBe('bad-group-code')
    expect(reason("https://groups.example.com'general")).toBe('bad-relay')
    expect(reason("'general")).toBe('bad-relay')
    expect(reason("groups.example.com'")).toBe('bad-id')
    expect(reason("groups.example.com'  ")).toBe('bad-id')
  })
})

describe('GroupReference encoding', () => {
  it('toNaddr round-trips with and without the invite code', () => {
    const ref = GroupReference.parse(`${naddr}?invite=welcome`)
    const withCode = ref.toNaddr()
    expect(withCode.endsWith('?invite=welcome')).toBe(true)
    expect(GroupReference.parse(withCode)).toEqual(ref)
    const without = ref.toNaddr({ invite: false })
    expect(without).toBe(naddr)
    expect(GroupReference.parse(without).invite).toBeUndefined()
  })

  it('toNaddr needs the relay key, which a group code lacks', () => {
    const ref = GroupReference.parse("groups.example.com'general")
    expect(() => ref.toNaddr()).toThrow(InvalidArgumentError)
    expect(GroupReference.parse(ref.toNaddr({ relayKey })).relayKey).toBe(relayKey)
  })

  it('toNaddr refuses ids too long for an naddr instead of corrupting it', () => {
    const ref = new GroupReference({ id: 'x'.repeat(256), relay: RELAY, relayKey })
    expect(() => ref.toNaddr()).toThrow(InvalidArgumentError)
    expect(
      GroupReference.parse(new GroupReference({ id: 'x'.repeat(255), relay: RELAY, relayKey }).toNaddr()).id
        .value,
    ).toHaveLength(255)
  })

  it('toCode writes the group code, with the invite unless told not to', () => {
    const ref = new GroupReference({ id: 'general', relay: 'groups.example.com', invite: 'a&b' })
    expect(ref.toCode()).toBe("wss://groups.example.com'general?invite=a%26b")
    expect(ref.toCode({ invite: false })).toBe("wss://groups.example.com'general")
    expect(GroupReference.parse(ref.toCode())).toEqual(ref)
  })

  it('the constructor validates its parts', () => {
    expect(() => new GroupReference({ id: 'g', relay: RELAY, relayKey: 'nope' })).toThrow(
      InvalidArgumentError,
    )
    expect(new GroupReference({ id: 'g', relay: RELAY, invite: '' }).invite).toBeUndefined()
  })
})

describe('GroupReference.parse: hosts that look like bech32 prefixes', () => {
  it('still reads them as group codes', () => {
    expect(GroupReference.parse("note1.example.com'g").relay).toBe('wss://note1.example.com')
  })
})
