import { describe, expect, test } from 'vitest'
import { withStack } from './harness'

const {
  people: [ada],
} = withStack({
  seed: async ({ relay }) => {
    for (const [id, name] of [
      ['general', 'General chat'],
      ['books', 'Book club'],
      ['cafe', 'Café owners'],
    ] as const) {
      await relay.createGroup({ id, name })
    }
  },
  people: [{ name: 'Ada', join: ['general', 'books', 'cafe'] }],
})

describe('the quick switcher (Ctrl+K)', () => {
  test('opens with Ctrl+K, filters groups by name as typed, and Enter opens the chosen one', async () => {
    const { page } = ada
    await page.keyboard.press('Control+k')
    const input = page.getByRole('combobox', { name: 'Group name' })
    await input.waitFor()
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Group name')
    await page.keyboard.type('cafe')
    const options = page.getByRole('dialog').getByRole('option')
    await expect.poll(() => options.allTextContents()).toEqual(['Café owners'])
    await page.keyboard.press('Enter')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    await page.getByRole('heading', { name: 'Café owners' }).waitFor()
  })

  test('arrow keys move the choice; a name matching nothing says so; Escape closes', async () => {
    const { page } = ada
    await page.keyboard.press('Control+k')
    const input = page.getByRole('combobox', { name: 'Group name' })
    await input.waitFor()
    await page.keyboard.type('b')
    // "Book club" starts with it; nothing else has a word starting with b.
    await expect
      .poll(() => page.getByRole('dialog').getByRole('option').allTextContents())
      .toEqual(['Book club'])
    await input.fill('')
    await expect.poll(() => page.getByRole('dialog').getByRole('option').count()).toBe(3)
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    const chosen = await page.getByRole('dialog').getByRole('option', { selected: true }).textContent()
    await page.keyboard.press('ArrowUp')
    await page.keyboard.press('ArrowDown')
    expect(await page.getByRole('dialog').getByRole('option', { selected: true }).textContent()).toBe(chosen)
    await page.keyboard.press('Enter')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    await page.getByRole('heading', { name: chosen ?? '' }).waitFor()

    await page.keyboard.press('Control+k')
    await input.waitFor()
    await input.fill('zzz')
    await page.getByText('No group has that name').waitFor()
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
  })
})
