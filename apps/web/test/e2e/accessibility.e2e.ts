import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import {
  type AxeViolation,
  joinByCode,
  messageIn,
  newPerson,
  screenshot,
  send,
  seriousViolations,
  withStack,
} from './harness'
import { publishAll } from './seed'

/**
 * Every view, on a phone and on a desktop, has no serious or critical axe-core (WCAG 2 A/AA)
 * violations; new messages from others in the open group are announced politely, summarised
 * when several come in, and the timeline itself stays quiet.
 */
const {
  stack,
  people: [ada],
} = withStack({ relay: { demo: true }, people: [{ name: 'Ada', join: ['general'] }] })

const SIZES = [
  { name: 'phone', width: 375, height: 740 },
  { name: 'desktop', width: 1280, height: 800 },
] as const

/** Scans the page as it is now; violations are kept under `view` and a screenshot is saved. */
async function scanner() {
  const found: Record<string, AxeViolation[]> = {}
  return {
    found,
    async scan(page: Page, view: string) {
      // A dialog or drawer sliding in is scanned where it stops.
      await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'))
      await screenshot(page, `a11y-${view}`)
      const violations = await seriousViolations(page)
      if (violations.length > 0) found[view] = violations
    },
  }
}

/** On a phone the group list is a drawer: opens it when the sidebar's `name` button is hidden. */
async function inSidebar(page: Page, name: string | RegExp) {
  const button = page.locator('aside.sidebar').getByRole('button', { name }).first()
  if (!(await button.isVisible())) await page.getByRole('button', { name: 'Open group list' }).first().click()
  await button.click()
}

let studio = ''
let studioUrl = ''

