/**
 * Which relay refusals a freshly signed event can cure. A refused event is otherwise sent again
 * as it was signed (same id, so a relay that took it after all answers `duplicate:`); a new event
 * is signed only when the refusal is about the event's own moment: its `previous` references (the
 * relay does not know them, or wants more), or its `created_at` outside the relay's window (too
 * old, too far in the future).
 *
 * @example
 * refusalWantsNewEvent("invalid: previous id 'ab12cd34' wasn't found") // true
 * refusalWantsNewEvent('blocked: event too old') // true
 * refusalWantsNewEvent('restricted: not a member') // false: the same event goes again
 */
export function refusalWantsNewEvent(message: string): boolean {
  return isPreviousRefusal(message) || isCreatedAtRefusal(message)
}

/**
 * A `previous` refusal: the fiatjaf family's "previous id '…' wasn't found in this relay/group" and
 * a minimum-count "at least 3 previous references are required".
 *
 * @example isPreviousRefusal('invalid: at least 3 previous references are required') // true
 */
export function isPreviousRefusal(message: string): boolean {
  return /previous/i.test(message) && /(wasn'?t|not) found|unknown|missing|required/i.test(message)
}

/**
 * A refusal for a `created_at` outside the relay's window: "event too old", "too much in the
 * future", "created_at is too far in the future", a moderation action "too old".
 *
 * @example isCreatedAtRefusal('blocked: event too much in the future') // true
 */
export function isCreatedAtRefusal(message: string): boolean {
  return /too old|too (much|far) in the future|created_at/i.test(message)
}
