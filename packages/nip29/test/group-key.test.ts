import { describe, expect, it } from 'vitest'
import {
  GroupId,
  GroupKey,
  InvalidGroupIdError,
  InvalidReferenceError,
  InvalidRelayUrlError,
} from '../src/index'

describe('GroupKey', () => {
  it("normalizes the relay and prints <relay-url>'<id>", () => {
    const key = new GroupKey('WSS://Groups.Example.com:443/', 'general')
    expect(key.relay).toBe('wss://groups.example.com')
    expect(key.id).toEqual(GroupId.parse('general'))
    expect(key.toString()).toBe("wss://groups.example.com'general")
  })

  it('parse inverts toString, even for ids containing a quote', () => {
    for (const key of [new GroupKey('ws://127.0.0.1:7777', "it's"), new GroupKey('wss://r.example/p', '_')]) {
      const back = GroupKey.parse(key.toString())
      expect(back.equals(key)).toBe(true)
      expect(back.toString()).toBe(key.toString())
    }
  })

  it('tells forks apart: the same id on two relays is two groups', () => {
    const a = new GroupKey('wss://a.example', 'general')
    expect(a.equals(new GroupKey('wss://b.example', 'general'))).toBe(false)
    expect(a.equals(new GroupKey('wss://a.example', 'other'))).toBe(false)
    expect(a.equals(new GroupKey('a.example/', GroupId.parse('general')))).toBe(true)
  })

  it('rejects bad parts with typed errors', () => {
    expect(() => new GroupKey('https://a.example', 'x')).toThrow(InvalidRelayUrlError)
    expect(() => new GroupKey('wss://a.example', ' ')).toThrow(InvalidGroupIdError)
    expect(() => GroupKey.parse('wss://a.example')).toThrow(InvalidReferenceError)
    expect(() => GroupKey.parse("https://a.example'x")).toThrow(InvalidRelayUrlError)
    expect(() => GroupKey.parse("wss://a.example'")).toThrow(InvalidGroupIdError)
    expect(() => GroupKey.parse(7 as unknown as string)).toThrow(InvalidReferenceError)
  })
})
