import type { RelayInfo } from '@roost/client'
import { describe, expect, test } from 'vitest'
import { mayAutoLoad, trustedOrigins } from '../../src/lib/media-hosts'
import { MediaServers } from '../../src/model/media'

const RELAY = 'ws://127.0.0.1:7777'
const MEDIA = 'http://127.0.0.1:7778'
const named: RelayInfo = { roost: { blossom: { url: MEDIA } } }

describe('each relay’s media origin', () => {
  test('uploads go to the origin NIP-11 names; a relay that could not be asked is asked again', async () => {
    const answers: (RelayInfo | undefined | Error)[] = [new Error('offline'), undefined, named]
    let asked = 0
    let changes = 0
    const media = new MediaServers(
      async () => {
        asked++
        const next = answers.shift()
        if (next instanceof Error) throw next
        return next
      },
      () => changes++,
    )
    // Unreachable, then no document: the relay's own origin, and nothing remembered.
    expect(await media.serverFor(RELAY)).toBe('http://127.0.0.1:7777')
    expect(await media.serverFor(RELAY)).toBe('http://127.0.0.1:7777')
    expect(media.known()).toEqual({})
    expect(await media.serverFor(RELAY)).toBe(MEDIA)
    expect(media.known()).toEqual({ [RELAY]: MEDIA })
    expect(changes).toBe(1)
    // Known now: no more questions, and one at a time while asking.
    expect(await media.serverFor(RELAY)).toBe(MEDIA)
    expect(asked).toBe(3)
  })

  test('asks once for concurrent questions about one relay', async () => {
    let asked = 0
    const media = new MediaServers(
      async () => {
        asked++
        return named
      },
      () => undefined,
    )
    media.learn([RELAY, RELAY])
    expect(await Promise.all([media.serverFor(RELAY), media.serverFor(RELAY)])).toEqual([MEDIA, MEDIA])
    expect(asked).toBe(1)
  })

  test('images from a relay’s media origin load without a click; from its neighbour port they do not', () => {
    const trusted = trustedOrigins(undefined, [RELAY], [MEDIA])
    expect(mayAutoLoad(`${MEDIA}/${'a'.repeat(64)}.png`, trusted, false)).toBe(true)
    expect(mayAutoLoad('http://127.0.0.1:7779/x.png', trusted, false)).toBe(false)
    expect(trustedOrigins(undefined, [RELAY]).has(MEDIA)).toBe(false)
  })
})
