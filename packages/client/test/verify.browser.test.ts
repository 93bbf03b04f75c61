import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { createVerifier, nobleVerifier } from '../src/verify'

describe('createVerifier in Chromium', () => {
  it('loads nostr-wasm in the browser and agrees with noble', async () => {
    const verifier = await createVerifier()
    expect(verifier.backend).toBe('wasm')
    const event = finalizeEvent(
      { kind: 9, tags: [['h', 'g']], content: 'hi', created_at: 1 },
      generateSecretKey(),
    )
    const fresh = () => JSON.parse(JSON.stringify(event))
    expect(verifier.verify(fresh())).toBe(true)
    expect(nobleVerifier.verify(fresh())).toBe(true)
    expect(verifier.verify({ ...fresh(), content: 'tampered' })).toBe(false)
    expect(nobleVerifier.verify({ ...fresh(), content: 'tampered' })).toBe(false)
  })
})
