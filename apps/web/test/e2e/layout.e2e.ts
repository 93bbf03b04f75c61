import { beforeAll, beforeEach, describe, expect, test } from 'vitest'
import {
  layoutProblems,
  messageIn,
  newPerson,
  type Person,
  screenshot,
  screenshotsOnFailure,
  send,
  seriousViolations,
  signUp,
  withStack,
} from './harness'

const { stack } = withStack({ relay: { demo: true } })

const SIZES = [
  { name: 'phone', width: 375, height: 812, minTarget: 44 },
  { name: 'desktop', width: 1280, height: 800, minTarget: 0 },
] as const

describe.each(SIZES)('every view fits a $width×$height screen', (size) => {
  let ada: Person
  const people: Person[] = []
  const phone = size.name === 'phone'

  /** No horizontal overflow, every control inside the screen and uncovered; a screenshot to look at. */
  async function check(view: string) {
    const problems = await layoutProblems(ada.page, { minTarget: size.minTarget })
    await screenshot(ada.page, `layout-${size.width}-${view}`)
    expect(problems, view).toEqual([])
    expect(await seriousViolations(ada.page), view).toEqual([])
  }

  /** The group list: the sidebar on wide screens, the drawer (menu button) on phones. */
  async function groupList() {
    if (phone) {
      await ada.page.getByRole('button', { name: 'Open group list' }).click()
    }
    const nav = ada.page.getByRole('complementary', { name: 'Groups' })
    await nav.waitFor()
    return nav
  }

  beforeAll(async () => {
    ada = await newPerson(stack, { viewport: { width: size.width, height: size.height }, touch: phone })
    people.push(ada)
  })
  beforeEach(() => screenshotsOnFailure(() => people))

  test('sign-in', async () => {
    await ada.page.goto(stack.base)
    await ada.page.getByRole('tab', { name: 'New key' }).waitFor()
    await check('signin')
    await ada.page.getByRole('tab', { name: 'New key' }).click()
    await check('signin-new-key')
  })

  test('welcome, and the group list', async () => {
    await signUp(stack, ada, 'Ada')
    await ada.page.getByRole('heading', { name: 'Welcome to Roost' }).waitFor()
    await ada.page.getByRole('list', { name: 'Groups on this relay' }).getByText('General').waitFor()
    await check('welcome')
    for (const name of ['Browse groups', 'Join with a link', 'Create a group'])
      expect(await ada.page.getByRole('main').getByRole('button', { name }).isVisible()).toBe(true)
    if (phone) {
      const menu = ada.page.getByRole('button', { name: 'Open group list' })
      await groupList()
      await check('drawer')
      await ada.page.keyboard.press('Escape')
      await ada.page.getByRole('complementary', { name: 'Groups' }).waitFor({ state: 'hidden' })
      await expect.poll(() => menu.evaluate((el) => el === document.activeElement)).toBe(true)

      // A swipe from the left edge opens it too; a swipe back to the left closes it.
      const swipe = (from: number, to: number) =>
        ada.page.evaluate(
          ([x0, x1]) => {
            const target = document.elementFromPoint(x0!, 400) ?? document.body
            const touch = (x: number) => new Touch({ identifier: 1, target, clientX: x, clientY: 400 })
            const fire = (type: string, x: number, list: boolean) =>
              target.dispatchEvent(
                new TouchEvent(type, {
                  bubbles: true,
                  touches: list ? [touch(x)] : [],
                  changedTouches: [touch(x)],
                }),
              )
            fire('touchstart', x0!, true)
            fire('touchmove', x1!, true)
            fire('touchend', x1!, false)
          },
          [from, to],
        )
      await swipe(4, 200)
      await ada.page.getByRole('complementary', { name: 'Groups' }).waitFor()
      await swipe(250, 40)
      await ada.page.getByRole('complementary', { name: 'Groups' }).waitFor({ state: 'hidden' })
    }
  })

  test('group', async () => {
    await ada.page.getByRole('button', { name: 'Join General' }).click()
    await messageIn(ada, 'Welcome to Roost! This is the general channel.').waitFor()
    // One relay for both sizes: each writes its own line.
    const text = `A message wide enough to wrap at ${size.width} px: https://example.com/a/very/long/link/that/goes/on`
    await send(ada, text)
    await messageIn(ada, text).waitFor()
    await check('group')
  })

  test('dialogs: start a thread, join, create, shortcuts', async () => {
    const { page } = ada
    await page.getByRole('button', { name: 'Group actions' }).click()
    await check('group-menu')
    await page.getByRole('menuitem', { name: 'Start a thread…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Start a thread' })
    await dialog.waitFor()
    await check('dialog-thread')
    await dialog.getByLabel('Title').fill('Layout')
    await dialog.getByLabel('First post').fill('Does it fit?')
    await dialog.getByRole('button', { name: 'Start thread' }).click()
    await dialog.waitFor({ state: 'detached' })

    for (const [button, title, file] of [
      ['Join a group', 'Join a group', 'dialog-join'],
      ['Create a group', 'Create a group', 'dialog-create'],
      ['Keyboard shortcuts', 'Keyboard shortcuts', 'dialog-shortcuts'],
    ] as const) {
      const list = await groupList()
      await list.getByRole('button', { name: button }).click()
      await page.getByRole('dialog', { name: title }).waitFor()
      await check(file)
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })
    }
  })

  test('thread', async () => {
    const { page } = ada
    const root = page.getByRole('log', { name: 'Messages' }).getByRole('article', { name: 'Thread: Layout' })
    await root.getByRole('button', { name: /Reply in thread/ }).click()
    const panel = page.getByRole('complementary', { name: /Thread: Layout/ })
    await panel.getByRole('textbox', { name: 'Reply in thread' }).fill('It fits.')
    await panel.getByRole('textbox', { name: 'Reply in thread' }).press('Enter')
    await panel.locator('article', { hasText: 'It fits.' }).waitFor()
    await check('thread')
    await panel.getByRole('button', { name: phone ? 'Back to General' : 'Close thread' }).click()
    await panel.waitFor({ state: 'detached' })
  })

  test('people', async () => {
    const { page } = ada
    // On a phone, People is in the Group menu (the header keeps its room for the name).
    if (phone) {
      await page.getByRole('button', { name: 'Group actions' }).click()
      await page.getByRole('menuitem', { name: /^People/ }).click()
    } else await page.getByRole('button', { name: /^People/ }).click()
    const panel = page.getByRole('complementary', { name: 'People' })
    await panel.getByText('(you)').waitFor()
    await check('people')
    await panel.getByRole('button', { name: phone ? 'Back to General' : 'Close people' }).click()
    await panel.waitFor({ state: 'detached' })
  })

  test('settings and browse', async () => {
    const { page } = ada
    const list = await groupList()
    await list.getByRole('button', { name: 'Settings and account' }).click()
    await page.getByRole('dialog', { name: 'Settings' }).waitFor()
    await check('settings')
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached' })

    await (await groupList()).getByRole('button', { name: 'Browse groups' }).click()
    await page.getByRole('list', { name: 'Groups on this relay' }).getByText('Design').waitFor()
    await check('browse')
    expect(ada.errors).toEqual([])
  })
})
