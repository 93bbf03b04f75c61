import { describe, expect, test } from 'vitest'
import { layoutProblems, messageIn, type Person, screenshot, send, withStack } from './harness'

/** A message of many lines shows its first 15 until "Show more", on a desktop and on a phone. */
const {
  people: [ada, bob],
} = withStack({
  seed: async (stack) => {
    await stack.relay.createGroup({ id: 'talk', name: 'Talk' })
  },
  people: [
    { name: 'Ada', join: ['talk'] },
    { name: 'Bob', join: ['talk'], touch: true },
  ],
})

const LINES = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the minutes`)
const LONG = LINES.join('\n')

function longRow(person: Person) {
  return person.page.getByRole('log', { name: 'Messages' }).locator('article', { hasText: LINES[0]! })
}

/** The height of a message's text in lines of its own line height. */
function bodyLines(person: Person) {
  return longRow(person)
    .locator('.body')
    .evaluate((b) => b.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(b).lineHeight))
}

describe('long messages', () => {
  test('fold past 15 lines with Show more and Show less, from the keyboard too', async () => {
    await bob.page.setViewportSize({ width: 375, height: 740 })
    await send(ada, 'A short one')
    await send(ada, LONG)
    for (const person of [ada, bob]) {
      const { page } = person
      const row = longRow(person)
      await row.waitFor()
      const more = row.getByRole('button', { name: 'Show more' })
      await more.waitFor()
      expect(await more.getAttribute('aria-expanded')).toBe('false')
      const lines = await bodyLines(person)
      expect(lines).toBeGreaterThan(13)
      expect(lines).toBeLessThan(16)
      expect(await messageIn(person, 'A short one').getByRole('button', { name: 'Show more' }).count()).toBe(
        0,
      )
      await screenshot(page, `long-message-${person === bob ? 'phone' : 'desktop'}`)
      if (person === bob) expect(await layoutProblems(page, { minTarget: 44 })).toEqual([])

      // The keyboard: the message, Enter into its buttons, arrows to Show more, Enter.
      await row.focus()
      await page.keyboard.press('Enter')
      for (let i = 0; i < 20; i++) {
        if (await more.evaluate((b) => b === document.activeElement)) break
        await page.keyboard.press('ArrowLeft')
      }
      expect(await more.evaluate((b) => b === document.activeElement)).toBe(true)
      await page.keyboard.press('Enter')
      const less = row.getByRole('button', { name: 'Show less' })
      await less.waitFor()
      expect(await less.getAttribute('aria-expanded')).toBe('true')
      expect(await bodyLines(person)).toBeGreaterThan(39)
      await row.getByText(LINES[39]!).waitFor()
      await page.keyboard.press('Enter')
      await more.waitFor()
      expect(await bodyLines(person)).toBeLessThan(16)
    }
    expect([...ada.errors, ...bob.errors]).toEqual([])
  })
})
