import { PublishRefusedError, PublishTimeoutError } from '@roost/client'
import { describe, expect, test } from 'vitest'
import { parseRoute } from '../../src/App'
import { accessLabel } from '../../src/components/Sidebar'
import { clockAheadText, toAnswer, withClockHint } from '../../src/model/answer'

describe('toAnswer', () => {
  test("shows the relay's own words for a refusal, and the error text otherwise", () => {
    expect(toAnswer(new PublishRefusedError('ws://x', 'restricted: not a member'))).toEqual({
      ok: false,
      message: 'restricted: not a member',
    })
    expect(toAnswer(new PublishTimeoutError('ws://x', 10_000)).message).toMatch(
      /did not answer within 10000 ms/,
    )
    expect(toAnswer('boom')).toEqual({ ok: false, message: 'boom' })
  })
})

describe('withClockHint', () => {
  test('a send refused for a date in the future says how far ahead the device clock is', () => {
    const future = toAnswer(new PublishRefusedError('ws://x', 'blocked: event too much in the future'))
    expect(withClockHint(future, 600).message).toBe(
      'blocked: event too much in the future — your device clock is 10 minutes ahead',
    )
    expect(
      withClockHint({ ok: false, message: 'invalid: created_at is too far in the future' }, 50).message,
    ).toBe('invalid: created_at is too far in the future — your device clock is 1 minute ahead')
    expect(withClockHint(future, undefined).message).toMatch(/your device clock is ahead of the relay’s$/)
    const other = { ok: false, message: 'restricted: not a member' }
    expect(withClockHint(other, 600)).toBe(other)
    expect(withClockHint({ ok: true, message: '' }, 600)).toEqual({ ok: true, message: '' })
    expect(clockAheadText(3600)).toBe('your device clock is 60 minutes ahead')
  })
})

describe('accessLabel', () => {
  test('a member has no label; every other state says what it is, refusals with the reason', () => {
    expect(accessLabel({ status: 'member' })).toBeUndefined()
    expect(accessLabel({ status: 'pending', since: 1 })).toBe('Join request pending')
    expect(accessLabel({ status: 'refused', reason: 'blocked: banned' })).toBe('Refused: blocked: banned')
    expect(accessLabel({ status: 'removed' })).toBe('Not a member')
    expect(accessLabel({ status: 'unknown' })).toBe('Not joined')
  })
})

describe('parseRoute', () => {
  test('group, browse and join links round-trip through the hash', () => {
    const key = "ws://127.0.0.1:7777'general"
    expect(parseRoute(`#/g/${encodeURIComponent(key)}`)).toEqual({ type: 'group', key })
    expect(parseRoute('#/browse')).toEqual({ type: 'browse' })
    expect(parseRoute('#/join/naddr1abc%3Finvite%3Dx')).toEqual({ type: 'join', input: 'naddr1abc?invite=x' })
    expect(parseRoute('')).toEqual({ type: 'home' })
    expect(parseRoute('#/g/')).toEqual({ type: 'home' })
  })
})
