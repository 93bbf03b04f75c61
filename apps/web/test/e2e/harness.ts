/**
 * Shared pieces of the e2e suite: a real relay serving the built client, browser contexts
 * (one per person or device) on the worker's Chromium, sign-in through the UI, screenshots
 * under `test-results/`, and an axe-core scan.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import { type RelayHandle, type RelayOptions, startRelay } from '@roost/relay'
import { getPublicKey, nip19 } from 'nostr-tools'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, expect, inject, onTestFailed } from 'vitest'
import { distDir, webRoot } from '../../server/build'

export const resultsDir = join(webRoot, 'test-results')

export interface Stack {
  relay: RelayHandle
  /** http://127.0.0.1:PORT — where the relay serves the client. */
  base: string
  browser: Browser
  contexts: BrowserContext[]
  close(): Promise<void>
}

/** The browser of this worker: files running at the same time never share one. */
function browserEndpoint(): string {
  const endpoints = inject('browserWsEndpoints')
  const worker = Number(process.env.VITEST_POOL_ID ?? 1) - 1
  return endpoints[worker % endpoints.length] ?? inject('browserWsEndpoint')
}

/** A relay on a free port with the built client, and a connection to this worker's browser. */
export async function startStack(opts: Partial<RelayOptions> = {}): Promise<Stack> {
  const relay = await startRelay({ port: 0, host: '127.0.0.1', db: ':memory:', staticDir: distDir, ...opts })
  const browser = await chromium.connect(browserEndpoint())
  const contexts: BrowserContext[] = []
  return {
    relay,
    base: relay.url.replace(/^ws/, 'http'),
    browser,
    contexts,
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined)
      await browser.close()
      await relay.close()
    },
  }
}

export interface Person {
  context: BrowserContext
  page: Page
  name?: string
  nsec?: string
  pubkey?: string
  /** Uncaught page errors and `alert()`s seen so far: an e2e test fails if either appears. */
  errors: string[]
  dialogs: string[]
}

/** A fresh browser profile (its own localStorage and IndexedDB) with one page. */
export async function newPerson(
  stack: Stack,
  opts: { bypassCSP?: boolean; viewport?: { width: number; height: number }; touch?: boolean } = {},
): Promise<Person> {
  const context = await stack.browser.newContext({
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    bypassCSP: opts.bypassCSP ?? false,
    hasTouch: opts.touch ?? false,
  })
  stack.contexts.push(context)
  const page = await context.newPage()
  return watch(context, page)
}

/** Another page (tab/device) in the same profile. */
export async function newTab(person: Person): Promise<Person> {
  return watch(person.context, await person.context.newPage())
}

function watch(context: BrowserContext, page: Page): Person {
  const person: Person = { context, page, errors: [], dialogs: [] }
  page.on('pageerror', (e) => person.errors.push(String(e)))
  page.on('dialog', (d) => {
    if (d.type() === 'alert') person.dialogs.push(d.message())
    // Confirms (leave, delete) are accepted; alerts are recorded and dismissed.
    void (d.type() === 'confirm' ? d.accept() : d.dismiss())
  })
  return person
}

/** Signs up through the UI with a new key and a display name; returns the exported nsec. */
export async function signUp(stack: Stack, person: Person, name: string): Promise<string> {
  person.name = name
  const { page } = person
  await page.goto(stack.base)
  await page.getByRole('tab', { name: 'New key' }).click()
  await page.getByLabel('Display name (optional)').fill(name)
  await page.getByRole('button', { name: 'Create my key' }).click()
  const nsec = (await page.getByTestId('nsec').textContent())?.trim() ?? ''
  await page.getByLabel('I have saved my secret key').check()
  await page.getByRole('button', { name: 'Continue' }).click()
  // On a phone the group list is a closed drawer: wait for the shell, not for the list to show.
  await page.locator('aside.sidebar').waitFor({ state: 'attached' })
  person.nsec = nsec
  person.pubkey = pubkeyOfNsec(nsec)
  return nsec
}

export function pubkeyOfNsec(nsec: string): string {
  const decoded = nip19.decode(nsec)
  if (decoded.type !== 'nsec') throw new Error('not an nsec')
  return getPublicKey(decoded.data)
}

/** Types into the group's message box and presses Enter. */
export async function send(person: Person, text: string): Promise<void> {
  const box = person.page.getByRole('textbox', { name: /^Message / })
  await box.fill(text)
  await box.press('Enter')
}

/**
 * Waits until the service worker controls the page, then takes the person's browser offline and
 * waits for the app's banner to say so: a reload from here is served by the worker.
 */
export async function offlineUnderWorker(person: Person): Promise<void> {
  const { page, context } = person
  await page.evaluate(() => navigator.serviceWorker.ready)
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true)
  await context.setOffline(true)
  const banner = page.getByTestId('connection')
  await expect.poll(() => banner.getAttribute('data-status')).toBe('offline')
}

