/**
 * The web client in headless Chromium against the real relay:
 *
 * 1. Time from navigation to the first painted message of a cached group holding 1,000 messages
 *    (the relay never answers during the measurement, so the paint comes from IndexedDB). The
 *    nostr-tools baseline is what a client without a cache waits for before it can paint
 *    anything: a fresh `SimplePool.querySync` of the newest 50 messages from the same relay.
 * 2. DOM size with 10,000 messages loaded in one group (virtualized list), beside the size the
 *    same rows would take rendered in full (nodes per rendered row × rows).
 */

import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { chromium, type Page } from 'playwright-core'
import WebSocket from 'ws'
import { distDir, ensureBuilt } from '../apps/web/server/build'
import { historyEvents, IMPORT_OPTIONS, publishAll } from '../apps/web/test/e2e/seed'
import { startRelay } from '../packages/relay/src/index'
import { CHROMIUM_ARGS as args, median, record } from './lib'

setPoolWebSocket(WebSocket)

const ROUNDS = 5
async function scrollToFirst(page: Page, text: string): Promise<void> {
  const log = page.getByRole('log', { name: 'Messages' })
  const deadline = Date.now() + 300_000
  let last = -1
  let lastChange = Date.now()
  while (Date.now() < deadline) {
    if ((await log.locator('article .body', { hasText: text }).count()) > 0) return
    const rows = Number(await log.getAttribute('data-rows'))
    if (rows !== last) {
      last = rows
      lastChange = Date.now()
    } else if (Date.now() - lastChange > 20_000) break
    await log.evaluate((el) => {
      el.scrollTop = 0
    })
    await page.waitForTimeout(25)
  }
  throw new Error(`never reached ${text} (stuck at ${last} rows)`)
}

await ensureBuilt({ log: (l) => console.log(l) })
const relay = await startRelay({ port: 0, db: ':memory:', staticDir: distDir, ...IMPORT_OPTIONS })
const base = relay.url.replace(/^ws/, 'http')
await relay.createGroup({ id: 'cached1k', name: 'Cached 1k' })
await relay.createGroup({ id: 'big10k', name: 'Big 10k' })
await publishAll(relay.url, historyEvents('cached1k', 1000))
await publishAll(relay.url, historyEvents('big10k', 10_000))

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args,
})
try {
  // A fresh browser profile, signed up with a new key, that has joined group `id`.
  const member = async (id: string) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    // Records when the first message row is painted, relative to navigation start.
    await context.addInitScript(() => {
      const w = window as unknown as { __firstMessage?: number }
      new MutationObserver((_m, obs) => {
        if (document.querySelector('article[data-kind]')) {
          requestAnimationFrame(() => {
            w.__firstMessage = performance.now()
          })
          obs.disconnect()
        }
      }).observe(document, { childList: true, subtree: true })
    })
    const page = await context.newPage()
    await page.goto(base)
    await page.getByRole('button', { name: 'Create my key' }).click()
    await page.getByLabel('I have saved my secret key').check()
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByRole('button', { name: 'Join a group' }).click()
    await page.getByLabel('Group link or code').fill(`${relay.url}'${id}`)
    await page.getByRole('button', { name: 'Join', exact: true }).click()
    await page.getByRole('dialog').waitFor({ state: 'detached', timeout: 60_000 })
    return { context, page }
  }

  // 1. Cached first paint.
  const { context, page } = await member('cached1k')
  await scrollToFirst(page, 'History message 1 of 1000')
  const groupUrl = page.url()
  await context.routeWebSocket(/.*/, () => {})
  const ours: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    await page.goto('about:blank')
    await page.goto(groupUrl)
    await page.waitForFunction(
      () => (window as unknown as { __firstMessage?: number }).__firstMessage !== undefined,
    )
    ours.push(await page.evaluate(() => (window as unknown as { __firstMessage: number }).__firstMessage))
  }
  await context.unrouteAll()

  const baseline: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const pool = new SimplePool()
    const start = performance.now()
    const events = await pool.querySync([relay.url], { '#h': ['cached1k'], limit: 50 })
    baseline.push(performance.now() - start)
    pool.close([relay.url])
    if (events.length !== 50) throw new Error(`baseline fetched ${events.length}`)
  }
  const oursMs = median(ours)
  const baseMs = median(baseline)
  record({
    name: 'web-first-paint-cached-1000',
    unit: 'paint',
    ours: 1000 / oursMs,
    baseline: 1000 / baseMs,
    notes: `median ms: ours ${oursMs.toFixed(1)} (navigation → first message painted, from IndexedDB, relay silent) vs nostr-tools querySync newest 50 ${baseMs.toFixed(1)} (no page load, network only)`,
  })

  await context.close()

  // 2. DOM size with 10,000 messages loaded.
  const big = await member('big10k')
  await scrollToFirst(big.page, 'History message 1 of 10000')
  const dom = await big.page.evaluate(() => {
    const rows = [...document.querySelectorAll('.timeline-row')]
    const perRow = rows.reduce((n, r) => n + r.querySelectorAll('*').length + 1, 0) / Math.max(1, rows.length)
    return {
      nodes: document.querySelectorAll('*').length,
      rendered: rows.length,
      loaded: Number(document.querySelector('[role=log]')?.getAttribute('data-rows') ?? 0),
      perRow,
    }
  })
  const full = Math.round(dom.nodes - dom.rendered * dom.perRow + dom.loaded * dom.perRow)
  record({
    name: 'web-dom-nodes-10000',
    unit: 'Mnode⁻¹',
    ours: 1e6 / dom.nodes,
    baseline: 1e6 / full,
    notes: `${dom.nodes} DOM elements with ${dom.loaded} rows loaded (${dom.rendered} rendered); rendering all rows would take ~${full}`,
  })
  await big.context.close()
} finally {
  await browser.close()
  await relay.close()
}
