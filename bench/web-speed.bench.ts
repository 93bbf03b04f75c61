/**
 * Speed a reader feels in the web client, in headless Chromium, the app served by the relay as
 * `npm start` serves it, the relay live:
 *
 * 1. Load to the first message painted of a cached group of 200 messages, beside a small static
 *    HTML page of one message-like row from the same server, same run, measured the same way:
 *    each sample from `about:blank` in the same tab, navigation start → the first
 *    `article[data-kind]` in the DOM and the frame after it (MutationObserver + rAF), the two
 *    sides alternating first and second per round. The notes also give the static manifest's
 *    navigation → load event, and when the app's own timeline (not the kept view the page's first
 *    script puts back, `apps/web/src/prepaint`) painted. The goal is at most 2× the static page.
 * 2. Search, a word's input into the empty box to the first result painted, in that group (the cache answers; the relay's
 *    NIP-50 results are added when they come), beside a nostr-tools `querySync` of the same NIP-50
 *    search on the same relay (network only, no page).
 */

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { chromium } from 'playwright-core'
import WebSocket from 'ws'
import { distDir, ensureBuilt } from '../apps/web/server/build'
import { historyEvents, IMPORT_OPTIONS, publishAll } from '../apps/web/test/e2e/seed'
import { startRelay } from '../packages/relay/src/index'
import { CHROMIUM_ARGS as args, median, record } from './lib'

setPoolWebSocket(WebSocket)

const ROUNDS = 9
/** Reload samples per side (the search keeps {@link ROUNDS}). */
const RELOADS = 15
type Marks = {
  __firstMessage?: number
  __fromCopy?: boolean
  __appMessage?: number
  __key?: number
  __firstResult?: number
}

