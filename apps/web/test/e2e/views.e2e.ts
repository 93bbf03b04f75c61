import { describe, expect, test } from 'vitest'
import { messageIn, screenshot, send, seriousViolations, sidebarGroup, withStack } from './harness'

const {
  people: [ada],
} = withStack({ relay: { demo: true }, people: [{ name: 'Ada', join: ['general'] }] })

describe('views', () => {
  test('threads: a kind 11 thread opens in the side panel and takes 1111 replies', async () => {
    const { page } = ada
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Start a thread…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Start a thread' })
    await dialog.getByLabel('Title').fill('Release plan')
    await dialog.getByLabel('First post').fill('What ships on Friday?')
    await dialog.getByRole('button', { name: 'Start thread' }).click()
    const root = page
      .getByRole('log', { name: 'Messages' })
      .getByRole('article', { name: 'Thread: Release plan' })
    await root.getByRole('button', { name: /Reply in thread/ }).click()
    const panel = page.getByRole('complementary', { name: /Thread: Release plan/ })
    const box = panel.getByRole('textbox', { name: 'Reply in thread' })
    await box.fill('The new sidebar')
    await box.press('Enter')
    await panel.locator('article', { hasText: 'The new sidebar' }).waitFor()
    await root.getByRole('button', { name: '1 reply' }).waitFor()
    await screenshot(page, 'thread')
    expect(await seriousViolations(page)).toEqual([])
    await panel.getByRole('button', { name: 'Close thread' }).click()
  })

  test('the group view, browse page and settings have no serious or critical axe violations', async () => {
    const { page } = ada
    await send(ada, 'Checking accessibility')
    await messageIn(ada, 'Checking accessibility').waitFor()
    expect(await seriousViolations(page)).toEqual([])

    await page.getByRole('button', { name: 'Browse groups' }).click()
    await page.getByRole('list', { name: 'Groups on this relay' }).getByText('Design').waitFor()
    expect(await seriousViolations(page)).toEqual([])

    await page.getByRole('button', { name: 'Settings and account' }).click()
    await page.getByRole('dialog', { name: 'Settings' }).waitFor()
    await screenshot(page, 'settings')
    expect(await seriousViolations(page)).toEqual([])
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
  })

  test('the dark theme keeps its contrast', async () => {
    const { page } = ada
    await sidebarGroup(ada, 'General').click()
    await page.emulateMedia({ colorScheme: 'dark' })
    await messageIn(ada, 'Checking accessibility').waitFor()
    await screenshot(page, 'group-dark')
    expect(await seriousViolations(page)).toEqual([])
    await page.emulateMedia({ colorScheme: 'light' })
  })

  test('a narrow window keeps the group usable', async () => {
    const { page } = ada
    await page.setViewportSize({ width: 480, height: 800 })
    await messageIn(ada, 'Checking accessibility').waitFor()
    await screenshot(page, 'narrow')
    expect(await page.getByRole('textbox', { name: 'Message General' }).isVisible()).toBe(true)
    expect(await seriousViolations(page)).toEqual([])
    await page.setViewportSize({ width: 1280, height: 800 })
  })

  test('a reload shows the groups and the timeline from IndexedDB before the relay answers', async () => {
    const { page, context } = ada
    await sidebarGroup(ada, 'General').click()
    await messageIn(ada, 'Checking accessibility').waitFor()
    // From now on the relay never answers: sockets open but nothing comes back.
    await context.routeWebSocket(/.*/, () => {})
    await page.reload()
    await sidebarGroup(ada, 'General').waitFor()
    await messageIn(ada, 'Checking accessibility').waitFor()
    await messageIn(ada, 'Welcome to Roost! This is the general channel.').waitFor()
    await page.getByRole('status').filter({ hasText: 'Saved messages · connecting…' }).waitFor()
    await screenshot(page, 'cached')
    await context.unrouteAll()
    expect(ada.errors).toEqual([])
  })
})
