import type { NostrEvent } from 'nostr-tools/core'
import { verifyEvent } from 'nostr-tools/pure'

/**
 * The relay's default signature check: nostr-wasm (libsecp256k1 in WebAssembly, about 5× noble
 * here) when it loads, nostr-tools' `verifyEvent` (noble) otherwise. Signature checks are most
 * of what ingest costs, so this is where the relay's throughput comes from.
 *
 * @example
 * const verify = await defaultVerifier()
 * verify(event) // true when the id and the signature are both right
 */
export async function defaultVerifier(): Promise<(event: NostrEvent) => boolean> {
  try {
    const { initNostrWasm } = await import('nostr-wasm')
    const nw = await initNostrWasm()
    return (event) => {
      try {
        nw.verifyEvent(event) // throws unless the id and the signature are right
        return true
      } catch {
        return false
      }
    }
  } catch {
    return verifyEvent
  }
}
