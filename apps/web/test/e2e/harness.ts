/**
 * Shared pieces of the e2e suite: a real relay serving the built client, browser contexts
 * (one per person or device) on the one shared Chromium, sign-in through the UI, screenshots
 * under `test-results/`, and an axe-core scan.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { type RelayHandle, type RelayOptions, startRelay } from '@roost/relay'
import { getPublicKey, nip19 } from 'nostr-tools'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { inject, onTestFailed } from 'vitest'
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

/** A relay on a free port with the built client, and a connection to the shared browser. */
export async function startStack(opts: Partial<RelayOptions> = {}): Promise<Stack> {
  const relay = await startRelay({ port: 0, host: '127.0.0.1', db: ':memory:', staticDir: distDir, ...opts })
  const browser = await chromium.connect(inject('browserWsEndpoint'))
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
export async function newPerson(stack: Stack, opts: { bypassCSP?: boolean } = {}): Promise<Person> {
  const context = await stack.browser.newContext({
    viewport: { width: 1280, height: 800 },
    bypassCSP: opts.bypassCSP ?? false,
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
  await page.getByRole('navigation', { name: 'Groups' }).waitFor()
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
  await page.getByRole('navigation', { name: 'Groups' }).waitFor()
  person.nsec = nsec
  person.pubkey = pubkeyOfNsec(nsec)
}

/** Saves `test-results/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(resultsDir, { recursive: true })
  const path = join(resultsDir, `${name}.png`)
  await page.screenshot({ path })
  return path
}

const require = createRequire(import.meta.url)
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: string[]
}

/** Runs axe-core (WCAG 2 A/AA rules) on the page; returns the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, so the page's CSP does not apply to it.
  await page.evaluate(axeSource)
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(o: object): Promise<{ violations: AxeRaw[] }> } }).axe
    interface AxeRaw {
      id: string
      impact: string | null
      help: string
      nodes: { target: string[] }[]
    }
    const r = await axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    })
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }))
  })
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** On a failed test, saves `test-results/failed-<test>-<n>.png` for each page given. */
export function screenshotsOnFailure(people: () => Person[]): void {
  onTestFailed(async ({ task }) => {
    const slug = task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)
    let n = 0
    for (const p of people()) await screenshot(p.page, `failed-${slug}-${n++}`).catch(() => undefined)
  })
}
