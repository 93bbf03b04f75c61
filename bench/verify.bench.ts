/**
 * Signature verification: Roost's `createVerifier()` (nostr-wasm here) against nostr-tools'
 * `verifyEvent` (noble), over the same N signed events, each verified once from a fresh,
 * unbranded copy (as it arrives from a relay).
 */

import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey, verifyEvent } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import { createVerifier } from '../packages/client/src/verify'
import { record } from './lib'

const N = 2_000
const ROUNDS = 5

const nw = await initNostrWasm()
const keys = Array.from({ length: 20 }, () => generateSecretKey())
const events: NostrEvent[] = Array.from({ length: N }, (_, i) => {
  const e = {
    kind: 9,
    tags: [
      ['h', 'general'],
      ['previous', 'abcd1234', 'ef567890'],
    ],
    content: `message ${i} `.repeat(1 + (i % 8)),
    created_at: 1_700_000_000 + i,
  } as NostrEvent
  nw.finalizeEvent(e, keys[i % keys.length] as Uint8Array)
  return JSON.parse(JSON.stringify(e))
})
const json = JSON.stringify(events)

/** Events/second for one pass over fresh copies (the copy is not timed). */
function pass(verify: (e: NostrEvent) => boolean): number {
  const copies = JSON.parse(json) as NostrEvent[]
  const start = performance.now()
  let ok = 0
  for (const e of copies) if (verify(e)) ok++
  const elapsed = performance.now() - start
  if (ok !== N) throw new Error(`only ${ok} of ${N} verified`)
  return (N * 1000) / elapsed
}

const verifier = await createVerifier()
// Rounds alternate between the two sides so that load from elsewhere on the machine hits both.
let ours = 0
let baseline = 0
for (let r = 0; r < ROUNDS; r++) {
  baseline = Math.max(
    baseline,
    pass((e) => verifyEvent(e)),
  )
  ours = Math.max(
    ours,
    pass((e) => verifier.verify(e)),
  )
}
record({
  name: `verify-${N}-kind9`,
  unit: 'event',
  ours,
  baseline,
  notes: `ours: createVerifier() → ${verifier.backend}; baseline: nostr-tools/pure verifyEvent (noble); id + signature each, fresh copies`,
})

// A second pass over events already verified (a store read-back, a duplicate from another
// relay): both sides skip the work through the brand; nostr-tools caches on its own symbol.
function measureAgain(verify: (e: NostrEvent) => boolean): number {
  const seen = JSON.parse(json) as NostrEvent[]
  for (const e of seen) verify(e)
  let best = 0
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now()
    for (const e of seen) verify(e)
    best = Math.max(best, (N * 1000) / (performance.now() - start))
  }
  return best
}
record({
  name: `verify-${N}-kind9-already-verified`,
  unit: 'event',
  ours: measureAgain((e) => verifier.verify(e)),
  baseline: measureAgain((e) => verifyEvent(e)),
  notes: 'second look at verified events: ours reads the brand, nostr-tools its cached verifiedSymbol',
})
