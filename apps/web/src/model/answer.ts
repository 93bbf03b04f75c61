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

/** A relay's refusal of an event dated ahead of its clock (the fiatjaf family's and the generic one). */
const FUTURE = /too (much|far) in the future/i

/**
 * A failed answer refused for being dated in the future says why: how many minutes the device
 * clock runs ahead of the relay's (`aheadSeconds`, as the client last measured it), when known.
 *
 * @example withClockHint({ ok: false, message: 'blocked: event too much in the future' }, 600).message
 * // 'blocked: event too much in the future — your device clock is 10 minutes ahead'
 */
export function withClockHint(answer: Answer, aheadSeconds: number | undefined): Answer {
  if (answer.ok || !FUTURE.test(answer.message)) return answer
  return { ...answer, message: `${answer.message} — ${clockAheadText(aheadSeconds)}` }
}

/** "your device clock is N minutes ahead" (at least 1), or a plainer sentence when N is unknown. */
export function clockAheadText(seconds: number | undefined): string {
  if (seconds === undefined || !(seconds > 0)) return 'your device clock is ahead of the relay’s'
  const minutes = Math.max(1, Math.round(seconds / 60))
  return `your device clock is ${minutes} minute${minutes === 1 ? '' : 's'} ahead`
}
