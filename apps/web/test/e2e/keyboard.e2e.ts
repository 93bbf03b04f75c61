import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { messageIn, screenshot, sidebarGroup, withStack } from './harness'
import { historyEvents, IMPORT_OPTIONS, publishAll } from './seed'

const {
  stack,
  people: [ada],
} = withStack({
  relay: { ...IMPORT_OPTIONS },
  seed: async ({ relay }) => {
    for (const [id, name] of [
      ['one', 'One'],
      ['two', 'Two'],
      ['three', 'Three'],
    ] as const) {
      await relay.createGroup({ id, name })
    }
    await publishAll(relay.url, historyEvents('one', 14))
  },
  people: [{ name: 'Ada', join: ['one', 'two', 'three'] }],
})

/** What has focus: a message's text, a control's name, or the element's tag. */
function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null
    if (!el) return { kind: 'none', id: '', text: '' }
    if (el.matches('article.msg'))
      return { kind: 'message', id: el.dataset.id ?? '', text: el.querySelector('.body')?.textContent ?? '' }
    return {
      kind: el.tagName.toLowerCase(),
      id: el.id,
      text: el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '',
    }
  })
}

describe('the keyboard alone', () => {
  test('from the group header to the message box takes at most 5 Tabs, and arrows walk 10 messages', async () => {
    const { page } = ada
    await sidebarGroup(ada, 'One').click()
    await messageIn(ada, 'History message 14 of 14').waitFor()
    const people = page.getByRole('button', { name: /^People/ })
    await people.focus()
    let tabs = 0
    while ((await focused(page)).kind !== 'textarea' && tabs < 10) {
      await page.keyboard.press('Tab')
      tabs++
    }
    expect(
      await page
        .getByRole('textbox', { name: 'Message One' })
        .evaluate((el) => el === document.activeElement),
    ).toBe(true)
    expect(tabs).toBeLessThanOrEqual(5)

    // Back one stop: the list, on its newest message.
    await page.keyboard.press('Shift+Tab')
    const start = await focused(page)
    expect(start).toMatchObject({ kind: 'message', text: 'History message 14 of 14' })
    const seen = [start.text]
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('ArrowUp')
      await expect.poll(async () => (await focused(page)).text).toBe(`History message ${13 - i} of 14`)
      seen.push((await focused(page)).text)
    }
    expect(new Set(seen).size).toBe(11)
    await screenshot(page, 'keyboard-message')
    await page.keyboard.press('ArrowDown')
    await expect.poll(async () => (await focused(page)).text).toBe('History message 5 of 14')
    await page.keyboard.press('End')
    await expect.poll(async () => (await focused(page)).text).toBe('History message 14 of 14')

    // Only the active message is a Tab stop: every other message and button in the list is -1.
    const stops = await page
      .getByRole('log', { name: 'Messages' })
      .evaluate(
        (log) =>
          [...log.querySelectorAll('[tabindex="0"], button:not([tabindex]), a[href]:not([tabindex])')].length,
      )
    expect(stops).toBe(1)
  })

  test("Enter opens a message's actions, arrows move between them, Escape returns to the message", async () => {
    const { page } = ada
    const before = await focused(page)
    expect(before.kind).toBe('message')
    await page.keyboard.press('Enter')
    expect(await focused(page)).toMatchObject({ kind: 'button', text: 'React 👍' })
    // The actions show while the message holds focus.
    expect(await page.getByRole('button', { name: 'React 👍' }).first().isVisible()).toBe(true)
    await page.keyboard.press('ArrowRight')
    expect(await focused(page)).toMatchObject({ kind: 'button', text: 'React ❤️' })
    await page.keyboard.press('ArrowRight')
    expect(await focused(page)).toMatchObject({ kind: 'button', text: 'Reply' })
    await page.keyboard.press('Enter')
    await page.getByText('Replying to').waitFor()
    expect(await focused(page)).toMatchObject({ kind: 'textarea' })
    await page.keyboard.press('Escape')
    await page.getByText('Replying to').waitFor({ state: 'detached' })

    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Enter')
    expect((await focused(page)).kind).toBe('button')
    await page.keyboard.press('Escape')
    expect(await focused(page)).toMatchObject({ kind: 'message', id: before.id })
  })

  test('Escape closes the people panel and gives focus back to the button that opened it', async () => {
    const { page } = ada
    const people = page.getByRole('button', { name: /^People/ })
    await people.focus()
    await page.keyboard.press('Enter')
    const panel = page.getByRole('complementary', { name: 'People' })
    await panel.waitFor()
    await panel.getByRole('button', { name: 'Close people' }).focus()
    await page.keyboard.press('Escape')
    await panel.waitFor({ state: 'detached' })
    await expect.poll(() => people.evaluate((el) => el === document.activeElement)).toBe(true)
  })

  test('Alt+↑/↓ walk the groups, Alt+Shift+↑/↓ only the unread ones', async () => {
    const { page } = ada
    const title = page.locator('#group-title')
    await sidebarGroup(ada, 'Three').click()
    await expect.poll(() => title.textContent()).toMatch(/^Three/)
    const order = await page
      .getByRole('navigation', { name: 'Groups' })
      .locator('.group-item .gname > span:first-child')
      .allTextContents()
    expect(order).toEqual(['One', 'Two', 'Three'])

    await page.keyboard.press('Alt+ArrowUp')
    await expect.poll(() => title.textContent()).toMatch(/^Two/)
    await page.keyboard.press('Alt+ArrowDown')
    await expect.poll(() => title.textContent()).toMatch(/^Three/)
    // Focus lands in the message box of the group it moved to.
    await expect.poll(async () => (await focused(page)).text).toBe('')
    expect((await focused(page)).kind).toBe('textarea')

    // New messages in One while Three is open: Alt+Shift+↑ skips Two.
    await publishAll(stack.relay.url, historyEvents('one', 2, { spacing: 1 }))
    await sidebarGroup(ada, 'One').getByTestId('unread-badge').waitFor({ timeout: 15_000 })
    await page.keyboard.press('Alt+Shift+ArrowUp')
    await expect.poll(() => title.textContent()).toMatch(/^One/)
  })

  test('? lists the shortcuts; Escape closes the list', async () => {
    const { page } = ada
    await page.getByRole('button', { name: /^People/ }).focus()
    await page.keyboard.press('?')
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
    await dialog.getByText('Alt + Shift').waitFor()
    await screenshot(page, 'keyboard-shortcuts')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    expect(ada.errors).toEqual([])
  })
})
