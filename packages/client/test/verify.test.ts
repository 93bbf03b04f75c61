import fc from 'fast-check'
import { verifiedSymbol as rootSymbol, verifyEvent as rootVerifyEvent } from 'nostr-tools'
import { type NostrEvent, verifiedSymbol } from 'nostr-tools/core'
import {
  finalizeEvent,
  generateSecretKey,
  verifiedSymbol as pureSymbol,
  verifyEvent as pureVerifyEvent,
} from 'nostr-tools/pure'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  brandVerified,
  createVerifier,
  isVerified,
  type NamedVerifier,
  nobleVerifier,
  type Verifier,
  wasmVerifier,
} from '../src/verify'

const secret = generateSecretKey()

function signed(content = 'hello', kind = 9): NostrEvent {
  const e = finalizeEvent({ kind, tags: [['h', 'general']], content, created_at: 1_700_000_000 }, secret)
  return unbranded(e)
}

/** A plain JSON copy: what arrives from a relay, no brand. */
function unbranded(e: NostrEvent): NostrEvent {
  return JSON.parse(JSON.stringify(e))
}

function flipHex(hex: string, at = 10): string {
  const c = hex[at] === '0' ? '1' : '0'
  return hex.slice(0, at) + c + hex.slice(at + 1)
}

let wasm: NamedVerifier

beforeAll(async () => {
  wasm = await createVerifier()
})

describe('createVerifier', () => {
  it('loads nostr-wasm in Node', () => {
    expect(wasm.backend).toBe('wasm')
  })

  it('falls back to noble when wasm cannot load (e.g. a CSP without wasm-unsafe-eval)', async () => {
    const verifier = await createVerifier({
      loadWasm: () =>
        Promise.reject(new WebAssembly.CompileError('WebAssembly.instantiate(): refused by CSP')),
    })
    expect(verifier.backend).toBe('noble')
    expect(verifier.verify(signed())).toBe(true)
    expect(await createVerifier()).toBe(wasm) // a failed custom load does not poison the shared one
  })

  it('uses an injected wasm loader', async () => {
    const { initNostrWasm } = await import('nostr-wasm')
    const verifier = await createVerifier({ loadWasm: initNostrWasm })
    expect(verifier.backend).toBe('wasm')
    expect(verifier).not.toBe(wasm)
    expect(verifier.verify(signed())).toBe(true)
  })

  it('returns noble when asked, and shares one wasm instance', async () => {
    expect((await createVerifier({ prefer: 'noble' })).backend).toBe('noble')
    expect(await createVerifier()).toBe(wasm)
  })
})

describe.each([
  ['wasm', () => wasm],
  ['noble', () => nobleVerifier],
])('%s verifier', (_name, get: () => Verifier) => {
  it('accepts a valid event and brands it', () => {
    const e = signed()
    expect(get().verify(e)).toBe(true)
    expect(e[verifiedSymbol]).toBe(true)
  })

  it.each([
    ['tampered id', (e: NostrEvent) => ({ ...e, id: flipHex(e.id) })],
    ['tampered sig', (e: NostrEvent) => ({ ...e, sig: flipHex(e.sig, 100) })],
    ['tampered content', (e: NostrEvent) => ({ ...e, content: `${e.content}!` })],
    ['tampered tags', (e: NostrEvent) => ({ ...e, tags: [['h', 'other']] })],
    ['tampered created_at', (e: NostrEvent) => ({ ...e, created_at: e.created_at + 1 })],
    ['tampered kind', (e: NostrEvent) => ({ ...e, kind: 1 })],
    ['another pubkey', (e: NostrEvent) => ({ ...e, pubkey: flipHex(e.pubkey) })],
  ])('refuses a %s and brands it false', (_label, tamper) => {
    const e = tamper(signed())
    expect(get().verify(e)).toBe(false)
    expect(e[verifiedSymbol]).toBe(false)
  })

  it('returns false, never throws, on malformed events', () => {
    const good = signed()
    const bad: unknown[] = [
      { ...good, id: 'zz' },
      { ...good, id: good.id.toUpperCase() },
      { ...good, sig: good.sig.slice(2) },
      { ...good, tags: 'nope' },
      { ...good, tags: [[1, 2]] },
      { ...good, content: 5 },
      { ...good, created_at: '1700000000' },
      { ...good, created_at: 1.5 },
      { ...good, pubkey: undefined },
      {},
    ]
    for (const e of bad) expect(get().verify(e as NostrEvent)).toBe(false)
    expect(get().verify(null as unknown as NostrEvent)).toBe(false)
  })

  it('does not verify an already-branded event again', () => {
    // A forged event carrying the brand passes: the brand means "checked by us before"
    // (what our own store returns), which is the point of branding.
    const forged = { ...signed(), content: 'forged' } as NostrEvent
    forged[verifiedSymbol] = true
    expect(get().verify(forged)).toBe(true)
  })

  it('re-checks an event branded false instead of trusting the cached failure', () => {
    const e = signed()
    e[verifiedSymbol] = false
    expect(get().verify(e)).toBe(true)
  })
})