/** The static side: one message-like row, as the app's timeline would show it, and nothing else. */
const STATIC_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="UTF-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Static</title></head>
<body><main><article data-kind="9"><b>Someone</b> <span class="body">History message 200 of 200</span></article></main></body></html>
`

await ensureBuilt({ log: (l) => console.log(l) })
// The built client, served with one more file (the static page) from the same server.
const siteDir = mkdtempSync(join(tmpdir(), 'roost-web-speed-'))
cpSync(distDir, siteDir, { recursive: true })
writeFileSync(join(siteDir, 'static-message.html'), STATIC_PAGE)
const relay = await startRelay({ port: 0, db: ':memory:', staticDir: siteDir, ...IMPORT_OPTIONS })
const base = relay.url.replace(/^ws/, 'http')
await relay.createGroup({ id: 'cached200', name: 'Cached 200' })
await publishAll(relay.url, historyEvents('cached200', 200))

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args,
})
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  // Marks, relative to navigation start: the first message row painted (and whether it was the
  // kept view's), the app's own first message row painted; the word's input in the search box and
  // the first result painted after it.
  // (A string, not a function: the TypeScript loader would wrap named inner functions in a helper
  // the page does not have.)
  await context.addInitScript({
    content: `(() => {
      const w = window
      const painted = (then) => requestAnimationFrame(() => then(performance.now()))
      new MutationObserver((_m, obs) => {
        const first = document.querySelector('article[data-kind]')
        if (first && w.__firstMessage === undefined && w.__fromCopy === undefined) {
          w.__fromCopy = !!document.getElementById('prepaint')?.contains(first)
          painted((t) => { w.__firstMessage = t })
        }
        if (document.querySelector('#root article[data-kind]')) {
          obs.disconnect()
          painted((t) => { w.__appMessage = t })
        }
      }).observe(document, { childList: true, subtree: true })
      document.addEventListener('input', (e) => {
        if (e.target?.getAttribute?.('aria-label') !== 'Search messages') return
        w.__key = performance.now()
        w.__firstResult = undefined
        const check = () => {
          if (!document.querySelector('#search-results [role=option]')) return false
          painted((t) => { w.__firstResult = t })
          return true
        }
        if (check()) return
        const obs = new MutationObserver(() => { if (check()) obs.disconnect() })
        obs.observe(document, { childList: true, subtree: true })
      }, true)
    })()`,
  })
  const page = await context.newPage()
  await page.goto(base)
  await page.getByRole('button', { name: 'Create my key' }).click()
  await page.getByLabel('I have saved my secret key').check()
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.getByRole('button', { name: 'Join a group' }).click()
  await page.getByLabel('Group link or code').fill(`${relay.url}'cached200`)
  await page.getByRole('button', { name: 'Join', exact: true }).click()
  await page.getByRole('dialog').waitFor({ state: 'detached', timeout: 60_000 })
  const log = page.getByRole('log', { name: 'Messages' })
  await log.locator('article .body', { hasText: 'History message 200 of 200' }).waitFor({ timeout: 60_000 })
  const groupUrl = page.url()
  // Let the store write what it received before the first reload.
  await page.waitForTimeout(2_000)

  // 1. Load: the app vs a static page from the same server, each from about:blank in this tab,
  // the first of the two alternating per round.
  const ours: number[] = []
  const app: number[] = []
  const statics: number[] = []
  const manifests: number[] = []
  let fromCopy = 0
  const staticUrl = `${base}/static-message.html`
  const manifestUrl = `${base}/manifest.webmanifest`
  const firstMessage = async (url: string) => {
    await page.goto('about:blank')
    await page.goto(url, { waitUntil: 'commit' })
    await page.waitForFunction(() => (window as unknown as Marks).__firstMessage !== undefined, undefined, {
      timeout: 60_000,
    })
    return page.evaluate(() => {
      const w = window as unknown as Marks
      return { first: w.__firstMessage!, fromCopy: w.__fromCopy === true }
    })
  }
  const loadEvent = async (url: string) => {
    await page.goto('about:blank')
    await page.goto(url, { waitUntil: 'load' })
    return page.evaluate(
      () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
    )
  }
  for (let r = 0; r < RELOADS + 1; r++) {
    const sample = { ours: 0, app: 0, fromCopy: false, static: 0, manifest: 0 }
    const sides = [
      async () => {
        const m = await firstMessage(groupUrl)
        sample.ours = m.first
        sample.fromCopy = m.fromCopy
        await page.waitForFunction(() => (window as unknown as Marks).__appMessage !== undefined, undefined, {
          timeout: 60_000,
        })
        sample.app = await page.evaluate(() => (window as unknown as Marks).__appMessage!)
        // The app's first reads and writes settle before the next sample leaves the page.
        await page.waitForTimeout(300)
      },
      async () => {
        sample.static = (await firstMessage(staticUrl)).first
        sample.manifest = await loadEvent(manifestUrl)
      },
    ]
    if (r % 2 === 1) sides.reverse()
    for (const side of sides) await side()
    if (r === 0) continue // the first round warms the HTTP cache and the service worker
    ours.push(sample.ours)
    app.push(sample.app)
    statics.push(sample.static)
    manifests.push(sample.manifest)
    if (sample.fromCopy) fromCopy++
  }
  const keptKb = await page.evaluate(() => (localStorage.getItem('roost.prepaint.v1')?.length ?? 0) / 1024)
  const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`
  const oursMs = median(ours)
  const staticMs = median(statics)
  record({
    name: 'web-reload-first-message-200',
    unit: 'load',
    ours: 1000 / oursMs,
    baseline: 1000 / staticMs,
    notes: `median ms of ${RELOADS}, each from about:blank in the same tab, order alternated per round: ours ${oursMs.toFixed(1)} (${spread(ours)}; navigation → first message painted of a cached group of 200, relay live; ${fromCopy}/${RELOADS} from the kept view, ${keptKb.toFixed(0)} KB; the app's own timeline ${median(app).toFixed(1)}) vs a static HTML page of one message row from the same server ${staticMs.toFixed(1)} (${spread(statics)}; same MutationObserver + rAF mark); ${(oursMs / staticMs).toFixed(2)}× the static page (the static manifest, navigation → load event: ${median(manifests).toFixed(1)})`,
  })

  // 2. Search: a word typed into the empty box → first result painted.
  await page.goto('about:blank')
  await page.goto(groupUrl)
  await log.locator('article .body', { hasText: 'History message 200 of 200' }).waitFor({ timeout: 60_000 })
  await page.waitForTimeout(1_000)
  const search: number[] = []
  const words = ['message', 'History', 'of']
  for (let r = 0; r < ROUNDS + 1; r++) {
    await page.getByRole('button', { name: 'Search messages' }).click()
    const box = page.getByRole('combobox', { name: 'Search messages' })
    await box.waitFor()
    // The word arrives as one input into the empty box (as a paste would): no earlier prefix's
    // results are on screen to count.
    await box.fill(words[r % words.length]!)
    await page.waitForFunction(() => (window as unknown as Marks).__firstResult !== undefined, undefined, {
      timeout: 30_000,
    })
    const m = await page.evaluate(() => {
      const w = window as unknown as Marks
      return w.__firstResult! - w.__key!
    })
    if (r > 0) search.push(m)
    await page.keyboard.press('Escape')
    await box.waitFor({ state: 'detached' })
  }
  const baseline: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const pool = new SimplePool()
    const start = performance.now()
    const events = await pool.querySync([relay.url], { '#h': ['cached200'], search: 'message', limit: 50 })
    baseline.push(performance.now() - start)
    pool.close([relay.url])
    if (events.length === 0) throw new Error('baseline search found nothing')
  }
  const searchMs = median(search)
  const baseMs = median(baseline)
  record({
    name: 'web-search-first-result-200',
    unit: 'search',
    ours: 1000 / searchMs,
    baseline: 1000 / baseMs,
    notes: `median ms: ours ${searchMs.toFixed(1)} (the word's input into the empty box → first result painted, cached group of 200, relay live) vs nostr-tools querySync NIP-50 of the same word ${baseMs.toFixed(1)} (network only, no page)`,
  })
  await context.close()
} finally {
  await browser.close()
  await relay.close()
  rmSync(siteDir, { recursive: true, force: true })
}
