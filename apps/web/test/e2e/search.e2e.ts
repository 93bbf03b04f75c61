import { finalizeEvent, generateSecretKey } from 'nostr-tools'
import { beforeAll, describe, expect, test } from 'vitest'
import { messageIn, type Person, send, sidebarGroup, withStack } from './harness'
import { historyEvents, IMPORT_OPTIONS, publishAll } from './seed'

const COUNT = 300
const OLD_TEXT = 'The zucchini harvest of last spring'
const {
  people: [bob, ada],
} = withStack({
  relay: { ...IMPORT_OPTIONS },
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'garden', name: 'Garden' })
    await relay.createGroup({ id: 'books', name: 'Book club' })
    // A long history, with one message far older than the first page a reader loads.
    const history = historyEvents('garden', COUNT)
    const old = finalizeEvent(
      {
        kind: 9,
        created_at: (history[0]?.created_at ?? 0) - 60,
        tags: [['h', 'garden']],
        content: OLD_TEXT,
      },
      generateSecretKey(),
    )
    await publishAll(relay.url, [old, ...history])
  },
  people: [
    { name: 'Bob', join: ['books', 'garden'] },
    { name: 'Ada', join: ['books', 'garden'] },
  ],
})
beforeAll(async () => {
  await bob.page.getByRole('heading', { name: 'Garden' }).waitFor()
  await send(bob, 'Tomatoes ripen in August')
  await messageIn(bob, 'Tomatoes ripen in August').waitFor()
  // The next message in a later second, so "newest first" has one answer.
  const sent = Math.floor(Date.now() / 1000)
  while (Math.floor(Date.now() / 1000) <= sent) await new Promise((r) => setTimeout(r, 100))
  await sidebarGroup(bob, 'Book club').click()
  await bob.page.getByRole('heading', { name: 'Book club' }).waitFor()
  await send(bob, 'The August reading list is out')
  await messageIn(bob, 'The August reading list is out').waitFor()
}, 120_000)

/** The highlighted (chosen) message: the search highlight draws an inset bar on its row. */
async function expectHighlighted(person: Person, text: string) {
  const row = messageIn(person, text)
  await row.waitFor({ timeout: 30_000 })
  await expect
    .poll(() => row.evaluate((el) => getComputedStyle(el).boxShadow), { timeout: 10_000 })
    .toMatch(/inset/)
  await expect.poll(() => row.evaluate((el) => el === document.activeElement), { timeout: 10_000 }).toBe(true)
}

