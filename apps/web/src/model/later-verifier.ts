/**
 * Signature checks for the app's relay pool: in JavaScript (noble) until the WebAssembly backend
 * is loaded, then with it. Loading that backend compiles a large module on the page, so the app
 * asks for it once the cached groups are painted rather than as the first socket opens.
 */
import { createVerifier, nobleVerifier, type Verifier } from '@roost/client'
import type { NostrEvent } from 'nostr-tools'

export class LaterVerifier implements Verifier {
  private current: Verifier = nobleVerifier
  private loading: Promise<void> | undefined

  constructor(private readonly create: () => Promise<Verifier> = () => createVerifier()) {}

  verify(event: NostrEvent): boolean {
    return this.current.verify(event)
  }

  /** Loads the fastest backend (once); checks move to it when it is ready. */
  load(): Promise<void> {
    this.loading ??= this.create().then(
      (v) => {
        this.current = v
      },
      () => undefined,
    )
    return this.loading
  }
}
