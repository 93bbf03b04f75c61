import { describe, expect, test } from 'vitest'
import { withGarden } from './garden'
import { messageIn } from './harness'

const {
  people: [ada],
} = withGarden(40)

describe('reloading a group this device holds', () => {
  test('shows its cached messages next, never the welcome page or the relay’s group list before them', async () => {
    const { page } = ada
    await page.getByRole('heading', { name: 'Garden' }).waitFor()
    await messageIn(ada, 'History message 40 of 40').waitFor({ timeout: 30_000 })
    // Everything the page shows from its first script on: the welcome page's title, the
    // relay's group list, and the first message.
    await page.addInitScript({
      content: `(() => {
        const seen = (window.__seen = [])
        new MutationObserver(() => {
          if (document.getElementById('home-title') && !seen.includes('welcome')) seen.push('welcome')
          if ([...document.querySelectorAll('h2')].some((h) => h.textContent.includes('Groups on this relay')) && !seen.includes('browse')) seen.push('browse')
          if (document.querySelector('article[data-kind]') && !seen.includes('message')) seen.push('message')
        }).observe(document, { childList: true, subtree: true })
      })()`,
    })
    for (let round = 0; round < 2; round++) {
      await page.reload()
      await messageIn(ada, 'History message 40 of 40').waitFor({ timeout: 30_000 })
      const seen = await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen)
      expect(seen).toEqual(['message'])
      await expect.poll(() => page.getByRole('heading', { name: 'Garden' }).isVisible()).toBe(true)
    }
    expect(ada.errors).toEqual([])
  })
})