describe('message search', () => {
  test('the header button searches this group; Enter opens the result highlighted', async () => {
    const { page } = ada
    await sidebarGroup(ada, 'Garden').click()
    await page.getByRole('heading', { name: 'Garden' }).waitFor()
    await messageIn(ada, 'Tomatoes ripen in August').waitFor({ timeout: 30_000 })
    await page.getByRole('button', { name: 'Search messages' }).click()
    const input = page.getByRole('combobox', { name: 'Search messages' })
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Search messages')
    await input.fill('august')
    // In this group only: Bob's Book club message is not offered.
    const options = page.getByRole('listbox', { name: 'Results' }).getByRole('option')
    await expect.poll(() => options.allTextContents(), { timeout: 20_000 }).toHaveLength(1)
    await expect
      .poll(() => options.first().textContent(), { timeout: 20_000 })
      .toMatch(/^Bob.*Tomatoes ripen in August$/)
    await page.keyboard.press('Enter')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    await expectHighlighted(ada, 'Tomatoes ripen in August')
    expect(ada.errors).toEqual([])
  })

  test('`/` searches all groups, newest first with their group; arrows choose, Enter opens the group', async () => {
    const { page } = ada
    await page.keyboard.press('/')
    const input = page.getByRole('combobox', { name: 'Search messages' })
    await input.waitFor()
    await input.fill('August')
    await page.getByRole('radio', { name: 'All groups' }).check()
    await input.focus()
    const options = page.getByRole('listbox', { name: 'Results' }).getByRole('option')
    await expect.poll(() => options.count(), { timeout: 20_000 }).toBe(2)
    const texts = await options.allTextContents()
    expect(texts[0]).toMatch(/^Bob in Book club.*The August reading list is out$/)
    expect(texts[1]).toMatch(/^Bob in Garden.*Tomatoes ripen in August$/)
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => options.nth(1).getAttribute('aria-selected')).toBe('true')
    await page.keyboard.press('ArrowUp')
    await expect.poll(() => options.first().getAttribute('aria-selected')).toBe('true')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Book club' }).waitFor()
    await expectHighlighted(ada, 'The August reading list is out')

    // Nothing found says so; Escape closes.
    await page.keyboard.press('/')
    await input.fill('nothingmatchesthis')
    await page.getByText('No messages found').waitFor({ timeout: 20_000 })
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    expect(ada.errors).toEqual([])
  })

  test('a reply in a thread opens that thread in the side panel', async () => {
    const bp = bob.page
    await sidebarGroup(bob, 'Garden').click()
    await bp.getByRole('heading', { name: 'Garden' }).waitFor()
    await bp.getByRole('button', { name: 'Group actions' }).click()
    await bp.getByRole('menuitem', { name: 'Start a thread…' }).click()
    const dialog = bp.getByRole('dialog', { name: 'Start a thread' })
    await dialog.getByLabel('Title').fill('Seed swap')
    await dialog.getByLabel('First post').fill('Bring your squash seeds')
    await dialog.getByRole('button', { name: 'Start thread' }).click()
    const root = bp.getByRole('log', { name: 'Messages' }).getByRole('article', { name: 'Thread: Seed swap' })
    await root.getByRole('button', { name: /Reply in thread/ }).click()
    const bobPanel = bp.getByRole('complementary', { name: /Thread: Seed swap/ })
    const box = bobPanel.getByRole('textbox', { name: 'Reply in thread' })
    await box.fill('I have pumpkin seeds')
    await box.press('Enter')
    await bobPanel.locator('article', { hasText: 'I have pumpkin seeds' }).waitFor()

    const { page } = ada
    await page.keyboard.press('/')
    const input = page.getByRole('combobox', { name: 'Search messages' })
    await input.waitFor()
    // Ada is in Book club: the thread is in another group.
    await page.getByRole('radio', { name: 'All groups' }).check()
    await input.fill('pumpkin')
    const options = page.getByRole('listbox', { name: 'Results' }).getByRole('option')
    await expect.poll(() => options.allTextContents(), { timeout: 20_000 }).toHaveLength(1)
    await input.press('Enter')
    await page.getByRole('heading', { name: 'Garden' }).waitFor()
    const panel = page.getByRole('complementary', { name: /Thread: Seed swap/ })
    await panel.locator('article', { hasText: 'I have pumpkin seeds' }).waitFor({ timeout: 30_000 })
    await page.keyboard.press('Escape')
    expect(ada.errors).toEqual([])
  })

  test('a result older than the loaded page: older history loads until it shows, highlighted', async () => {
    const { page } = ada
    await page.keyboard.press('Control+Shift+F')
    const input = page.getByRole('combobox', { name: 'Search messages' })
    await input.waitFor()
    await page.getByRole('radio', { name: 'All groups' }).check()
    await input.fill('zucchini')
    const options = page.getByRole('listbox', { name: 'Results' }).getByRole('option')
    await expect.poll(() => options.count(), { timeout: 20_000 }).toBe(1)
    expect(await options.first().textContent()).toMatch(/ in Garden.*The zucchini harvest of last spring$/)
    await input.press('Enter')
    await page.getByRole('heading', { name: 'Garden' }).waitFor()
    await expectHighlighted(ada, OLD_TEXT)
    expect(ada.errors).toEqual([])
  })
})
