import type { WebSocketRoute } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { withGarden } from './garden'
import { messageIn, screenshot } from './harness'

const {
  people: [ada],
} = withGarden(30)

/**
 * From now on (after a reload) the relay's answer to a search (a REQ with a NIP-50 `search`) is
 * held until `release()`; everything else passes both ways.
 */
async function holdSearches(context: (typeof ada)['context']) {
  const held: { ws: WebSocketRoute; message: string | Buffer }[] = []
  let open = true
  const servers = new Map<WebSocketRoute, WebSocketRoute>()
  await context.routeWebSocket(/.*/, (ws) => {
    const server = ws.connectToServer()
    servers.set(ws, server)
    ws.onMessage((message) => {
      if (open && typeof message === 'string' && message.startsWith('["REQ"') && message.includes('"search"'))
        held.push({ ws, message })
      else server.send(message)
    })
    server.onMessage((message) => ws.send(message))
  })
  return {
    release() {
      open = false
      for (const h of held.splice(0)) servers.get(h.ws)?.send(h.message)
    },
  }
}

describe('search answers from the cache first', () => {
  for (const [label, person] of [['desktop', ada]] as const)
    test(`${label}: this device's messages show while the relay's search is under way, the relay's answer follows`, async () => {
      const { page, context } = person
      await page.getByRole('heading', { name: 'Garden' }).waitFor()
      await messageIn(person, 'History message 30 of 30').waitFor({ timeout: 30_000 })
      const hold = await holdSearches(context)
      await page.reload()
      await messageIn(person, 'History message 30 of 30').waitFor({ timeout: 30_000 })

      await page.getByRole('button', { name: 'Search messages' }).click()
      await page.getByRole('combobox', { name: 'Search messages' }).fill('History')
      // What the status said when the first result appeared: the relay had not answered yet.
      const statusAtFirst = await page.waitForFunction(
        () =>
          document.querySelector('#search-results [role=option]')
            ? (document.querySelector('.search-status')?.textContent ?? '')
            : undefined,
        undefined,
        { timeout: 30_000 },
      )
      expect(await statusAtFirst.jsonValue()).toBe('Searching…')
      await expect
        .poll(() => page.getByRole('listbox', { name: 'Results' }).getByRole('option').count())
        .toBe(30)
      await screenshot(page, `search-cache-first-${label}`)

      hold.release()
      await page.getByRole('status').filter({ hasText: '30 messages' }).waitFor({ timeout: 30_000 })
      await expect
        .poll(() => page.getByRole('listbox', { name: 'Results' }).getByRole('option').count())
        .toBe(30)
      expect(
        await page.getByRole('listbox', { name: 'Results' }).getByRole('option').first().textContent(),
      ).toContain('History message 30 of 30')
      await page.keyboard.press('Escape')
      await context.unrouteAll()
      expect(person.errors).toEqual([])
    })
})
