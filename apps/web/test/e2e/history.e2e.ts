import { describe, expect, test } from 'vitest'
import { joinByCode, messageIn, withStack } from './harness'
import { historyEvents, IMPORT_OPTIONS, publishAll } from './seed'

const COUNT = 400
const {
  stack,
  people: [ada],
} = withStack({
  relay: { ...IMPORT_OPTIONS },
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'history', name: 'History' })
    await publishAll(relay.url, historyEvents('history', COUNT))
  },
  people: ['Ada'],
})

describe('long history', () => {
  test('the list is virtualized, and scrolling to the top loads older messages until the first', async () => {
    const { page } = ada
    await joinByCode(ada, `${stack.relay.url}'history`)
    await messageIn(ada, `History message ${COUNT} of ${COUNT}`).waitFor()
    const log = page.getByRole('log', { name: 'Messages' })
    // Scroll up until the very first message has loaded.
    await expect
      .poll(
        async () => {
          await log.evaluate((el) => {
            el.scrollTop = 0
          })
          return messageIn(ada, `History message 1 of ${COUNT}`).count()
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(1)
    const rows = Number(await log.getAttribute('data-rows'))
    expect(rows).toBeGreaterThanOrEqual(COUNT)
    // Only what is on screen (plus overscan) is in the DOM.
    const articles = await log.locator('article').count()
    expect(articles).toBeGreaterThan(5)
    expect(articles).toBeLessThan(60)
    expect(ada.errors).toEqual([])
  })
})
