import { describe, expect, test } from 'vitest'
import { layoutProblems, messageIn, screenshot, withStack } from './harness'

/** The composer's emoji button: the reaction picker, inserting at the caret, from the keyboard too. */
const {
  people: [ada],
} = withStack({
  seed: async (stack) => {
    await stack.relay.createGroup({ id: 'talk', name: 'Talk' })
  },
  people: [{ name: 'Ada', join: ['talk'], touch: true }],
})

describe('the emoji button in the composer', () => {
  test('inserts the picked emoji where the caret was, and typing goes on after it', async () => {
    const { page } = ada
    const box = page.getByRole('textbox', { name: 'Message Talk' })
    await box.fill('Hello world')
    await box.press('Home')
    for (let i = 0; i < 5; i++) await box.press('ArrowRight')
    await page.getByRole('button', { name: 'Insert emoji' }).click()
    const picker = page.getByRole('dialog', { name: 'Pick an emoji' })
    const search = picker.getByRole('combobox', { name: 'Search' })
    await search.waitFor()
    await expect
      .poll(() => search.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement))
      .toBe(true)
    await page.keyboard.type('rocket')
    await picker
      .getByRole('option', { name: /rocket/ })
      .first()
      .click()
    await picker.waitFor({ state: 'detached' })
    await expect.poll(() => box.inputValue()).toBe('Hello🚀 world')
    await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true)
    await page.keyboard.type('!')
    expect(await box.inputValue()).toBe('Hello🚀! world')

    // From the keyboard: the button, Enter, a search, Escape closes without inserting.
    await page.getByRole('button', { name: 'Insert emoji' }).focus()
    await page.keyboard.press('Enter')
    await search.waitFor()
    await page.keyboard.press('Escape')
    await picker.waitFor({ state: 'detached' })
    expect(await box.inputValue()).toBe('Hello🚀! world')
    await box.press('Enter')
    await messageIn(ada, 'Hello🚀! world').waitFor()

    await page.setViewportSize({ width: 375, height: 740 })
    expect(await layoutProblems(page, { minTarget: 44 })).toEqual([])
    await screenshot(page, 'composer-emoji-phone')
    expect(ada.errors).toEqual([])
  })
})
