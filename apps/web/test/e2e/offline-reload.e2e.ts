/**
 * A reload of a group this device holds, while the relay cannot answer: offline (the service
 * worker serves the app, IndexedDB the messages), or online behind a link that holds back every
 * frame of the relay's. The page shows what it showed online: the authors' names (their kind 0s
 * were received online), and paging back ends in words that say why no older messages come,
 * never a "Loading older messages…" that stays; once the relay answers again, they come.
 */
import { describe, expect, test } from 'vitest'
import { withGarden } from './garden'
import {
  joinByCode,
  layoutProblems,
  messageIn,
  newPerson,
  offlineUnderWorker,
  type Person,
  screenshot,
  signUp,
} from './harness'
import { slowLink } from './slow-link'

const COUNT = 300
const NAMES = ['Wren', 'Juniper', 'Basil', 'Marigold'] as const
const {
  stack,
  people: [ada],
} = withGarden(COUNT, { names: NAMES })

const text = (n: number) => `History message ${n} of ${COUNT}`
const authorOf = (n: number) => NAMES[(n - 1) % NAMES.length]!

/** The author's name as the row of message `n` shows it. */
function authorIn(person: Person, n: number) {
  return messageIn(person, text(n)).locator('.author').getByText(authorOf(n), { exact: true })
}

/**
 * From the next page load on, records every author the timeline shows as a short npub instead of
 * a name (`window.__npubs`), from the page's first script.
 */
async function watchNpubs(person: Person): Promise<() => Promise<string[]>> {
  await person.context.addInitScript({
    content: `(() => {
      const seen = (window.__npubs = [])
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('article .author')) {
          const t = (el.textContent || '').trim()
          if (t.startsWith('npub1') && !seen.includes(t)) seen.push(t)
        }
      }).observe(document, { childList: true, subtree: true, characterData: true })
    })()`,
  })
  return () => person.page.evaluate(() => (window as unknown as { __npubs: string[] }).__npubs)
}

/** Counts each time the "Loading older messages…" pill appears, from now on (`window.__pills`). */
async function countPills(person: Person): Promise<() => Promise<number>> {
  await person.page.evaluate(() => {
    const w = window as unknown as { __pills: number; __pillsWatch?: MutationObserver }
    w.__pills = 0
    let shown = document.querySelector('.loading-older') !== null
    w.__pillsWatch?.disconnect()
    w.__pillsWatch = new MutationObserver(() => {
      const now = document.querySelector('.loading-older') !== null
      if (now && !shown) w.__pills++
      shown = now
    })
    w.__pillsWatch.observe(document.body, { childList: true, subtree: true })
  })
  return () => person.page.evaluate(() => (window as unknown as { __pills: number }).__pills)
}

/** Scrolls the timeline to its top, as a reader paging back does. */
function toTop(person: Person) {
  return person.page.getByRole('log', { name: 'Messages' }).evaluate((el) => {
    el.scrollTop = 0
  })
}

/** The oldest history message in the timeline's DOM now (its number), or Infinity. */
function oldestShown(person: Person): Promise<number> {
  return person.page
    .getByRole('log', { name: 'Messages' })
    .evaluate((el) =>
      Math.min(
        ...[...el.querySelectorAll('article .body')].map((b) =>
          Number(/^History message (\d+) of/.exec(b.textContent ?? '')?.[1] ?? Number.POSITIVE_INFINITY),
        ),
      ),
    )
}

/** Scrolls to the top until message `n` or an older one has come (older pages load on the way). */
async function pageBackTo(person: Person, n: number) {
  await expect
    .poll(
      async () => {
        await toTop(person)
        return oldestShown(person)
      },
      { timeout: 60_000, interval: 300 },
    )
    .toBeLessThanOrEqual(n)
}

/**
 * Pages back while the relay cannot answer: the words `why` show where the pill was, and the pill
 * does not come back while the reader keeps scrolling to the top (a few seconds, longer than a
 * query to the relay waits for its answer).
 */