describe('wasm and noble agree', () => {
  const tamper = fc.constantFrom('none', 'id', 'sig', 'content', 'pubkey', 'created_at')
  it('on random events, valid and tampered (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          kind: fc.integer({ min: 0, max: 40_000 }),
          content: fc.string({ maxLength: 200, unit: 'grapheme' }),
          tags: fc.array(fc.array(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 4 }), {
            maxLength: 5,
          }),
          created_at: fc.integer({ min: 0, max: 2 ** 32 }),
        }),
        tamper,
        fc.nat(63),
        (template, how, at) => {
          const e = unbranded(finalizeEvent({ ...template }, secret))
          if (how === 'id') e.id = flipHex(e.id, at)
          if (how === 'sig') e.sig = flipHex(e.sig, at * 2)
          if (how === 'content') e.content += 'x'
          if (how === 'pubkey') e.pubkey = flipHex(e.pubkey, at)
          if (how === 'created_at') e.created_at += 1
          const viaWasm = wasm.verify(unbranded(e))
          const viaNoble = nobleVerifier.verify(unbranded(e))
          expect(viaWasm).toBe(viaNoble)
          expect(viaWasm).toBe(how === 'none')
        },
      ),
      { numRuns: 150 },
    )
  })
})

describe('wasmVerifier', () => {
  it('wraps any nostr-wasm-shaped instance', () => {
    const calls: string[] = []
    const v = wasmVerifier({
      verifyEvent: (e) => {
        calls.push(e.id)
        throw new Error('id is invalid')
      },
    })
    expect(v.verify(signed())).toBe(false)
    expect(calls).toHaveLength(1)
  })
})

describe('the brand across nostr-tools entry points', () => {
  it('is one symbol per entry point in nostr-tools 2.25 (why we set all of them)', () => {
    expect(rootSymbol).not.toBe(verifiedSymbol)
    expect(pureSymbol).not.toBe(verifiedSymbol)
  })

  it('set by our verifier, is honoured by nostr-tools verifyEvent from any entry point', () => {
    const forged = { ...signed(), content: 'forged after verification' }
    brandVerified(forged)
    expect(forged[verifiedSymbol]).toBe(true)
    expect(rootVerifyEvent(forged)).toBe(true) // nostr-tools skips the check: the brand is seen
    expect(pureVerifyEvent(forged)).toBe(true)
  })

  it('set by nostr-tools (any entry point), is honoured by us', () => {
    for (const symbol of [rootSymbol, pureSymbol, verifiedSymbol]) {
      const e = { ...signed(), content: 'x' } as NostrEvent & Record<symbol, boolean>
      expect(isVerified(e)).toBe(false)
      e[symbol] = true
      expect(isVerified(e)).toBe(true)
      expect(nobleVerifier.verify(e)).toBe(true)
    }
  })
})
