/**
 * Any failure as the UI shows it: the relay's own words when it said something. On its own so
 * that the search, the adapter and the app share it without importing each other.
 */
import type { Answer } from './types'

/**
 * The answer for a thrown error: a relay refusal's text, else the error's message.
 * @example toAnswer(new PublishRefusedError(relay, 'restricted: not a member')) // { ok: false, message: 'restricted: not a member' }
 */
export function toAnswer(err: unknown): Answer {
  if (err && typeof err === 'object') {
    const e = err as { relayMessage?: unknown; message?: unknown }
    if (typeof e.relayMessage === 'string' && e.relayMessage) return { ok: false, message: e.relayMessage }
    if (typeof e.message === 'string' && e.message) return { ok: false, message: e.message }
  }
  return { ok: false, message: String(err) }
}