async function olderStopsWith(person: Person, why: RegExp) {
  const { page } = person
  const note = page.getByTestId('older-unavailable')
  await expect
    .poll(
      async () => {
        await toTop(person)
        return (await note.count()) > 0 ? note.textContent() : ''
      },
      { timeout: 30_000, interval: 300 },
    )
    .toMatch(why)
  const pills = await countPills(person)
  for (let i = 0; i < 8; i++) {
    await toTop(person)
    await page.waitForTimeout(1000)
  }
  expect(await pills()).toBe(0)
  expect(await page.locator('.loading-older').count()).toBe(0)
  expect(await note.textContent()).toMatch(why)
}

describe('a reload while the relay cannot answer', () => {
  test('offline: the cached authors show by name, paging back says it is offline, and resumes once back', async () => {
    const { page, context } = ada
    await page.getByRole('heading', { name: 'Garden' }).waitFor()
    await messageIn(ada, text(COUNT)).waitFor({ timeout: 30_000 })
    for (const n of [COUNT, COUNT - 1, COUNT - 2, COUNT - 3])
      await authorIn(ada, n).waitFor({ timeout: 30_000 })
    await offlineUnderWorker(ada)
    await page.reload()
    await messageIn(ada, text(COUNT)).waitFor({ timeout: 30_000 })
    for (const n of [COUNT, COUNT - 1, COUNT - 2, COUNT - 3])
      await authorIn(ada, n).waitFor({ timeout: 15_000 })

    // The header says why nothing new comes, as the banner does, rather than "connecting…".
    await page.locator('.sync-status').filter({ hasText: 'Saved messages · offline' }).waitFor()
    await olderStopsWith(ada, /^Can’t load older messages while offline/)
    await toTop(ada)
    await screenshot(page, 'offline-reload')

    await context.setOffline(false)
    await pageBackTo(ada, COUNT - 150)
    await expect.poll(() => page.getByTestId('older-unavailable').count(), { timeout: 30_000 }).toBe(0)
    expect(ada.errors).toEqual([])
  }, 180_000)

  test('online behind a stalled link: the cached authors show by name before the relay answers, paging back says so, and resumes', async () => {
    const link = await slowLink(stack.base)
    try {
      const bea = await newPerson(stack)
      await signUp({ ...stack, base: link.base }, bea, 'Bea')
      await joinByCode(bea, `${link.url}'garden`)
      const { page } = bea
      await page.getByRole('heading', { name: 'Garden' }).waitFor()
      await messageIn(bea, text(COUNT)).waitFor({ timeout: 30_000 })
      for (const n of [COUNT, COUNT - 1, COUNT - 2, COUNT - 3])
        await authorIn(bea, n).waitFor({ timeout: 30_000 })

      // Everything the relay sends from now on is held for two minutes: longer than this test waits.
      const npubs = await watchNpubs(bea)
      link.delayMs = 120_000
      await page.reload()
      await messageIn(bea, text(COUNT)).waitFor({ timeout: 30_000 })
      for (const n of [COUNT, COUNT - 1, COUNT - 2, COUNT - 3])
        await authorIn(bea, n).waitFor({ timeout: 15_000 })
      expect(await npubs()).toEqual([])

      await olderStopsWith(bea, /^Can’t load older messages: the relay is not answering/)
      await screenshot(page, 'stalled-reload')
      // On a phone too the words fit, above the list, covering none of it.
      await page.setViewportSize({ width: 390, height: 844 })
      await toTop(bea)
      expect(await layoutProblems(page)).toEqual([])
      await screenshot(page, 'stalled-reload-phone')
      await page.setViewportSize({ width: 1280, height: 800 })

      link.delayMs = 0
      await pageBackTo(bea, COUNT - 150)
      await expect.poll(() => page.getByTestId('older-unavailable').count(), { timeout: 30_000 }).toBe(0)
      expect(bea.errors).toEqual([])
    } finally {
      await link.close()
    }
  }, 180_000)
})
