/**
 * Speed a reader feels in the web client, in headless Chromium, the app served by the relay as
 * `npm start` serves it, the relay live:
 *
 * 1. Reload to the first message painted of a cached group of 200 messages, beside reloading a
 *    static file from the same server (navigation start → load event), same run. The goal is at
 *    most 2× the static file.
 * 2. Search, a word's input into the empty box to the first result painted, in that group (the cache answers; the relay's
 *    NIP-50 results are added when they come), beside a nostr-tools `querySync` of the same NIP-50
 *    search on the same relay (network only, no page).
 */

import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { chromium } from 'playwright-core'
import WebSocket from 'ws'
import { distDir, ensureBuilt } from '../apps/web/server/build'
import { historyEvents, IMPORT_OPTIONS, publishAll } from '../apps/web/test/e2e/seed'
import { startRelay } from '../packages/relay/src/index'
import { record } from './lib'

setPoolWebSocket(WebSocket)

const ROUNDS = 9
const args = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

type Marks = { __firstMessage?: number; __key?: number; __firstResult?: number }

await ensureBuilt({ log: (l) => console.log(l) })
const relay = await startRelay({ port: 0, db: ':memory:', staticDir: distDir, ...IMPORT_OPTIONS })
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
  // Marks, relative to navigation start: the first message row painted; the word's input in the
  // search box and the first result painted after it.
  // (A string, not a function: the TypeScript loader would wrap named inner functions in a helper
  // the page does not have.)
  await context.addInitScript({
    content: `(() => {
      const w = window
      const painted = (then) => requestAnimationFrame(() => then(performance.now()))
      new MutationObserver((_m, obs) => {
        if (document.querySelector('article[data-kind]')) {
          obs.disconnect()
          painted((t) => { w.__firstMessage = t })
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

  // 1. Reload: the app vs a static file from the same server, rounds interleaved.
  const ours: number[] = []
  const statics: number[] = []
  const staticUrl = `${base}/manifest.webmanifest`
  for (let r = 0; r < ROUNDS + 1; r++) {
    // (The group's address differs only by its fragment: from another document it loads anew.)
    await page.goto('about:blank')
    await page.goto(groupUrl)
    await page.waitForFunction(() => (window as unknown as Marks).__firstMessage !== undefined, undefined, {
      timeout: 60_000,
    })
    const t = await page.evaluate(() => (window as unknown as Marks).__firstMessage!)
    await page.goto(staticUrl, { waitUntil: 'load' })
    const s = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming
      return nav.loadEventEnd
    })
    if (r === 0) continue // the first round warms the HTTP cache and the service worker
    ours.push(t)
    statics.push(s)
  }
  const oursMs = median(ours)
  const staticMs = median(statics)
  record({
    name: 'web-reload-first-message-200',
    unit: 'load',
    ours: 1000 / oursMs,
    baseline: 1000 / staticMs,
    notes: `median ms: ours ${oursMs.toFixed(1)} (reload → first message painted of a cached group of 200, relay live) vs a static file from the same server ${staticMs.toFixed(1)} (navigation → load); ${(oursMs / staticMs).toFixed(2)}× the static file`,
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
}
