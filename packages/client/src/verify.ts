import { verifiedSymbol as rootSymbol } from 'nostr-tools'
import { type NostrEvent, validateEvent, verifiedSymbol } from 'nostr-tools/core'
import { verifiedSymbol as pureSymbol, verifyEvent } from 'nostr-tools/pure'

/**
 * nostr-tools builds each entry point (`nostr-tools`, `/core`, `/pure`, …) as a self-contained
 * bundle, so each has its own `verifiedSymbol`: a brand set through one is invisible through the
 * others. We set and read the three that applications import, so a brand is seen whichever entry
 * point the caller took `verifiedSymbol` from, and nostr-tools' own `verifyEvent` skips our events.
 */
const BRANDS: readonly symbol[] = [...new Set([verifiedSymbol, rootSymbol, pureSymbol])] as symbol[]
const [B0, B1 = B0, B2 = B0] = BRANDS as [symbol, symbol?, symbol?]

/**
 * True when the event carries the verified brand (from us or from nostr-tools, any entry point).
 *
 * @example
 * if (!isVerified(event)) verifier.verify(event)
 */
export function isVerified(event: NostrEvent): boolean {
  const e = event as unknown as Record<symbol, unknown>
  return e[B0] === true || e[B1] === true || e[B2] === true
}

/**
 * Sets the verified brand (all nostr-tools copies of the symbol) to `ok`. For code that knows an
 * event is verified without checking, e.g. a store reading back what it stored after verification.
 *
 * @example
 * brandVerified(JSON.parse(row.json))
 */
export function brandVerified<T extends NostrEvent>(event: T, ok = true): T {
  const e = event as unknown as Record<symbol, unknown>
  // Three plain stores, not a loop over BRANDS: every event read back from a store comes through here.
  e[B0] = ok
  e[B1] = ok
  e[B2] = ok
  return event
}

/**
 * Checks an event's id (the sha256 of its serialization) and its Schnorr signature, and brands
 * the event with nostr-tools' `verifiedSymbol` so it is never checked twice: an event already
 * branded `true` (by us, by nostr-tools, or by a store returning its own events) is accepted
 * without work. Malformed input returns false, never throws.
 *
 * @example
 * const verifier = await createVerifier()
 * if (verifier.verify(event)) store.add(event, key.toString())
 */
export interface Verifier {
  /** True when the event's id is its hash and its signature is valid; brands it verified then. */
  verify(event: NostrEvent): boolean
}

/**
 * A {@link Verifier} that says which backend it runs on.
 *
 * @example
 * const v: NamedVerifier = await createVerifier()
 * if (v.backend === 'noble') console.info('WebAssembly unavailable, verifying in JavaScript')
 */
export interface NamedVerifier extends Verifier {
  /** `wasm` (nostr-wasm) or `noble` (JavaScript, when WebAssembly is unavailable). */
  readonly backend: 'wasm' | 'noble'
}

const HEX64 = /^[0-9a-f]{64}$/
const HEX128 = /^[0-9a-f]{128}$/

function wellFormed(event: NostrEvent): boolean {
  return (
    validateEvent(event) &&
    typeof event.id === 'string' &&
    HEX64.test(event.id) &&
    typeof event.sig === 'string' &&
    HEX128.test(event.sig) &&
    Number.isSafeInteger(event.created_at) &&
    Number.isSafeInteger(event.kind)
  )
}

function brand(event: NostrEvent, ok: boolean): boolean {
  brandVerified(event, ok)
  return ok
}

/**
 * Verification with @noble/curves through nostr-tools' `verifyEvent` (pure JavaScript, works
 * everywhere; ~6× slower than the wasm backend).
 *
 * @example
 * nobleVerifier.verify(event) // true, and event[verifiedSymbol] === true
 */
export const nobleVerifier: NamedVerifier = {
  backend: 'noble',
  verify(event: NostrEvent): boolean {
    if (event === null || typeof event !== 'object') return false
    if (isVerified(event)) return true
    if (!wellFormed(event)) return brand(event, false)
    // nostr-tools trusts a cached `false` too; we only trust `true`, so clear it first.
    delete (event as { [pureSymbol]?: boolean })[pureSymbol]
    try {
      return brand(event, verifyEvent(event))
    } catch {
      return brand(event, false)
    }
  },
}

/**
 * The part of nostr-wasm's instance this module uses.
 *
 * @example
 * const nw: NostrWasmLike = await initNostrWasm()
 */
export interface NostrWasmLike {
  /** Throws unless the id and the signature are both right. */
  verifyEvent(event: NostrEvent): void
}

/**
 * A {@link Verifier} over an initialized nostr-wasm instance (libsecp256k1 compiled to wasm).
 *
 * @example
 * import { initNostrWasm } from 'nostr-wasm'
 * const verifier = wasmVerifier(await initNostrWasm())
 */
export function wasmVerifier(nw: NostrWasmLike): NamedVerifier {
  return {
    backend: 'wasm',
    verify(event: NostrEvent): boolean {
      if (event === null || typeof event !== 'object') return false
      if (isVerified(event)) return true
      if (!wellFormed(event)) return brand(event, false)
      try {
        nw.verifyEvent(event)
        return brand(event, true)
      } catch {
        return brand(event, false)
      }
    },
  }
}

let wasmLoading: Promise<NamedVerifier | undefined> | undefined

async function loadWasm(load: () => Promise<NostrWasmLike>): Promise<NamedVerifier | undefined> {
  try {
    if (typeof WebAssembly !== 'object') return undefined
    return wasmVerifier(await load())
  } catch {
    return undefined
  }
}

async function defaultWasm(): Promise<NostrWasmLike> {
  const { initNostrWasm } = await import('nostr-wasm')
  return initNostrWasm()
}

/** Options for {@link createVerifier}. */
export interface VerifierOptions {
  /** `'noble'` skips the wasm attempt. */
  prefer?: 'wasm' | 'noble'
  /**
   * Loads the wasm backend (default: nostr-wasm's embedded module, loaded once and shared). A
   * loader that throws makes {@link createVerifier} fall back to noble.
   */
  loadWasm?: () => Promise<NostrWasmLike>
}

/**
 * The fastest verifier this platform offers: nostr-wasm where WebAssembly loads (Node and
 * browsers; the module is loaded once and shared), {@link nobleVerifier} otherwise, e.g. under
 * a CSP without `wasm-unsafe-eval`.
 *
 * @example
 * const verifier = await createVerifier()
 * console.log(verifier.backend) // 'wasm'
 * const pool = new RelayPool({ verifier })
 */
export async function createVerifier(opts: VerifierOptions = {}): Promise<NamedVerifier> {
  if (opts.prefer === 'noble') return nobleVerifier
  if (opts.loadWasm) return (await loadWasm(opts.loadWasm)) ?? nobleVerifier
  wasmLoading ??= loadWasm(defaultWasm)
  return (await wasmLoading) ?? nobleVerifier
}