/** The message row in the open group's timeline whose text is exactly `text`. */
export function messageIn(person: Person, text: string) {
  const exact = new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)
  return person.page
    .getByRole('log', { name: 'Messages' })
    .locator('article')
    .filter({ has: person.page.locator('.body').getByText(exact) })
}

/** Opens the join dialog, pastes `input` (naddr, link or group code) and joins. */
export async function joinByCode(person: Person, input: string): Promise<void> {
  const { page } = person
  await page.getByRole('button', { name: 'Join a group' }).click()
  await page.getByLabel('Group link or code').fill(input)
  await page.getByRole('button', { name: 'Join', exact: true }).click()
  await page.getByRole('dialog').waitFor({ state: 'detached' })
}

/**
 * Resolves once the clock is in a later second than when it was called. Read state has whole
 * seconds (NIP-RS): a message created in the second someone last read counts as read, so a test
 * that wants the next message unread sends it after this.
 */
export async function nextSecond(): Promise<void> {
  const now = Math.floor(Date.now() / 1000)
  while (Math.floor(Date.now() / 1000) <= now) await new Promise((resolve) => setTimeout(resolve, 20))
}

/** The sidebar entry of a group (its accessible name starts with the group name). */
export function sidebarGroup(person: Person, name: string) {
  return person.page
    .getByRole('navigation', { name: 'Groups' })
    .getByRole('button', { name: new RegExp(`^${name}`) })
}

/** Signs in by pasting an nsec. */
export async function signInWithNsec(stack: Stack, person: Person, nsec: string): Promise<void> {
  const { page } = person
  await page.goto(stack.base)
  await page.getByRole('tab', { name: 'Secret key' }).click()
  await page.getByLabel('Secret key (nsec)').fill(nsec)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('aside.sidebar').waitFor({ state: 'attached' })
  person.nsec = nsec
  person.pubkey = pubkeyOfNsec(nsec)
}

/** One person of a {@link withStack} opening: a fresh browser profile. */
export interface PersonSpec {
  /** The display name to sign up with through the UI; without it the profile stays signed out. */
  name?: string
  /** Group ids on the stack's relay this person joins by code after signing up, in order. */
  join?: readonly string[]
  viewport?: { width: number; height: number }
  touch?: boolean
  bypassCSP?: boolean
}

/** What a file's opening needs: see {@link withStack}. */
export interface StackSetup {
  /** The relay's options (a function is called in the opening, after the file's earlier hooks). */
  relay?: Partial<RelayOptions> | (() => Partial<RelayOptions>)
  /** Runs once the stack is up, before anyone signs up: groups, imported history. */
  seed?: (stack: Stack) => Promise<void>
  /** The people, in order: a name alone signs up with that display name. */
  people?: readonly (string | PersonSpec)[]
}

/**
 * The opening every e2e file shares. Before the file's first test: a stack (the relay serving the
 * built client, and this worker's browser), `seed`, then each person in a fresh profile, signed up
 * through the UI (one after another, in order) and joined to their groups. On a failed test, a
 * screenshot of each person's page; after the file, the stack closed. The stack and the people
 * are returned at once, as objects filled in before the first test, so a file can destructure
 * them where it declares them; hooks the file adds after this call run after the opening.
 *
 * @example
 * const {
 *   stack,
 *   people: [ada, bob],
 * } = withStack({ relay: { demo: true }, people: [{ name: 'Ada', join: ['general'] }, 'Bob'] })
 * test('Ada sees General', async () => {
 *   await ada.page.getByRole('heading', { name: 'General' }).waitFor()
 * })
 */
export function withStack<const P extends readonly (string | PersonSpec)[] = []>(
  setup: StackSetup & { people?: P } = {},
): { stack: Stack; people: { -readonly [K in keyof P]: Person } } {
  const specs: PersonSpec[] = (setup.people ?? []).map((p) => (typeof p === 'string' ? { name: p } : p))
  const stack = {} as Stack
  const people = specs.map(() => ({ errors: [], dialogs: [] }) as unknown as Person)
  beforeAll(async () => {
    const relay = typeof setup.relay === 'function' ? setup.relay() : setup.relay
    Object.assign(stack, await startStack(relay))
    await setup.seed?.(stack)
    for (const [i, spec] of specs.entries()) Object.assign(people[i]!, await newPerson(stack, spec))
    for (const [i, spec] of specs.entries()) if (spec.name) await signUp(stack, people[i]!, spec.name)
    for (const [i, spec] of specs.entries())
      for (const id of spec.join ?? []) await joinByCode(people[i]!, `${stack.relay.url}'${id}`)
  })
  afterAll(async () => {
    if (stack.close) await stack.close()
  })
  beforeEach(() => screenshotsOnFailure(() => people.filter((p) => p.page !== undefined)))
  return { stack, people: people as { -readonly [K in keyof P]: Person } }
}

