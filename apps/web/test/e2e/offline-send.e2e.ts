import { describe, expect, test } from 'vitest'
import { messageIn, screenshot, send, withStack } from './harness'

const {
  people: [ada],
} = withStack({ relay: { demo: true }, people: [{ name: 'Ada', join: ['general'] }] })

describe('message actions and a send while offline', () => {
  test('every message action is drawn as an icon, never as an emoji glyph that needs a font', async () => {
    await send(ada, 'Icons please')
    const row = messageIn(ada, 'Icons please')
    await row.waitFor()
    const buttons = row.getByRole('toolbar', { name: 'Message actions' }).getByRole('button')
    const labels = await buttons.evaluateAll((els) =>
      els.map((b) => ({
        label: b.getAttribute('aria-label'),
        text: (b.textContent ?? '').trim(),
        svg: b.querySelector('svg') !== null,
      })),
    )
    expect(labels.map((l) => l.label)).toEqual(expect.arrayContaining(['React 👍', 'React ❤️', 'Reply']))
    for (const l of labels) expect(l, l.label ?? '').toMatchObject({ text: '', svg: true })
    // The icon still reacts with the emoji.
    await row.hover()
    await row.getByRole('button', { name: 'React 👍' }).click()
    await row.getByRole('button', { name: /^👍 1, including you$/ }).waitFor()
  })

  test('"You are offline" goes away when the connection is back, without another send', async () => {
    const { page, context } = ada
    const banner = page.getByTestId('connection')
    await context.setOffline(true)
    await expect.poll(() => banner.getAttribute('data-status')).toBe('offline')
    const box = page.getByRole('textbox', { name: 'Message General' })
    await box.fill('Held for later')
    await box.press('Enter')
    const error = page.getByTestId('send-error')
    await expect.poll(() => error.textContent()).toBe('You are offline')
    await screenshot(page, 'offline-send-error')

    await context.setOffline(false)
    await expect.poll(() => error.count(), { timeout: 30_000 }).toBe(0)
    // The draft is still there, and sends now.
    expect(await box.inputValue()).toBe('Held for later')
    await box.press('Enter')
    await messageIn(ada, 'Held for later').waitFor()
    expect(await error.count()).toBe(0)
    expect(ada.errors).toEqual([])
  })
})