describe('accessibility', () => {
  test('the scan finds what it is for: a button without a name fails it', async () => {
    const { page } = ada
    await page.evaluate(() => {
      const b = document.createElement('button')
      b.id = 'nameless'
      document.body.append(b)
    })
    const found = await seriousViolations(page)
    await page.evaluate(() => document.getElementById('nameless')?.remove())
    expect(found.map((v) => v.id)).toContain('button-name')
  })

  test('the signed-out views and the welcome page, on a phone and a desktop', async () => {
    const { found, scan } = await scanner()
    for (const size of SIZES) {
      const guest = await newPerson(stack, { viewport: { width: size.width, height: size.height } })
      const { page } = guest
      await page.goto(stack.base)
      for (const tab of ['New key', 'Secret key', 'Extension', 'Remote signer']) {
        await page.getByRole('tab', { name: tab }).click()
        await scan(page, `signin-${tab.replace(' ', '-').toLowerCase()}-${size.name}`)
      }
      await page.getByRole('tab', { name: 'New key' }).click()
      await page.getByLabel('Display name (optional)').fill('Guest')
      await page.getByRole('button', { name: 'Create my key' }).click()
      await page.getByTestId('nsec').waitFor()
      await scan(page, `signin-saved-key-${size.name}`)
      await page.getByLabel('I have saved my secret key').check()
      await page.getByRole('button', { name: 'Continue' }).click()
      await page.getByRole('heading', { name: 'Welcome to Roost' }).waitFor()
      await scan(page, `welcome-${size.name}`)
      await guest.context.close()
    }
    expect(found).toEqual({})
  })

  test('the group, thread, people, search, switcher, settings and dialogs, on a phone and a desktop', async () => {
    const { page } = ada
    studio = await stack.relay.createGroup({ name: 'Studio', admins: [ada.pubkey!] })
    await joinByCode(ada, `${stack.relay.url}'${studio}`)
    await page.getByRole('heading', { name: 'Studio' }).waitFor()
    studioUrl = page.url()
    await send(ada, 'Checking accessibility')
    await messageIn(ada, 'Checking accessibility').first().waitFor()
    // A thread to open in the side panel.
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Start a thread…' }).click()
    const start = page.getByRole('dialog', { name: 'Start a thread' })
    await start.getByLabel('Title').fill('Release plan')
    await start.getByLabel('First post').fill('What ships on Friday?')
    await start.getByRole('button', { name: 'Start thread' }).click()
    await start.waitFor({ state: 'detached' })

    const { found, scan } = await scanner()
    for (const size of SIZES) {
      const at = (view: string) => `${view}-${size.name}`
      await page.setViewportSize({ width: size.width, height: size.height })
      // Each size from a fresh load, as someone on that screen would open it.
      await page.reload()
      await messageIn(ada, 'Checking accessibility').waitFor()
      await scan(page, at('group'))

      const root = page
        .getByRole('log', { name: 'Messages' })
        .getByRole('article', { name: 'Thread: Release plan' })
      await root.hover()
      await root.getByRole('button', { name: /Reply in thread/ }).click()
      const panel = page.getByRole('complementary', { name: /Thread: Release plan/ })
      await panel.getByRole('textbox', { name: 'Reply in thread' }).waitFor()
      await scan(page, at('thread'))
      // A side panel on a desktop, a full screen with a back arrow on a phone.
      await panel
        .getByRole('button', { name: /^(Close thread|Back)/ })
        .first()
        .click()
      await panel.waitFor({ state: 'detached' })

      // The header's button on a desktop, the group menu on a phone.
      if (size.name === 'phone') {
        await page.getByRole('button', { name: 'Group actions' }).click()
        await page.getByRole('menuitem', { name: /^People/ }).click()
      } else await page.getByRole('button', { name: /^People/ }).click()
      await page.getByRole('list', { name: 'Admins' }).waitFor()
      await scan(page, at('people'))
      await page.keyboard.press('Escape')
      await page.getByRole('list', { name: 'Admins' }).waitFor({ state: 'detached' })

      await page.locator('body').click({ position: { x: 1, y: 1 } })
      await page.keyboard.press('Control+Shift+F')
      const search = page.getByRole('combobox', { name: 'Search messages' })
      await search.fill('Checking')
      await page.getByRole('dialog').getByText('Checking accessibility').first().waitFor()
      await scan(page, at('search'))
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })

      await page.keyboard.press('Control+k')
      await page.getByRole('dialog').waitFor()
      await scan(page, at('switcher'))
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })

      await page.locator('body').click({ position: { x: 1, y: 1 } })
      await page.keyboard.press('?')
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor()
      await scan(page, at('dialog-shortcuts'))
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })

      await inSidebar(page, 'Settings and account')
      await page.getByRole('dialog', { name: 'Settings' }).waitFor()
      await scan(page, at('settings'))
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })

      await inSidebar(page, 'Join a group')
      await page.getByRole('dialog').waitFor()
      await scan(page, at('dialog-join'))
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })

      await inSidebar(page, 'Create a group')
      await page.getByRole('dialog', { name: 'Create a group' }).waitFor()
      await scan(page, at('dialog-create'))
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })
      // Back to the group (the phone's drawer closes when a group is chosen).
      if (!(await page.getByRole('heading', { name: 'Studio' }).isVisible())) await inSidebar(page, /^Studio/)
      await page.getByRole('heading', { name: 'Studio' }).waitFor()

      await page.getByRole('button', { name: 'Group actions' }).click()
      await page.getByRole('menu').waitFor()
      await scan(page, at('group-menu'))
      await page.getByRole('menuitem', { name: 'Invite people…' }).click()
      await page.getByRole('dialog').waitFor()
      await scan(page, at('dialog-invite'))
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })

      await page.getByRole('button', { name: 'Group actions' }).click()
      await page.getByRole('menuitem', { name: 'Edit group…' }).click()
      await page.getByRole('dialog').waitFor()
      await scan(page, at('dialog-edit'))
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })

      await page.getByRole('button', { name: 'Group actions' }).click()
      await page.getByRole('menuitem', { name: 'Leave group' }).click()
      const leave = page.getByRole('dialog', { name: 'Leave group' })
      await leave.getByText('Leave Studio?').waitFor()
      await scan(page, at('dialog-leave'))
      await leave.getByRole('button', { name: 'Cancel' }).click()
      await leave.waitFor({ state: 'detached' })

      const own = messageIn(ada, 'Checking accessibility').first()
      await own.focus()
      await page.keyboard.press('Enter')
      await own.getByRole('button', { name: 'Delete message' }).click()
      await page.getByRole('dialog', { name: 'Delete message' }).waitFor()
      await scan(page, at('dialog-delete'))
      await page.keyboard.press('Escape')
      await page.getByRole('dialog').waitFor({ state: 'detached' })
    }
    if (Object.keys(found).length > 0) console.log(JSON.stringify(found, null, 2))
    expect(found).toEqual({})
    expect(ada.errors).toEqual([])
  })

  test('leaving a group is asked in the app, not with the browser confirm()', async () => {
    const { page } = ada
    const natives: string[] = []
    page.on('dialog', (d) => natives.push(`${d.type()}: ${d.message()}`))
    await page.setViewportSize({ width: 375, height: 740 })
    await page.goto(studioUrl)
    await page.getByRole('heading', { name: 'Studio' }).waitFor()
    await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'))
    const drawer = page.getByRole('button', { name: 'Close group list' })
    if (await drawer.isVisible()) await drawer.click()
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Leave group' }).click()
    const dialog = page.getByRole('dialog', { name: 'Leave group' })
    await dialog.getByText('Leave Studio?').waitFor()
    // Enter on where the focus starts does not leave.
    await page.keyboard.press('Enter')
    await dialog.waitFor({ state: 'detached' })
    expect(await page.getByRole('heading', { name: 'Studio' }).isVisible()).toBe(true)
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Leave group' }).click()
    await screenshot(page, 'a11y-leave-confirm-phone')
    await dialog.getByRole('button', { name: 'Leave group' }).click()
    await page.waitForFunction(() => location.hash === '#/')
    await expect.poll(() => stack.relay.state(studio)?.members.includes(ada.pubkey!)).toBe(false)
    expect(natives).toEqual([])
    await page.setViewportSize({ width: 1280, height: 800 })
  })

  test('new messages from others are announced politely, a burst as one summary, our own not at all', async () => {
    const { page } = ada
    const bob = generateSecretKey()
    const cy = generateSecretKey()
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.goto(stack.base)
    const group = await stack.relay.createGroup({
      name: 'Busy',
      members: [ada.pubkey!, getPublicKey(bob), getPublicKey(cy)],
    })
    const now = () => Math.floor(Date.now() / 1000)
    const profile = (key: Uint8Array, name: string) =>
      finalizeEvent({ kind: 0, created_at: now(), tags: [], content: JSON.stringify({ name }) }, key)
    const message = (key: Uint8Array, content: string) =>
      finalizeEvent({ kind: 9, created_at: now(), tags: [['h', group]], content }, key)
    await publishAll(stack.relay.url, [
      profile(bob, 'Bob'),
      profile(cy, 'Cy'),
      message(bob, 'Before you came'),
      message(cy, 'Hello from earlier'),
    ])
    await joinByCode(ada, `${stack.relay.url}'${group}`)
    await page.getByRole('heading', { name: 'Busy' }).waitFor()
    await messageIn(ada, 'Hello from earlier').waitFor()
    // Their names have come (kind 0), as the timeline shows them.
    await messageIn(ada, 'Before you came').getByText('Bob', { exact: true }).first().waitFor()
    await messageIn(ada, 'Hello from earlier').getByText('Cy', { exact: true }).first().waitFor()
    const log = page.getByRole('log', { name: 'Messages' })
    // The timeline is a log, which would read every row it gains: it is kept quiet.
    expect(await log.getAttribute('aria-live')).toBe('off')
    const region = page.getByTestId('new-messages')
    expect(await region.getAttribute('aria-live')).toBe('polite')
    // Everything the region says, in order.
    await region.evaluate((el) => {
      const said: string[] = []
      ;(window as unknown as { said: string[] }).said = said
      new MutationObserver(() => {
        const text = el.textContent ?? ''
        if (text) said.push(text)
      }).observe(el, { childList: true, subtree: true, characterData: true })
    })
    const said = () => page.evaluate(() => (window as unknown as { said: string[] }).said)
    // History and our own messages are not news.
    await send(ada, 'I am here')
    await messageIn(ada, 'I am here').waitFor()

    await publishAll(stack.relay.url, [message(bob, 'One new thing')])
    await expect.poll(said, { timeout: 20_000 }).toEqual(['New message from Bob: One new thing'])

    // A burst: announced as a summary, not message by message.
    const burst = [
      message(bob, 'Burst one'),
      message(cy, 'Burst two'),
      message(bob, 'Burst three'),
      message(cy, 'Burst four'),
      message(bob, 'Burst five'),
    ]
    await publishAll(stack.relay.url, burst, 1)
    await messageIn(ada, 'Burst five').waitFor()
    const counted = (texts: string[]) =>
      texts
        .slice(1)
        .reduce((n, t) => n + (t.startsWith('New message from') ? 1 : Number(/^(\d+) new/.exec(t)?.[1])), 0)
    await expect.poll(async () => counted(await said()), { timeout: 30_000 }).toBe(burst.length)
    const texts = await said()
    // Fewer announcements than messages, and a summary names who wrote.
    expect(texts.length - 1).toBeLessThan(burst.length)
    expect(texts.slice(1).some((t) => /^\d+ new messages from (Bob and Cy|Cy and Bob)$/.test(t))).toBe(true)
    expect(texts.join('\n')).not.toContain('I am here')
    expect(texts.join('\n')).not.toContain('Before you came')
    await screenshot(page, 'a11y-announced')
    expect(await region.textContent()).toBe(texts.at(-1))
  })
})
