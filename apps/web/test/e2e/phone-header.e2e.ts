import { describe, expect, test } from 'vitest'
import {
  layoutProblems,
  type Person,
  screenshot,
  seriousViolations,
  sidebarGroup,
  withStack,
} from './harness'

/**
 * The group header on a phone: the name comes first. A 12-character name shows whole at 320, 375
 * and 414 px, a long one ends in an ellipsis, and search, people and the notification level are in
 * the Group menu instead of the header.
 */
const SHORT = 'Weekend hike' // 12 characters
const LONG = 'The neighbourhood allotment gardeners and their very long group name'

const {
  people: [ada],
} = withStack({
  seed: async (stack) => {
    await stack.relay.createGroup({ id: 'hike', name: SHORT, about: 'Saturdays, rain or shine' })
    await stack.relay.createGroup({ id: 'garden', name: LONG })
  },
  // Ada joins on a wide screen; each test then sets the phone's width.
  people: [{ name: 'Ada', join: ['garden', 'hike'], touch: true }],
})

/** Opens a group from the drawer. */
async function open(person: Person, name: string) {
  await person.page.getByRole('button', { name: 'Open group list' }).click()
  await sidebarGroup(person, name).click()
  await person.page.getByRole('complementary', { name: 'Groups' }).waitFor({ state: 'hidden' })
  await person.page.locator('#group-title', { hasText: name }).waitFor()
}

/** The title's width, the width its text needs, and where it ends on screen. */
function title(person: Person) {
  return person.page.locator('#group-title > bdi').evaluate((name) => {
    const r = name.getBoundingClientRect()
    const head = name.closest('header')!.getBoundingClientRect()
    const menu = document.querySelector('[aria-label="Group actions"]')!.getBoundingClientRect()
    return {
      text: name.textContent,
      client: name.clientWidth,
      scroll: name.scrollWidth,
      right: r.right,
      overflow: getComputedStyle(name).textOverflow,
      // One row: the name beside the menu button, not on a row of its own.
      oneRow: r.top < menu.bottom && r.bottom > menu.top && head.height < 64,
    }
  })
}

describe('the group header on a phone', () => {
  test.each([320, 375, 414])('at %i px the name is whole, a long one ellipsizes', async (width) => {
    const { page } = ada
    await page.setViewportSize({ width, height: 740 })
    await open(ada, SHORT)
    const short = await title(ada)
    expect(short.text).toBe(SHORT)
    expect(short.scroll).toBeLessThanOrEqual(short.client)
    expect(short.client).toBeGreaterThan(0)
    expect(short.right).toBeLessThanOrEqual(width)
    expect(short.oneRow).toBe(true)
    expect(await page.locator('.group-head').getByRole('button', { name: 'Search messages' }).count()).toBe(0)
    expect(
      await page
        .locator('.group-head')
        .getByRole('button', { name: /^People/ })
        .count(),
    ).toBe(0)
    await screenshot(page, `phone-header-${width}`)
    expect(await layoutProblems(page, { minTarget: 44 })).toEqual([])

    await open(ada, LONG.slice(0, 20))
    const long = await title(ada)
    expect(long.scroll).toBeGreaterThan(long.client)
    expect(long.overflow).toBe('ellipsis')
    expect(long.right).toBeLessThanOrEqual(width)
    await screenshot(page, `phone-header-${width}-long`)
    expect(await layoutProblems(page, { minTarget: 44 })).toEqual([])
  })

  test('search, people and notifications are in the Group menu', async () => {
    const { page } = ada
    await page.setViewportSize({ width: 375, height: 740 })
    await open(ada, SHORT)
    await page.getByRole('button', { name: 'Group actions' }).click()
    const menu = page.getByRole('menu', { name: 'Group' })
    await menu.waitFor()
    await screenshot(page, 'phone-header-menu')
    // The open menu lies over the messages: each of its entries is on screen and finger-sized.
    for (const box of await menu
      .locator('[role^=menuitem]')
      .evaluateAll((items) => items.map((i) => i.getBoundingClientRect().toJSON() as DOMRect))) {
      expect(box.left).toBeGreaterThanOrEqual(0)
      expect(box.right).toBeLessThanOrEqual(375)
      expect(box.height).toBeGreaterThanOrEqual(44)
    }
    expect(await seriousViolations(page)).toEqual([])

    await menu.getByRole('menuitemradio', { name: 'Mentions only' }).click()
    await page.getByRole('button', { name: 'Group actions' }).click()
    expect(
      await menu.getByRole('menuitemradio', { name: /Mentions only/ }).getAttribute('aria-checked'),
    ).toBe('true')
    await menu.getByRole('menuitem', { name: /^People \(1\)$/ }).click()
    const people = page.getByRole('complementary', { name: 'People' })
    await people.getByText('(you)').waitFor()
    await people.getByRole('button', { name: `Back to ${SHORT}` }).click()

    await page.getByRole('button', { name: 'Group actions' }).click()
    await menu.getByRole('menuitem', { name: 'Search messages' }).click()
    await page.getByRole('combobox', { name: 'Search messages' }).waitFor()
    expect(ada.errors).toEqual([])
  })
})
