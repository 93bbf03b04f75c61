import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { messageIn, screenshot, send, sidebarGroup, withStack } from './harness'
import { historyEvents, IMPORT_OPTIONS, publishAll } from './seed'

const {
  people: [ada, bob],
} = withStack({
  relay: { demo: true, ...IMPORT_OPTIONS },
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'long', name: 'Long' })
    await publishAll(relay.url, historyEvents('long', 40))
  },
  people: [
    { name: 'Ada', join: ['long', 'general'] },
    { name: 'Bob', join: ['long'] },
  ],
})

/** The rendered rows of the timeline in order: message texts and `<new>` for the line. */
function rows(page: Page) {
  return page
    .getByRole('log', { name: 'Messages' })
    .evaluate((log) =>
      [...log.querySelectorAll<HTMLElement>('.timeline-row')]
        .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
        .map((row) =>
          row.querySelector('.new-line') ? '<new>' : (row.querySelector('.body')?.textContent ?? ''),
        ),
    )
}

function scrollLog(page: Page, to: 'top' | 'bottom') {
  return page.getByRole('log', { name: 'Messages' }).evaluate((el, where) => {
    el.scrollTop = where === 'top' ? 0 : el.scrollHeight
    el.dispatchEvent(new Event('scroll'))
  }, to)
}

/** Hides or shows the tab as switching away from it would. */
function setHidden(page: Page, hidden: boolean) {
  return page.evaluate((h) => {
    Object.defineProperty(document, 'visibilityState', {
      value: h ? 'hidden' : 'visible',
      configurable: true,
    })
    Object.defineProperty(document, 'hidden', { value: h, configurable: true })
    document.dispatchEvent(new Event('visibilitychange'))
  }, hidden)
}

describe('the "new messages" line', () => {
  test('never appears above messages that arrive while the reader watches the end of the list', async () => {
    await sidebarGroup(ada, 'Long').click()
    await messageIn(ada, 'History message 40 of 40').waitFor()
    await sidebarGroup(bob, 'Long').click()
    for (const text of ['Watching 1', 'Watching 2']) {
      await send(bob, text)
      await messageIn(ada, text).waitFor()
    }
    expect(await rows(ada.page)).not.toContain('<new>')
  })

  test('marks what arrived while the tab was hidden, and stays after it shows again', async () => {
    await setHidden(ada.page, true)
    await send(bob, 'While hidden')
    await messageIn(ada, 'While hidden').waitFor()
    await setHidden(ada.page, false)
    await send(bob, 'After coming back')
    await messageIn(ada, 'After coming back').waitFor()
    const order = await rows(ada.page)
    const line = order.indexOf('<new>')
    expect(line).toBeGreaterThan(1)
    // Messages of the same second may sort either way; the line splits watched from missed.
    expect(order.slice(line - 2, line).sort()).toEqual(['Watching 1', 'Watching 2'])
    expect(order.slice(line + 1, line + 3)).toEqual(['While hidden', 'After coming back'])
    await screenshot(ada.page, 'read-line-hidden')
  })

  test('marks what arrived while the reader was scrolled away', async () => {
    // Reopened with everything read: no line.
    await sidebarGroup(ada, 'General').click()
    await sidebarGroup(ada, 'Long').click()
    await messageIn(ada, 'After coming back').waitFor()
    expect(await rows(ada.page)).not.toContain('<new>')

    await scrollLog(ada.page, 'top')
    await expect.poll(() => rows(ada.page)).not.toContain('After coming back')
    // The row arrives out of view: wait for the list to count it and the line, then look.
    const log = ada.page.getByRole('log', { name: 'Messages' })
    const before = Number(await log.getAttribute('data-rows'))
    await send(bob, 'While away')
    await expect
      .poll(async () => Number(await log.getAttribute('data-rows')), { timeout: 15_000 })
      .toBeGreaterThan(before)
    await scrollLog(ada.page, 'bottom')
    await messageIn(ada, 'While away').waitFor()
    const order = await rows(ada.page)
    const line = order.indexOf('<new>')
    expect(order.slice(line - 1, line + 2)).toEqual(['After coming back', '<new>', 'While away'])
  })
})

describe('one name everywhere', () => {
  test("a private group's name and description are the same in the browse card, the sidebar and the header", async () => {
    const { page } = ada
    await page.getByRole('button', { name: 'Browse groups' }).click()
    const card = page
      .getByRole('list', { name: 'Groups on this relay' })
      .getByRole('listitem')
      .filter({ hasText: 'Private' })
    await card.getByText('Private and closed: only members can read.').waitFor()
    await card.getByRole('button', { name: 'Request to join Private' }).click()
    // A closed group asks for the invite code first; without one the request waits for an admin,
    // and the group is listed.
    const dialog = page.getByRole('dialog', { name: 'Join a group' })
    await dialog.getByLabel('Invite code').waitFor()
    await dialog.getByRole('button', { name: 'Join', exact: true }).click()
    await dialog.waitFor({ state: 'detached' })
    await sidebarGroup(ada, 'Private').click()
    const title = page.locator('#group-title')
    await expect.poll(() => title.textContent(), { timeout: 15_000 }).toMatch(/^Private/)
    await page
      .locator('.group-head .about')
      .filter({ hasText: 'Private and closed: only members can read.' })
      .waitFor()
    expect(await page.locator('.group-head .chip').allTextContents()).toContain('private')
    await sidebarGroup(ada, 'Private').waitFor()
    // No member list is published to a non-member: no "0 people".
    expect(await page.getByRole('button', { name: /^People/ }).getAttribute('aria-label')).toBe('People')
    await screenshot(page, 'private-pending')
    expect(ada.errors).toEqual([])
  })
})
