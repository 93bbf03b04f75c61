import type { EventTemplate, NostrEvent, VerifiedEvent } from 'nostr-tools/core'
import { brandVerified, type Verifier } from '../verify'
import { SignerRefusedError } from './errors'

/**
 * Checks an event that came back from an external signer (extension or bunker): it must verify,
 * be signed by the expected key, and carry exactly the template's kind, tags, content and
 * created_at (a signer that alters what the user asked to sign is refused).
 */
export function checkSigned(
  signed: unknown,
  template: EventTemplate,
  pubkey: string,
  verifier: Verifier,
): VerifiedEvent {
  const event = signed as NostrEvent
  if (!event || typeof event !== 'object') throw new SignerRefusedError('the signer returned no event')
  if (event.pubkey !== pubkey) throw new SignerRefusedError('the signer signed with another key')
  if (
    event.kind !== template.kind ||
    event.created_at !== template.created_at ||
    event.content !== template.content ||
    JSON.stringify(event.tags) !== JSON.stringify(template.tags)
  ) {
    throw new SignerRefusedError('the signer changed the event it was asked to sign')
  }
  // A result the signer itself branded is not taken on trust: check it here.
  brandVerified(event, false)
  if (!verifier.verify(event))
    throw new SignerRefusedError('the signer returned an event that does not verify')
  return event as VerifiedEvent
}
