/**
 * A device whose clock runs ten minutes ahead (Date moved in the page, as a wrong system clock
 * would): the relay refuses group events dated more than 60 s in its future, so the app dates
 * them by the relay's clock (its NIP-11 answer's `Date`). The message is accepted and shown to
 * the other member, or the failure says how far ahead the clock is.
 */
import { describe, expect, test } from 'vitest'
import { joinByCode, messageIn, screenshot, signUp, skewClock, withStack } from './harness'

const AHEAD_MS = 10 * 60 * 1000

const {
  stack,
  people: [sky, ada],
} = withStack({
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'lobby', name: 'Lobby' })
  },
  people: [{}, { name: 'Ada', join: ['lobby'] }],
})

describe('a device clock ten minutes ahead', () => {
  test('sends a message that the relay accepts and the other member sees', async () => {
    await skewClock(sky, AHEAD_MS)
    await signUp(stack, sky, 'Sky')
    expect(
      await sky.page.evaluate(() => Date.now() - performance.timeOrigin - performance.now()),
    ).toBeGreaterThan(AHEAD_MS - 60_000)
    await joinByCode(sky, `${stack.relay.url}'lobby`)
    const box = sky.page.getByRole('textbox', { name: 'Message Lobby' })
    await box.click()
    await box.pressSequentially('sent from the future', { delay: 20 })
    await box.press('Enter')

    const shown = messageIn(ada, 'sent from the future')
    const refused = sky.page
      .getByTestId('send-error')
      .filter({ hasText: /your device clock is \d+ minutes? ahead/ })
    await Promise.race([shown.waitFor({ timeout: 20_000 }), refused.waitFor({ timeout: 20_000 })])
    await screenshot(sky.page, 'clock-ahead')
    if (await refused.isVisible()) {
      expect(await refused.textContent()).toMatch(/your device clock is 10 minutes ahead/)
    } else {
      // Accepted by the relay (Ada got it from there), shown once on Sky's own screen.
      await messageIn(sky, 'sent from the future').waitFor()
      expect(await messageIn(sky, 'sent from the future').count()).toBe(1)
    }
  })
})
