import { type BlobInput, readSlot } from '@roost/read-state'
import type { NostrEvent } from 'nostr-tools/core'
import type { Signer } from '../signers'
import type { Verifier } from '../verify'

/**
 * Turns read-state events into the engine's inputs: the signature is verified before anything is
 * decrypted (decision i), events of other authors or without a valid slot are dropped, our own
 * echoes are answered from what we sent, and a payload that does not open is passed as
 * undecryptable (`plaintext: null`). Remembers the ids it opened so a live re-delivery is skipped.
 */
export class BlobOpener {
  private readonly opened = new Set<string>()
  private readonly sentPlaintext = new Map<string, string>()

  constructor(
    private readonly signer: Signer,
    private readonly verifier: Verifier,
    private readonly pubkey: () => string,
  ) {}

  /** An id this opener has opened already. */
  seen(id: string): boolean {
    return this.opened.has(id)
  }

  /** Records the plaintext of a blob we signed, so its echo needs no decryption. */
  sent(id: string, plaintext: string): void {
    this.sentPlaintext.set(id, plaintext)
    if (this.sentPlaintext.size > 16) this.sentPlaintext.delete(this.sentPlaintext.keys().next().value!)
  }

  /** Verify, then decrypt to self. */
  async open(events: readonly NostrEvent[]): Promise<BlobInput[]> {
    const pubkey = this.pubkey()
    const out = await Promise.all(
      events.map(async (event): Promise<BlobInput | undefined> => {
        if (event.pubkey !== pubkey) return undefined
        if (!this.verifier.verify(event)) return undefined
        if (!readSlot(event, { pubkey }).ok) return undefined
        this.remember(event.id)
        const own = this.sentPlaintext.get(event.id)
        if (own !== undefined) return { event, plaintext: own } // our own echo: no need to decrypt
        try {
          return { event, plaintext: await this.signer.nip44.decrypt(pubkey, event.content) }
        } catch {
          return { event, plaintext: null }
        }
      }),
    )
    return out.filter((b): b is BlobInput => b !== undefined)
  }

  private remember(id: string): void {
    this.opened.add(id)
    if (this.opened.size > 2048) this.opened.delete(this.opened.values().next().value!)
  }
}
