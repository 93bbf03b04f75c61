import { describe, expect, it } from 'vitest'
import { isCreatedAtRefusal, isPreviousRefusal, refusalWantsNewEvent } from '../src'

describe('which refusals a new event cures', () => {
  it('previous references the relay does not know, or too few of them', () => {
    expect(isPreviousRefusal("blocked: previous id 'abcd1234' wasn't found in this relay")).toBe(true)
    expect(isPreviousRefusal('blocked: at least 3 previous references are required, got 1')).toBe(true)
    expect(isPreviousRefusal('blocked: event too old')).toBe(false)
  })

  it('a created_at outside the relay window, as the relays we know word it', () => {
    for (const m of [
      'blocked: event too old',
      'blocked: event too much in the future',
      'invalid: created_at is too far in the future',
      'blocked: moderation action is too old (older than 1 minute ago)',
    ])
      expect(isCreatedAtRefusal(m), m).toBe(true)
  })

  it('anything else is sent again as the same event', () => {
    for (const m of [
      'restricted: not a member',
      'invalid: content too long',
      'auth-required: please authenticate',
      'rate-limited: slow down',
      'error: shutting down',
    ])
      expect(refusalWantsNewEvent(m), m).toBe(false)
    expect(refusalWantsNewEvent("invalid: previous id 'ab12cd34' wasn't found")).toBe(true)
    expect(refusalWantsNewEvent('blocked: event too old')).toBe(true)
  })
})
