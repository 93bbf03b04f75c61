import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import {
  layoutProblems,
  newPerson,
  nextSecond,
  type Person,
  type Stack,
  screenshot,
  screenshotsOnFailure,
  send,
  seriousViolations,
  signUp,
  startStack,
} from './harness'
import { type Stranger, say, stranger, strangerGroup } from './strangers'

/**
 * A stranger copies the demo's "General": one group with the same name and one with a Cyrillic е,
 * both created after the demo's. A newcomer's first "Join General" must be the demo's, and every
 * copy must say what it is, in Browse, the quick switcher and search.
 */
let stack: Stack
let mallory: Stranger
const FAKE = 'general-chat'
const LOOKALIKE = 'gen'

beforeAll(async () => {
  stack = await startStack({ demo: true })
  await nextSecond()
  mallory = stranger(stack.relay.url)
  await strangerGroup(mallory, { id: FAKE, name: 'General', about: 'Open to everyone: say hello.' })
  await strangerGroup(mallory, { id: LOOKALIKE, name: 'G\u0435neral', about: 'The real one.' })
  await say(mallory, FAKE, 'find me here')
})
afterAll(async () => {
  mallory?.close()
  await stack?.close()
})

const SIZES = [
  { name: 'phone', width: 375, height: 812 },
  { name: 'desktop', width: 1280, height: 800 },
] as const

describe.each(SIZES)('look-alike groups at $width px', (size) => {
  let ada: Person
  const phone = size.name === 'phone'
  beforeAll(async () => {
    ada = await newPerson(stack, { viewport: { width: size.width, height: size.height }, touch: phone })
    await signUp(stack, ada, 'Ada')
  })
  beforeEach(() => screenshotsOnFailure(() => [ada]))

  test('Browse shows the relay’s own General first and marks the copies', async () => {
    const { page } = ada
    const list = page.getByRole('list', { name: 'Groups on this relay' })
    const generals = list.getByRole('listitem').filter({ has: page.getByTestId('twin-facts') })
    await expect.poll(() => generals.count()).toBe(3)
    // The first "Join General" a newcomer sees is the demo's.
    const first = list.getByRole('button', { name: /^Join G.neral/ }).first()
    expect(await first.getAttribute('aria-label')).toBe('Join General (id general)')
    const real = generals.nth(0)
    expect(await real.getByTestId('twin-facts').textContent()).toMatch(
      /^made by this relay.*id general · created .* · \d+ members$/,
    )
    expect(await real.getByTestId('twin-warning').count()).toBe(0)
    for (const i of [1, 2]) {
      const copy = generals.nth(i)
      expect(await copy.getByTestId('twin-facts').textContent()).toMatch(/id (general-chat|gen) · created /)
      expect(await copy.getByTestId('twin-warning').textContent()).toMatch(
        /^Not the only “G.neral” here: another group with this name was made by this relay itself\./,
      )
    }
    const problems = await layoutProblems(page)
    await screenshot(page, `lookalikes-${size.width}-browse`)
    expect(problems).toEqual([])
    expect(await seriousViolations(page)).toEqual([])

    // A link to the copy: the join preview says what it is.
    if (phone) await page.getByRole('button', { name: 'Open group list' }).click()
    await page.getByRole('button', { name: 'Join a group' }).click()
    const dialog = page.getByRole('dialog', { name: 'Join a group' })
    await dialog.getByLabel('Group link or code').fill(`${stack.relay.url}'${FAKE}`)
    const preview = dialog.getByTestId('group-preview')
    await expect
      .poll(() => preview.getByTestId('twin-warning').textContent())
      .toMatch(/^Not the only “General” here: another group with this name was made by this relay itself\./)
    expect(await preview.getByTestId('twin-facts').textContent()).toMatch(new RegExp(`id ${FAKE} · created `))
    const previewProblems = await layoutProblems(page)
    await screenshot(page, `lookalikes-${size.width}-join-preview`)
    expect(previewProblems).toEqual([])
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })

    await first.click()
    await page.locator('#group-title').getByText('General').waitFor()
    expect(
      await page.locator('main').getByText('Welcome to Roost! This is the general channel.').count(),
    ).toBe(1)
  })

  test('the switcher and search tell the user’s own look-alikes apart, the original first', async () => {
    const { page } = ada
    if (phone) await page.getByRole('button', { name: 'Open group list' }).click()
    await page.getByRole('button', { name: 'Browse groups' }).first().click()
    await page.getByRole('button', { name: `Join General (id ${FAKE})` }).click()
    await page.getByText('find me here').waitFor()
    // The header of the copy shows its id, marked.
    await expect
      .poll(() => page.locator('#group-title').getByTestId('twin-mark').textContent())
      .toMatch(new RegExp(`^⚠ .*id ${FAKE}$`))
    await page.keyboard.press('Control+k')
    const switcher = page.getByRole('dialog', { name: 'Switch to a group' })
    await switcher.getByRole('combobox').fill('gen')
    const options = switcher.getByRole('option')
    await expect.poll(() => options.count()).toBe(2)
    await expect.poll(() => options.nth(0).getByTestId('twin-mark').textContent()).toBe('id general')
    expect(await options.nth(1).getByTestId('twin-mark').textContent()).toMatch(
      new RegExp(`^⚠ Another group with this name was made by this relay itself; id ${FAKE}$`),
    )
    const problems = await layoutProblems(page)
    await screenshot(page, `lookalikes-${size.width}-switcher`)
    expect(problems).toEqual([])
    await switcher.getByRole('combobox').press('Enter')
    await switcher.waitFor({ state: 'detached' })
    await page.locator('main').getByText('Welcome to Roost! This is the general channel.').waitFor()

    await send(ada, `find me here ${size.name}`)
    await page.keyboard.press('Control+Shift+F')
    const search = page.getByRole('dialog', { name: 'Search messages' })
    await search.getByRole('radio', { name: 'All groups' }).check()
    await search.getByRole('combobox').fill('find me here')
    const results = search.getByRole('option')
    await expect.poll(() => results.count()).toBeGreaterThanOrEqual(2)
    const fake = results.filter({ hasText: 'find me here' }).filter({ has: page.locator('.twin-mark.warn') })
    await expect.poll(() => fake.count()).toBe(1)
    expect(await fake.getByTestId('twin-mark').textContent()).toContain(`id ${FAKE}`)
    const mine = results.filter({ hasText: `find me here ${size.name}` })
    expect(await mine.getByTestId('twin-mark').textContent()).toBe('id general')
    const searchProblems = await layoutProblems(page)
    await screenshot(page, `lookalikes-${size.width}-search`)
    expect(searchProblems).toEqual([])
    await page.keyboard.press('Escape')

    if (phone) await page.getByRole('button', { name: 'Open group list' }).click()
    const nav = page.getByRole('navigation', { name: 'Groups' })
    await expect.poll(() => nav.getByTestId('twin-mark').count()).toBe(2)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, `lookalikes-${size.width}-sidebar`)
    if (phone) await page.keyboard.press('Escape')
    expect(ada.errors).toEqual([])
  })
})
