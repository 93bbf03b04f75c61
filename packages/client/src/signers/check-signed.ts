import type { EventTemplate, NostrEvent, VerifiedEvent } from 'nostr-tools/core'
import { brandVerified, type Verifier } from '../verify'
import { InvalidTemplateError, SignerRefusedError } from './errors'

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

/**
 * Checks a template before it is signed and returns a plain copy of its four fields (so nothing
 * else on the object reaches a signer, and the caller's object is never mutated).
 */
export function checkTemplate(template: EventTemplate): EventTemplate {
  if (template === null || typeof template !== 'object')
    throw new InvalidTemplateError('a template is an object')
  const { kind, created_at, content, tags } = template
  if (!Number.isInteger(kind) || kind < 0 || kind > 65535) {
    throw new InvalidTemplateError(`kind must be an integer in 0–65535 (got ${String(kind)})`)
  }
  if (!Number.isSafeInteger(created_at) || created_at < 0) {
    throw new InvalidTemplateError(
      `created_at must be a non-negative integer of seconds (got ${String(created_at)})`,
    )
  }
  if (typeof content !== 'string') throw new InvalidTemplateError('content must be a string')
  if (!Array.isArray(tags) || !tags.every((t) => Array.isArray(t) && t.every((v) => typeof v === 'string'))) {
    throw new InvalidTemplateError('tags must be an array of arrays of strings')
  }
  return { kind, created_at, content, tags: tags.map((t) => t.slice()) }
}
