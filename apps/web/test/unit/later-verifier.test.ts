import { nobleVerifier, type Verifier } from '@roost/client'
import { finalizeEvent, generateSecretKey } from 'nostr-tools'
import { describe, expect, test } from 'vitest'
import { LaterVerifier } from '../../src/model/later-verifier'

const sk = generateSecretKey()
// Plain copies, as from the wire (no verified mark carried over).
const signed = () =>
  JSON.parse(
    JSON.stringify(finalizeEvent({ kind: 9, created_at: 1_700_000_000, content: 'hi', tags: [] }, sk)),
  )

describe('the pool’s verifier', () => {
  test('checks in JavaScript until the faster backend is loaded, then with it', async () => {
    const used: string[] = []
    const fast: Verifier = {
      verify: (e) => {
        used.push('fast')
        return nobleVerifier.verify(e)
      },
    }
    const v = new LaterVerifier(async () => fast)
    expect(v.verify(signed())).toBe(true)
    expect(v.verify({ ...signed(), content: 'forged' })).toBe(false)
    expect(used).toEqual([])
    await v.load()
    expect(v.verify(signed())).toBe(true)
    expect(used).toEqual(['fast'])
  })

  test('a backend that fails to load leaves the JavaScript one in place', async () => {
    const v = new LaterVerifier(() => Promise.reject(new Error('no wasm here')))
    await v.load()
    expect(v.verify(signed())).toBe(true)
    expect(v.verify({ ...signed(), content: 'forged' })).toBe(false)
  })
})
