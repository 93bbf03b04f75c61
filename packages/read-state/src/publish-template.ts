import type { EventTemplate } from 'nostr-tools'
import type { Effect } from './engine-types'

/**
 * The event template of a `publish` effect once its plaintext is encrypted to self.
 *
 * @example
 * const content = await signer.nip44.encrypt(pubkey, effect.plaintext)
 * const event = await signer.signEvent(publishTemplate(effect, content))
 */
export function publishTemplate(
  effect: Extract<Effect, { type: 'publish' }>,
  content: string,
): EventTemplate {
  return { kind: effect.kind, created_at: effect.createdAt, tags: effect.tags.map((t) => [...t]), content }
}
