import { describe, expect, test } from 'vitest'
import { messageIn, offlineUnderWorker, screenshot, send, withStack } from './harness'

const {
  stack,
  people: [ada],
} = withStack({ relay: { demo: true }, people: [{ name: 'Ada', join: ['general'] }] })

describe('installable and offline', () => {
  test('the manifest names the app, its icons, theme, start URL and standalone display', async () => {
    const html = await (await fetch(stack.base)).text()
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest"')
    const res = await fetch(`${stack.base}/manifest.webmanifest`)
    expect(res.headers.get('content-type')).toBe('application/manifest+json')
    const manifest = (await res.json()) as {
      name: string
      start_url: string
      display: string
      theme_color: string
      icons: { src: string; sizes: string; type: string }[]
    }
    expect(manifest).toMatchObject({ name: 'Roost', start_url: '/', display: 'standalone' })
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/i)
    for (const size of ['192x192', '512x512']) {
      const icon = manifest.icons.find((i) => i.sizes === size && i.type === 'image/png')
      expect(icon, size).toBeDefined()
      const png = await fetch(`${stack.base}${icon!.src}`)
      expect(png.status).toBe(200)
      expect(png.headers.get('content-type')).toBe('image/png')
    }
  })

  test('offline, a reload opens the app from the service worker and shows the cached messages', async () => {
    const { page, context } = ada
    await send(ada, 'Saved for the train')
    await messageIn(ada, 'Saved for the train').waitFor()
    // The worker has installed the shell and controls the page.
    await offlineUnderWorker(ada)
    const banner = page.getByTestId('connection')
    await page.reload()
    await messageIn(ada, 'Saved for the train').waitFor()
    await messageIn(ada, 'Welcome to Roost! This is the general channel.').waitFor()
    await expect.poll(() => banner.textContent()).toMatch(/^You are offline/)
    await screenshot(page, 'offline')

    // A send fails at once with the reason and keeps the draft; nothing is queued.
    const box = page.getByRole('textbox', { name: 'Message General' })
    await box.fill('Sent from a tunnel')
    await box.press('Enter')
    // The offline check's answer, given before any publish: one that waited for the relay would
    // end at the publish timeout with "… did not answer within …" instead.
    await expect(page.getByTestId('send-error').textContent()).resolves.toBe('You are offline')
    expect(await box.inputValue()).toBe('Sent from a tunnel')
    expect(await messageIn(ada, 'Sent from a tunnel').count()).toBe(0)

    // Back online: the banner says so, then goes; the draft sends.
    await context.setOffline(false)
    await expect.poll(() => banner.textContent(), { timeout: 30_000 }).toBe('Back online.')
    await screenshot(page, 'back-online')
    await box.press('Enter')
    await messageIn(ada, 'Sent from a tunnel').waitFor()
    await expect.poll(() => banner.textContent(), { timeout: 30_000 }).toBe('')
    expect(ada.errors).toEqual([])
  })

  test('a file of the site opened as a page does not become the app offline', async () => {
    const { page, context } = ada
    const appUrl = page.url()
    await page.goto(`${stack.base}/manifest.webmanifest`)
    await context.setOffline(true)
    await page.goto(appUrl)
    await messageIn(ada, 'Saved for the train').waitFor()
    await context.setOffline(false)
    await page.reload()
    await messageIn(ada, 'Saved for the train').waitFor()
  })

  test('an unreachable relay is shown until it is back', async () => {
    const { page, context } = ada
    const banner = page.getByTestId('connection')
    // Every new socket to the relay fails while `down`, then goes through again.
    let down = true
    await context.routeWebSocket(/.*/, (ws) => {
      if (down) void ws.close({ code: 1011, reason: 'unreachable' })
      else ws.connectToServer()
    })
    await page.reload()
    await messageIn(ada, 'Welcome to Roost! This is the general channel.').waitFor()
    await expect.poll(() => banner.textContent(), { timeout: 30_000 }).toMatch(/^Cannot reach /)
    expect(await banner.getAttribute('data-status')).toBe('unreachable')
    const box = page.getByRole('textbox', { name: 'Message General' })
    await box.fill('Anyone there?')
    await box.press('Enter')
    await expect(page.getByTestId('send-error').textContent()).resolves.toBe('You are offline')
    expect(await box.inputValue()).toBe('Anyone there?')
    down = false
    await expect.poll(() => banner.textContent(), { timeout: 45_000 }).toBe('Back online.')
    await box.press('Enter')
    await messageIn(ada, 'Anyone there?').waitFor()
  })
})
