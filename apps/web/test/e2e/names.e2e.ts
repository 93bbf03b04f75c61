import type { Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { cleanName } from '../../src/lib/names'
import {
  joinByCode,
  layoutProblems,
  messageIn,
  newPerson,
  type Person,
  type Stack,
  screenshot,
  screenshotsOnFailure,
  signUp,
  startStack,
} from './harness'
import { type Stranger, say, setProfile, stranger } from './strangers'

/**
 * Hostile names: hundreds of combining marks (some of them wide, like the enclosing circle), zero-
 * width characters and a run of letters with no place to break, as a group name (39000) and a
 * display name (kind 0). Every name stays inside its box at phone and desktop width.
 */
const MARKS = '\u0336\u0489\u20DD\u0301\u0316'.repeat(100) // 500 combining marks
const ZERO_WIDTH = '\u200B\u200C\u200D\u2060\uFEFF'.repeat(4)
const GROUP_NAME = `Hostile${MARKS}${ZERO_WIDTH} group ${'W'.repeat(120)}`
const PERSON_NAME = `Z${ZERO_WIDTH}ed${MARKS}${'M'.repeat(120)}`
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF]/
const longestMarkRun = (s: string) => Math.max(0, ...[...s.matchAll(/\p{M}+/gu)].map((m) => [...m[0]].length))

let stack: Stack
let zed: Stranger
let groupId: string

beforeAll(async () => {
  stack = await startStack()
  zed = stranger(stack.relay.url)
  await setProfile(zed, { name: PERSON_NAME })
  groupId = await stack.relay.createGroup({ name: GROUP_NAME, about: `About${MARKS}`, members: [zed.pubkey] })
  await say(zed, groupId, 'names test')
})
afterAll(async () => {
  zed?.close()
  await stack?.close()
})

/** How far `selector` is wider than its box (0 when its content fits), for each element found. */
function overflowOf(page: Page, selector: string): Promise<number[]> {
  return page.evaluate(
    (sel) =>
      [...document.querySelectorAll<HTMLElement>(sel)].map((e) => Math.max(0, e.scrollWidth - e.clientWidth)),
    selector,
  )
}

/**
 * What sticks out: each element matching `selector` (a name's box) must lie inside its parent and
 * the screen, and its text must either fit or be clipped by the box itself (overflow hidden).
 */
function nameBoxProblems(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = []
    for (const e of document.querySelectorAll<HTMLElement>(sel)) {
      const r = e.getBoundingClientRect()
      if (r.width === 0) continue
      const p = (e.parentElement as HTMLElement).getBoundingClientRect()
      const what = `${sel} (${e.className || e.tagName.toLowerCase()})`
      if (r.right > p.right + 1 || r.left < p.left - 1) out.push(`${what} is outside its parent`)
      if (r.right > window.innerWidth + 1) out.push(`${what} ends at ${Math.round(r.right)}px`)
      const clipped = getComputedStyle(e).overflowX !== 'visible'
      if (!clipped && e.scrollWidth > e.clientWidth + 1)
        out.push(`${what} spills ${e.scrollWidth - e.clientWidth}px over its box`)
    }
    return out
  }, selector)
}

const SIZES = [
  { name: 'phone', width: 375, height: 812 },
  { name: 'desktop', width: 1280, height: 800 },
] as const

