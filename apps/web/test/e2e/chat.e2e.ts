import { describe, expect, test } from 'vitest'
import { messageIn, screenshot, send, sidebarGroup, withStack } from './harness'

const {
  stack,
  people: [ada, bob],
} = withStack({ relay: { demo: true }, people: ['Ada', 'Bob'] })

describe('chatting in the open group', () => {
  test('browse the relay, join the open group in one click, send, and another person sees it live', async () => {
    const { page } = ada
    await page.getByRole('button', { name: 'Browse groups' }).first().click()
    await page.getByRole('list', { name: 'Groups on this relay' }).getByText('General').waitFor()
    await screenshot(page, 'browse')
    await page.getByRole('button', { name: 'Join General' }).click()
    await page.getByRole('heading', { name: /General/ }).waitFor()
    // The demo history is there, from the relay.
    await messageIn(ada, 'Welcome to Roost! This is the general channel.').waitFor()
    await send(ada, 'Hello from Ada')
    await messageIn(ada, 'Hello from Ada').waitFor()
    // The sidebar lists the group as a member.
    await page
      .getByRole('navigation', { name: 'Groups' })
      .getByRole('button', { name: /^General/ })
      .waitFor()

    // Bob joins by group code and sees Ada's message from the relay.
    await bob.page.getByRole('button', { name: 'Join a group' }).click()
    await bob.page.getByLabel('Group link or code').fill(`${stack.relay.url}'general`)
    await bob.page.getByRole('button', { name: 'Join', exact: true }).click()
    await bob.page.getByRole('heading', { name: /General/ }).waitFor()
    await messageIn(bob, 'Hello from Ada').waitFor()

    // Live: Ada writes again while Bob has the group open.
    await send(ada, 'Are you there, Bob?')
    await messageIn(bob, 'Are you there, Bob?').waitFor()
    await send(bob, 'Yes!')
    await messageIn(ada, 'Yes!').waitFor()
    // Names come from kind 0.
    await messageIn(ada, 'Yes!').getByText('Bob').first().waitFor()
    await screenshot(ada.page, 'group')
    expect(ada.errors).toEqual([])
    expect(bob.errors).toEqual([])
  })

  test('reactions and quoted replies reach the other person', async () => {
    const target = messageIn(bob, 'Are you there, Bob?')
    await target.hover()
    await target.getByRole('button', { name: 'React 👍' }).click()
    await messageIn(ada, 'Are you there, Bob?').getByRole('button', { name: '👍 1' }).waitFor()
    await target.getByRole('button', { name: 'Reply', exact: true }).click()
    await bob.page.getByText('Replying to').waitFor()
    await send(bob, 'Still here')
    const reply = messageIn(ada, 'Still here')
    await reply.getByRole('button', { name: /In reply to Ada: Are you there, Bob\?/ }).waitFor()
    await screenshot(ada.page, 'reactions-and-replies')
  })

  test('a desktop notification shows a new message while the tab is hidden, once allowed', async () => {
    const { page, context } = ada
    await context.grantPermissions(['notifications'], { origin: stack.base })
    await page.evaluate(() => {
      const w = window as unknown as { __notes: string[]; Notification: typeof Notification }
      w.__notes = []
      const Original = w.Notification
      class Recording extends Original {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options)
          w.__notes.push(`${title}: ${options?.body ?? ''}`)
        }
      }
      Object.defineProperty(Recording, 'permission', { get: () => Original.permission })
      w.Notification = Recording
    })
    await page.getByRole('button', { name: 'Settings and account' }).click()
    await page.getByLabel(/Desktop notifications/).check()
    await page.keyboard.press('Escape')
    const notes = () => page.evaluate(() => (window as unknown as { __notes: string[] }).__notes)
    await send(bob, 'Ping while visible')
    await messageIn(ada, 'Ping while visible').waitFor()
    expect(await notes()).toEqual([])
    await page.evaluate(() =>
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true }),
    )
    await send(bob, 'Ping while hidden')
    await expect.poll(notes).toEqual(['Bob in General: Ping while hidden'])
    await page.evaluate(() =>
      Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true }),
    )
  })

  test('a thread reply from someone else shows a dot in the sidebar until the thread is opened', async () => {
    const { page } = bob
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Start a thread…' }).click()
    await page.getByLabel('Title').fill('Weekend')
    await page.getByLabel('First post').fill('Hike on Saturday?')
    await page.getByRole('button', { name: 'Start thread' }).click()
    const root = page.getByRole('log', { name: 'Messages' }).getByRole('article', { name: 'Thread: Weekend' })
    await ada.page
      .getByRole('log', { name: 'Messages' })
      .getByRole('article', { name: 'Thread: Weekend' })
      .waitFor()
    // Read marks have one-second resolution: a reply in the same second as the thread root Ada has
    // just seen counts as read, so the reply goes out in the next second.
    await page.waitForTimeout(1100)
    await root.getByRole('button', { name: /Reply in thread/ }).click()
    const box = page.getByRole('textbox', { name: 'Reply in thread' })
    await box.fill('I can bring snacks')
    await box.press('Enter')
    const dot = sidebarGroup(ada, 'General').getByTitle('New thread replies')
    await dot.waitFor()
    await ada.page
      .getByRole('log', { name: 'Messages' })
      .getByRole('article', { name: 'Thread: Weekend' })
      .getByRole('button', { name: '1 reply' })
      .click()
    await ada.page
      .getByRole('complementary', { name: /Thread: Weekend/ })
      .getByText('I can bring snacks')
      .waitFor()
    await dot.waitFor({ state: 'detached' })
    await ada.page.getByRole('button', { name: 'Close thread' }).click()
  })

  test('in a short thread panel the thread dot stays until every reply has been seen', async () => {
    const { page } = bob
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Start a thread…' }).click()
    await page.getByLabel('Title').fill('Packing list')
    await page.getByLabel('First post').fill('What do we bring?')
    await page.getByRole('button', { name: 'Start thread' }).click()
    const root = page
      .getByRole('log', { name: 'Messages' })
      .getByRole('article', { name: 'Thread: Packing list' })
    const adaRoot = ada.page
      .getByRole('log', { name: 'Messages' })
      .getByRole('article', { name: 'Thread: Packing list' })
    await adaRoot.waitFor()
    // One-second read marks: the replies go out after the second Ada saw the root in.
    await page.waitForTimeout(1100)
    await root.getByRole('button', { name: /Reply in thread/ }).click()
    const box = page.getByRole('textbox', { name: 'Reply in thread' })
    const items = ['tent', 'stove', 'maps', 'snacks']
    for (const item of items) {
      // Each reply is taller than Ada's short panel, so no two are ever in view together.
      await box.fill(
        [`bring ${item}`, ...Array.from({ length: 24 }, (_, i) => `${item} note ${i + 1}`)].join('\n'),
      )
      await box.press('Enter')
      await page
        .getByRole('complementary', { name: /Thread: Packing list/ })
        .locator('[data-reply-id]', { hasText: `bring ${item}` })
        .waitFor()
    }
    await page.getByRole('button', { name: 'Close thread' }).click()

    const dot = sidebarGroup(ada, 'General').getByTitle('New thread replies')
    await dot.waitFor()
    await ada.page.setViewportSize({ width: 1280, height: 420 })
    try {
      await adaRoot.getByRole('button', { name: '4 replies' }).click()
      const panel = ada.page.getByRole('complementary', { name: /Thread: Packing list/ })
      // Replies sent within one second are ordered by id: go by their place in the panel.
      const replies = panel.locator('[data-reply-id]')
      const body = panel.locator('.side-body')
      // Let the panel's visibility callbacks and their marks run: two frames and a task.
      const settle = () =>
        ada.page.evaluate(
          () =>
            new Promise<void>((resolve) =>
              requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50))),
            ),
        )
      await expect.poll(() => replies.count()).toBe(4)
      // At the bottom only the newest reply is in view.
      await body.evaluate((el) => el.scrollTo({ top: el.scrollHeight }))
      await settle()
      expect(await replies.nth(3).evaluate(inPanel)).toBe(true)
      expect(await replies.nth(1).evaluate(inPanel)).toBe(false)
      expect(await replies.nth(2).evaluate(inPanel)).toBe(false)
      expect(await dot.count()).toBe(1)
      // At the top: the root and the first reply, still not the middle ones.
      await body.evaluate((el) => el.scrollTo({ top: 0 }))
      await settle()
      expect(await replies.nth(0).evaluate(inPanel)).toBe(true)
      expect(await replies.nth(1).evaluate(inPanel)).toBe(false)
      expect(await dot.count()).toBe(1)
      await replies.nth(1).evaluate((el) => el.scrollIntoView({ block: 'start' }))
      await settle()
      expect(await replies.nth(2).evaluate(inPanel)).toBe(false)
      expect(await dot.count()).toBe(1)
      // The last unseen reply scrolls into view: now every reply has been seen.
      await replies.nth(2).evaluate((el) => el.scrollIntoView({ block: 'start' }))
      await dot.waitFor({ state: 'detached' })
      await ada.page.getByRole('button', { name: 'Close thread' }).click()
    } finally {
      await ada.page.setViewportSize({ width: 1280, height: 800 })
    }
  })

  test('a message whose content is HTML renders as text and runs nothing', async () => {
    const payload = '<img src=x onerror=alert(1)>'
    await send(ada, payload)
    const row = messageIn(bob, payload)
    await row.waitFor()
    expect(await row.locator('.body').textContent()).toBe(payload)
    expect(await row.locator('.body img').count()).toBe(0)
    expect(ada.dialogs).toEqual([])
    expect(bob.dialogs).toEqual([])
  })
})

/** Whether at least half of a reply is inside its thread panel's scroll area. */
function inPanel(el: Element): boolean {
  const body = el.closest('.side-body')
  if (!body) return false
  const r = el.getBoundingClientRect()
  const b = body.getBoundingClientRect()
  const visible = Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top)
  return visible > 0 && (visible >= r.height / 2 || visible >= b.height / 2)
}
