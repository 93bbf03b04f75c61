import { describe, expect, it } from 'vitest'
import {
  InvalidArgumentError,
  InvalidGroupIdError,
  InvalidRelayUrlError,
  LIVEKIT_PATH,
  livekitTokenUrl,
  parseLiveKitToken,
  relayHttpUrl,
} from '../src/index'

describe('LiveKit URLs', () => {
  it("maps the relay URL to its HTTP origin and the group's token URL", () => {
    expect(relayHttpUrl('wss://Groups.Example.com/')).toBe('https://groups.example.com')
    expect(relayHttpUrl('ws://127.0.0.1:7777')).toBe('http://127.0.0.1:7777')
    expect(relayHttpUrl('groups.example.com/nostr')).toBe('https://groups.example.com/nostr')
    expect(livekitTokenUrl('wss://groups.example.com')).toBe(`https://groups.example.com${LIVEKIT_PATH}`)
    expect(livekitTokenUrl('wss://groups.example.com', ' pizza night/1 ')).toBe(
      'https://groups.example.com/.well-known/nip29/livekit/pizza%20night%2F1',
    )
  })

  it('refuses a relay URL or group id that cannot be used', () => {
    expect(() => relayHttpUrl('https://groups.example.com')).toThrow(InvalidRelayUrlError)
    expect(() => livekitTokenUrl('wss://g.example', '')).toThrow(InvalidGroupIdError)
  })
})

describe('parseLiveKitToken', () => {
  const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'

  it('keeps a ws(s) URL and a JWT-shaped token', () => {
    expect(parseLiveKitToken({ url: 'wss://lk.example', token, extra: 1 })).toEqual({
      url: 'wss://lk.example',
      token,
    })
  })

  it('names the bad field', () => {
    for (const [value, field] of [
      [null, 'object'],
      [{ token }, 'url'],
      [{ url: 'javascript:alert(1)', token }, 'url'],
      [{ url: 'not a url', token }, 'url'],
      [{ url: 'wss://lk.example' }, 'token'],
      [{ url: 'wss://lk.example', token: 'a.b' }, 'token'],
      [{ url: 'wss://lk.example', token: '<script>.a.b' }, 'token'],
    ] as const) {
      expect(() => parseLiveKitToken(value)).toThrow(InvalidArgumentError)
      expect(() => parseLiveKitToken(value)).toThrow(new RegExp(field))
    }
  })
})
