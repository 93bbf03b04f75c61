import { finalizeEvent, generateSecretKey, verifyEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { defaultVerifier } from '../src/verify'

describe('the default signature check', () => {
  it('agrees with nostr-tools on valid, re-signed, tampered and malformed events', async () => {
    const verify = await defaultVerifier()
    expect(verify).not.toBe(verifyEvent) // nostr-wasm loaded
    const sk = generateSecretKey()
    const good = finalizeEvent({ kind: 9, created_at: 1_700_000_000, tags: [['h', 'g']], content: 'hi' }, sk)
    const cases = [
      good,
      { ...good, content: 'changed' },
      { ...good, id: '0'.repeat(64) },
      { ...good, sig: good.sig.replace(/^./, (c) => (c === '0' ? '1' : '0')) },
      { ...good, pubkey: 'zz' },
      { ...good, tags: [['h']] },
    ]
    // Fresh copies through JSON: a spread would carry nostr-tools' cached verdict along.
    const fresh = (e: object) => JSON.parse(JSON.stringify(e))
    const verdicts = cases.map((e) => [verify(fresh(e)), verifyEvent(fresh(e))])
    expect(verdicts).toEqual(cases.map((_, i) => (i === 0 ? [true, true] : [false, false])))
  })
})