describe.each(SIZES)('hostile names at $width px', (size) => {
  let ada: Person
  const phone = size.name === 'phone'
  beforeAll(async () => {
    ada = await newPerson(stack, { viewport: { width: size.width, height: size.height }, touch: phone })
    await signUp(stack, ada, 'Ada')
  })
  beforeEach(() => screenshotsOnFailure(() => [ada]))

  async function fits(view: string) {
    const problems = await layoutProblems(ada.page)
    await screenshot(ada.page, `names-${size.width}-${view}`)
    expect(problems, view).toEqual([])
  }

  test('the group name in the header, composer and sidebar; the display name in the timeline', async () => {
    const { page } = ada
    if (phone) await page.getByRole('button', { name: 'Open group list' }).click()
    await joinByCode(ada, `${stack.relay.url}'${groupId}`)
    const row = messageIn(ada, 'names test')
    await row.waitFor()
    const title = page.locator('#group-title bdi')
    await expect.poll(() => title.textContent()).toBe(cleanName(GROUP_NAME))
    const shown = (await title.textContent()) ?? ''
    expect(INVISIBLE.test(shown)).toBe(false)
    expect(longestMarkRun(shown)).toBeLessThanOrEqual(3)
    const author = row.locator('.author bdi').first()
    await expect.poll(() => author.textContent()).toBe(cleanName(PERSON_NAME))
    expect(INVISIBLE.test((await author.textContent()) ?? '')).toBe(false)

    await fits('group')
    expect(await overflowOf(page, '.group-head'), 'header').toEqual([0])
    expect(await overflowOf(page, '.composer'), 'composer').toEqual([0])
    expect(await overflowOf(page, '.composer textarea'), 'message box').toEqual([0])
    for (const sel of [
      '#group-title',
      '#group-title > bdi',
      '.group-head .titles',
      '.group-head .about',
      '.msg .author',
    ])
      expect(await nameBoxProblems(page, sel)).toEqual([])
    // The title ends before the next control on its row starts.
    const [titles, next] = await page.evaluate(() => {
      const t = (document.querySelector('.group-head .titles') as HTMLElement).getBoundingClientRect()
      const onRow = [...document.querySelectorAll<HTMLElement>('.group-head > :not(.titles)')]
        .map((e) => e.getBoundingClientRect())
        .filter((r) => r.width > 0 && r.left > t.left && r.top < t.bottom && r.bottom > t.top)
      return [t.right, Math.min(window.innerWidth, ...onRow.map((r) => r.left))]
    })
    expect(titles!).toBeLessThanOrEqual(next! + 1)
    // The marks do not climb out of the header onto the page above or the timeline below.
    const [head, name] = await page.evaluate(() =>
      ['.group-head', '#group-title'].map((s) => {
        const r = document.querySelector(s)!.getBoundingClientRect()
        return { top: r.top, bottom: r.bottom }
      }),
    )
    expect(name!.top).toBeGreaterThanOrEqual(head!.top)
    expect(name!.bottom).toBeLessThanOrEqual(head!.bottom)

    if (phone) await page.getByRole('button', { name: 'Open group list' }).click()
    const nav = page.getByRole('navigation', { name: 'Groups' })
    await nav.waitFor()
    await fits('sidebar')
    for (const sel of ['.group-item .gname', '.group-item .gname > span'])
      expect(await nameBoxProblems(page, sel)).toEqual([])
    expect(await overflowOf(page, '.group-item')).toEqual([0])
    if (phone) await page.keyboard.press('Escape')
  })

  test('the profile card, Browse and the join preview', async () => {
    const { page } = ada
    await messageIn(ada, 'names test').locator('button.author').click()
    const card = page.getByRole('dialog', { name: 'Profile' })
    await card.getByTestId('profile-npub').waitFor()
    await fits('profile-card')
    expect(await overflowOf(page, '.profile-card .profile-head')).toEqual([0])
    for (const sel of ['.profile-card .profile-name', '.profile-card .profile-name > span'])
      expect(await nameBoxProblems(page, sel)).toEqual([])
    await page.keyboard.press('Escape')

    if (phone) await page.getByRole('button', { name: 'Open group list' }).click()
    await page.getByRole('button', { name: 'Browse groups' }).first().click()
    const browse = page.getByRole('list', { name: 'Groups on this relay' })
    await browse.getByRole('listitem').first().waitFor()
    expect(INVISIBLE.test((await browse.textContent()) ?? '')).toBe(false)
    await fits('browse')
    expect(await overflowOf(page, '.card .title')).toEqual([0])
    for (const sel of ['.card .title', '.card .title > *'])
      expect(await nameBoxProblems(page, sel)).toEqual([])

    if (phone) await page.getByRole('button', { name: 'Open group list' }).click()
    await page.getByRole('button', { name: 'Join a group' }).click()
    const dialog = page.getByRole('dialog', { name: 'Join a group' })
    await dialog.getByLabel('Group link or code').fill(`${stack.relay.url}'${groupId}`)
    const preview = dialog.getByTestId('group-preview')
    await expect.poll(() => preview.locator('h3').textContent()).toBe(cleanName(GROUP_NAME))
    await fits('join-preview')
    expect(await overflowOf(page, '.group-preview')).toEqual([0])
    for (const sel of ['.group-preview h3', '.group-preview h3 > *'])
      expect(await nameBoxProblems(page, sel)).toEqual([])
    await page.keyboard.press('Escape')
    expect(ada.errors).toEqual([])
  })
})
