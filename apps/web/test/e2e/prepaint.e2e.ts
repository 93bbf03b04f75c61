import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { messageIn, type Person, screenshot, seriousViolations, withStack } from './harness'
import { historyEvents, IMPORT_OPTIONS, publishAll } from './seed'

const KEY = 'roost.prepaint.v1'

const {
  stack,
  people: [ada, bea, cy],
} = withStack({
  relay: { ...IMPORT_OPTIONS },
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'garden', name: 'Garden' })
    await relay.createGroup({ id: 'orchard', name: 'Orchard' })
    await publishAll(relay.url, historyEvents('garden', 40))
    await publishAll(relay.url, historyEvents('orchard', 5))
  },
  people: [
    { name: 'Ada', join: ['orchard', 'garden'] },
    { name: 'Bea', join: ['garden'] },
    { name: 'Cy', join: ['garden'] },
  ],
})

/** The groups' addresses in the app (everyone's page opens on the Garden once joined). */
let garden = ''
let orchard = ''
beforeAll(() => {
  garden = ada.page.url()
  expect(garden).toMatch(/#\/g\/.*garden$/)
  orchard = garden.replace(/garden$/, 'orchard')
})

/**
 * Holds the app's bundle (`/assets/index-*.js`) until the returned function is called, so what
 * is on screen before it is the page's first script's alone. The service worker would answer the
 * bundle from its cache, out of the route's reach: it is unregistered first (the app registers it
 * again once it runs).
 */
async function holdBundle(page: Page): Promise<() => Promise<void>> {
  await page.evaluate(async () => {
    for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister()
  })
  let release!: () => void
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const pattern = /\/assets\/index-[^/]*\.js$/
  await page.route(pattern, async (route) => {
    await released
    await route.continue().catch(() => undefined)
  })
  const done = async () => {
    release()
    await page.unroute(pattern)
  }
  // A failed test does not leave the page without its app for the next one.
  onTestFinished(done)
  return done
}

/**
 * Loads `url` anew (from another document: an address that differs only by its fragment would
 * not load) and waits until its HTML is parsed (the first script has run), the bundle held.
 */
async function openHeld(page: Page, url: string): Promise<void> {
  if (new URL(page.url()).origin === new URL(url).origin) await page.goto('about:blank')
  await page.goto(url, { waitUntil: 'commit' })
  await page.waitForFunction(() => document.readyState !== 'loading')
}

/** The record as the page would match it now (account, address, width). */
function recordFor(page: Page, html: string, over: { pubkey?: string; url?: string; width?: string } = {}) {
  return page.evaluate(
    ({ html, over }) => {
      const boot = JSON.parse(localStorage.getItem('roost.boot.v1') ?? '{}') as { pubkey: string }
      return JSON.stringify({
        v: 1,
        url: over.url ?? location.pathname + location.search + location.hash,
        pubkey: over.pubkey ?? boot.pubkey,
        width: over.width ?? `${matchMedia('(max-width: 640px)').matches ? 'phone' : 'wide'}:${innerWidth}`,
        html,
      })
    },
    { html, over },
  )
}

/**
 * Leaves the app for a same-origin page that is not the app (its own view is written down as it
 * goes), plants `raw` (or removes the record), and comes back with the bundle held.
 */
async function plantAndReturn(person: Person, raw: string | undefined): Promise<void> {
  const { page } = person
  const url = page.url()
  await page.goto(`${stack.base}/manifest.webmanifest`)
  await page.evaluate(
    ({ key, raw }) => (raw === undefined ? localStorage.removeItem(key) : localStorage.setItem(key, raw)),
    { key: KEY, raw },
  )
  await page.goto(url, { waitUntil: 'commit' })
  await page.waitForFunction(() => document.readyState !== 'loading')
}

async function openGarden(person: Person): Promise<void> {
  const { page } = person
  await page.goto(garden)
  await messageIn(person, 'History message 40 of 40').waitFor({ timeout: 30_000 })
}

describe('the last view of a group, painted before the app has loaded', () => {
  for (const [person, width] of [
    [ada, 1280],
    [bea, 375],
  ] as const) {
    test(`at ${width} px a reload shows the group's last messages before the bundle, inert, then the app's own timeline`, async () => {
      const { page } = person
      await page.setViewportSize({ width, height: width === 375 ? 740 : 800 })
      await openGarden(person)
      const release = await holdBundle(page)
      await openHeld(page, page.url())
      const copy = page.locator('#prepaint')
      await copy.getByText('History message 40 of 40', { exact: true }).waitFor({ state: 'visible' })
      expect(await copy.getAttribute('aria-hidden')).toBe('true')
      expect(await copy.evaluate((el) => (el as HTMLElement).inert)).toBe(true)
      // The app has not run: its root still holds nothing, and the copy is no log to a reader.
      expect(await page.locator('#root').innerHTML()).toBe('')
      expect(await page.getByRole('log').count()).toBe(0)
      // Clicks on the copy reach neither it nor the app under it.
      expect(await page.locator('#root').evaluate((el) => (el as HTMLElement).inert)).toBe(true)
      await screenshot(page, `prepaint-${width}-copy`)
      // Hidden from assistive technology, the copy adds nothing for axe to find.
      expect(await seriousViolations(page)).toEqual([])
      const box = (el: Element) => {
        const r = el.getBoundingClientRect()
        return [r.x, r.y, r.width, r.height].map(Math.round)
      }
      const before = await copy
        .locator('article')
        .filter({ hasText: 'History message 40 of 40' })
        .evaluate(box)

      await release()
      const last = messageIn(person, 'History message 40 of 40')
      await last.waitFor({ timeout: 30_000 })
      await expect.poll(() => copy.count()).toBe(0)
      await screenshot(page, `prepaint-${width}-app`)
      // No jump: the app's row is where the copy's was.
      expect(await last.evaluate(box)).toEqual(before)
      // The app's timeline, under no cover: the point in the middle of the last message is its own.
      expect(await page.locator('#root').evaluate((el) => (el as HTMLElement).inert)).toBe(false)
      expect(
        await last.evaluate((el) => {
          const r = el.getBoundingClientRect()
          return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2))
        }),
      ).toBe(true)
      await last.click({ timeout: 10_000 })
      await page.keyboard.press('Escape')
      expect(person.errors).toEqual([])
    })
  }

  test('a planted record with hostile markup shows its text and runs nothing', async () => {
    const { page } = cy
    await openGarden(cy)
    const hostile = [
      '<div class="app"><p class="planted">Planted message</p>',
      '<img src="x" onerror="window.__pwned = 1">',
      '<script>window.__pwned = 2</script>',
      '<a class="planted-link" href="javascript:window.__pwned = 3">link</a>',
      '<a class="planted-link2" href=" JaVa&#x09;script:window.__pwned = 4">link</a>',
      '<iframe srcdoc="&lt;script&gt;parent.__pwned = 5&lt;/script&gt;"></iframe>',
      '<svg><animate onbegin="window.__pwned = 6" attributeName="x" dur="1s"></animate></svg>',
      '<details open ontoggle="window.__pwned = 7"><summary>s</summary></details>',
      '<object data="javascript:window.__pwned = 8"></object>',
      '<style>body { outline: 9px solid red }</style>',
      '<form action="javascript:window.__pwned = 9"><button autofocus onfocus="window.__pwned = 10">b</button></form>',
      '</div>',
    ].join('')
    const raw = await recordFor(page, hostile)
    const release = await holdBundle(page)
    await plantAndReturn(cy, raw)
    const copy = page.locator('#prepaint')
    await copy.getByText('Planted message').waitFor({ state: 'visible' })
    // Give an image error or a toggle event its turn.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 500)))
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()
    expect(await copy.locator('script, style, iframe, object, animate, [action], [autofocus]').count()).toBe(
      0,
    )
    expect(await copy.locator('[onerror], [ontoggle], [onbegin], [onfocus]').count()).toBe(0)
    expect(await copy.locator('.planted-link').getAttribute('href')).toBeNull()
    expect(await copy.locator('.planted-link2').getAttribute('href')).toBeNull()
    await release()
    await messageIn(cy, 'History message 40 of 40').waitFor({ timeout: 30_000 })
    await expect.poll(() => copy.count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()
    expect(cy.errors).toEqual([])
  })

  test('a record is shown only for its account, its group and its width', async () => {
    const { page } = cy
    await openGarden(cy)
    const html = '<div class="app"><p>Kept view</p></div>'
    const there = new URL(orchard)
    const cases: [string, string, boolean][] = [
      ['this account, group and width', await recordFor(page, html), true],
      ['another account', await recordFor(page, html, { pubkey: 'ab'.repeat(32) }), false],
      [
        'another group',
        await recordFor(page, html, { url: there.pathname + there.search + there.hash }),
        false,
      ],
      ['another width', await recordFor(page, html, { width: 'wide:1024' }), false],
    ]
    const release = await holdBundle(page)
    for (const [name, raw, shown] of cases) {
      await plantAndReturn(cy, raw)
      expect(await page.getByText('Kept view').count(), name).toBe(shown ? 1 : 0)
    }
    await release()
    await messageIn(cy, 'History message 40 of 40').waitFor({ timeout: 30_000 })
  })

  test('no view is kept while a side panel is open, which a reload would not open again', async () => {
    const { page } = cy
    await openGarden(cy)
    await page.goto(`${stack.base}/manifest.webmanifest`)
    expect(await page.evaluate((key) => localStorage.getItem(key), KEY)).toContain('History message 40 of 40')
    await openGarden(cy)
    await page.getByRole('button', { name: /^People/ }).click()
    await page.getByRole('complementary').getByRole('heading').first().waitFor()
    await page.goto(`${stack.base}/manifest.webmanifest`)
    expect(await page.evaluate((key) => localStorage.getItem(key), KEY)).toBeNull()
  })

  test('after leaving the group, and after signing out, nothing of it is kept or shown', async () => {
    const { page } = ada
    // Left: the group is not painted again.
    await openGarden(ada)
    await page.goto(`${stack.base}/manifest.webmanifest`)
    expect(await page.evaluate((key) => localStorage.getItem(key), KEY)).toContain('History message 40 of 40')
    await openGarden(ada)
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Leave group' }).click()
    const leave = page.getByRole('dialog', { name: 'Leave group' })
    await leave.getByRole('button', { name: 'Leave group' }).click()
    await leave.waitFor({ state: 'detached' })
    await expect.poll(() => page.evaluate((key) => localStorage.getItem(key), KEY)).toBeNull()
    const release = await holdBundle(page)
    await openHeld(page, garden)
    expect(await page.locator('#prepaint').count()).toBe(0)
    await release()

    // Signed out: the record goes with the session.
    await page.goto(orchard)
    await messageIn(ada, 'History message 5 of 5').waitFor({ timeout: 30_000 })
    await page.goto(`${stack.base}/manifest.webmanifest`)
    expect(await page.evaluate((key) => localStorage.getItem(key), KEY)).toContain('History message 5 of 5')
    await page.goto(orchard)
    await messageIn(ada, 'History message 5 of 5').waitFor({ timeout: 30_000 })
    await page.getByRole('button', { name: 'Settings and account' }).click()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('button', { name: 'Create my key' }).waitFor()
    expect(await page.evaluate((key) => localStorage.getItem(key), KEY)).toBeNull()
    const again = await holdBundle(page)
    await openHeld(page, orchard)
    expect(await page.locator('#prepaint').count()).toBe(0)
    await again()
    await page.getByRole('button', { name: 'Create my key' }).waitFor()
    expect(await page.locator('#prepaint').count()).toBe(0)
  })
})