/** Saves `test-results/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(resultsDir, { recursive: true })
  const path = join(resultsDir, `${name}.png`)
  await page.screenshot({ path })
  return path
}

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: string[]
}

/**
 * Runs axe-core (WCAG 2 A/AA rules) on the page through `@axe-core/playwright` (injected over
 * the DevTools protocol, so the page's CSP does not apply); returns the serious and critical
 * violations.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }))
}

/** On a failed test, saves `test-results/failed-<test>-<n>.png` for each page given. */
export function screenshotsOnFailure(people: () => Person[]): void {
  onTestFailed(async ({ task }) => {
    const slug = task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)
    let n = 0
    for (const p of people()) await screenshot(p.page, `failed-${slug}-${n++}`).catch(() => undefined)
  })
}

/**
 * What is wrong with the layout on screen now: horizontal overflow of the page, and controls
 * that stick out of the screen, hide under something else, or (with `minTarget`) are smaller
 * than a finger. Controls behind an open modal, in a closed drawer or invisible are skipped.
 */
export async function layoutProblems(page: Page, opts: { minTarget?: number } = {}): Promise<string[]> {
  // A drawer sliding in is not a layout: measure once transitions have finished.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'))
  return page.evaluate((minTarget) => {
    const problems: string[] = []
    const width = window.innerWidth
    const height = window.innerHeight
    const doc = document.documentElement
    if (doc.scrollWidth > width + 1) problems.push(`page is ${doc.scrollWidth}px wide on a ${width}px screen`)
    if (document.body.scrollWidth > width + 1) problems.push(`body is ${document.body.scrollWidth}px wide`)
    const modal = document.querySelector('dialog[open]')
    const root: ParentNode = modal ?? document
    const controls = root.querySelectorAll<HTMLElement>(
      'button, a[href], input, select, textarea, [tabindex="0"], [role="tab"]',
    )
    const describe = (el: HTMLElement) =>
      `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`
    for (const el of controls) {
      if (el.closest('[inert]') || el.classList.contains('skip-link')) continue
      const rect = el.getBoundingClientRect()
      if (rect.width === 0 || rect.height === 0) continue
      let hidden = false
      for (let n: HTMLElement | null = el; n; n = n.parentElement) {
        const style = getComputedStyle(n)
        if (style.visibility === 'hidden' || style.display === 'none' || Number(style.opacity) === 0)
          hidden = true
      }
      if (hidden) continue
      // Inside a scrolled list, only what is scrolled into view counts.
      if (rect.bottom <= 0 || rect.top >= height) continue
      if (rect.left < -1 || rect.right > width + 1)
        problems.push(`${describe(el)} sticks out: ${Math.round(rect.left)}..${Math.round(rect.right)}`)
      // A link wrapped over lines is hit-tested on its first line box.
      const box0 = el.getClientRects()[0] ?? rect
      const cx = Math.min(width - 1, Math.max(0, box0.left + box0.width / 2))
      const cy = Math.min(height - 1, Math.max(0, box0.top + box0.height / 2))
      const hit = document.elementFromPoint(cx, cy)
      // A control clipped by its scroll area (half out of view) is fine; one under another panel is not.
      const visibleInScroller = (() => {
        for (let n = el.parentElement; n; n = n.parentElement) {
          const r = n.getBoundingClientRect()
          const o = getComputedStyle(n).overflowY
          if ((o === 'auto' || o === 'scroll') && (cy < r.top || cy > r.bottom)) return false
        }
        return true
      })()
      if (
        visibleInScroller &&
        hit &&
        !el.contains(hit) &&
        !(hit instanceof HTMLLabelElement && hit.control === el)
      )
        problems.push(`${describe(el)} is covered by ${hit.tagName.toLowerCase()}.${hit.className}`)
      const inline = el.tagName === 'A' && el.closest('.body, p') !== null
      const box = el.tagName === 'INPUT' && /^(checkbox|radio)$/.test((el as HTMLInputElement).type)
      if (minTarget && !inline && !box && (rect.height < minTarget - 0.5 || rect.width < minTarget - 0.5))
        problems.push(`${describe(el)} is ${Math.round(rect.width)}x${Math.round(rect.height)}`)
    }
    return problems
  }, opts.minTarget ?? 0)
}

/**
 * Moves the browser's clock by `ms` (ahead when positive) in every page of the person's, as a wrong
 * system clock would: `Date` and `Date.now()` are shifted, the monotonic clock is not. Call before
 * the page loads.
 */
export async function skewClock(person: Person, ms: number): Promise<void> {
  await person.context.addInitScript((skew: number) => {
    const RealDate = Date
    class Skewed extends RealDate {
      constructor(...args: unknown[]) {
        if (args.length === 0) super(RealDate.now() + skew)
        else super(...(args as [string]))
      }
      static override now(): number {
        return RealDate.now() + skew
      }
    }
    globalThis.Date = Skewed as DateConstructor
  }, ms)
}
