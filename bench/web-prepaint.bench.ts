/**
 * What the kept view costs the app: a reload of a cached group of 200 messages in headless
 * Chromium, the app served by the relay as `npm start` serves it, with the kept view the page's
 * first script puts back (`apps/web/src/prepaint`) beside the same reload without it (its record
 * removed before the reload), same page, same run, the two sides alternating first and second per
 * round. Each sample leaves the app for a same-origin page (the app writes its view down as it
 * goes, as on a real reload) and comes back.
 *
 * Measured from navigation start: the app's own first message row painted (its first
 * `#root article[data-kind]`, and the frame after it: MutationObserver + rAF), and the app usable
 * (that, with `#root` no longer inert). The notes add where the time went: the long tasks (≥50 ms)
 * before the app's row, the first paint, when the app's bundle had arrived, and when the HTML was
 * parsed (`domInteractive`, after the first script, which is the body's last).
 */

import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { distDir, ensureBuilt } from '../apps/web/server/build'
import { historyEvents, IMPORT_OPTIONS, publishAll } from '../apps/web/test/e2e/seed'
import { startRelay } from '../packages/relay/src/index'
import { CHROMIUM_ARGS as args, median, record } from './lib'

const KEY = 'roost.prepaint.v1'
/** Samples per side. */
const RELOADS = 15
type Sample = {
  /** The app's own first message row painted. */
  app: number
  /** That, and `#root` not inert. */
  usable: number
  /** The kept view was on screen. */
  copy: boolean
  /** Long tasks before the app's row: their count and total time. */
  longTasks: number
  longMs: number
  firstPaint: number
  /** The app's bundle received. */
  bundle: number
  /**
   * The HTML parsed (`domInteractive`): after the page's first script, the last in the body, which
   * shows the kept view (or, without a record, returns at once).
   */
  parsed: number
}

await ensureBuilt({ log: (l) => console.log(l) })
const siteDir = mkdtempSync(join(tmpdir(), 'roost-web-prepaint-'))
cpSync(distDir, siteDir, { recursive: true })
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
  // (A string, not a function: the TypeScript loader would wrap named inner functions in a helper
  // the page does not have.)
  await context.addInitScript({
    content: `(() => {
      const w = window
      w.__long = []
      try {
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) w.__long.push([e.startTime, e.duration])
        }).observe({ type: 'longtask', buffered: true })
      } catch {}
      w.__copy = false
      new MutationObserver((_m, obs) => {
        if (document.getElementById('prepaint')) w.__copy = true
        if (!document.querySelector('#root article[data-kind]')) return
        obs.disconnect()
        requestAnimationFrame(() => {
          const t = performance.now()
          w.__app = t
          const usable = () => {
            if (!document.getElementById('root').inert) w.__usable = performance.now()
            else requestAnimationFrame(usable)
          }
          if (!document.getElementById('root').inert) w.__usable = t
          else requestAnimationFrame(usable)
        })
      }).observe(document, { childList: true, subtree: true })
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

  const manifestUrl = `${base}/manifest.webmanifest`
  const reload = async (withCopy: boolean): Promise<Sample> => {
    // Leaving the app writes its view down; the side without it forgets it before coming back.
    await page.goto(manifestUrl)
    if (!withCopy) await page.evaluate((key) => localStorage.removeItem(key), KEY)
    else if (!(await page.evaluate((key) => localStorage.getItem(key), KEY)))
      throw new Error('the app kept no view to put back')
    await page.goto(groupUrl, { waitUntil: 'commit' })
    await page.waitForFunction(
      () => (window as unknown as { __usable?: number }).__usable !== undefined,
      undefined,
      {
        timeout: 60_000,
      },
    )
    const s = await page.evaluate(() => {
      const w = window as unknown as {
        __app: number
        __usable: number
        __copy: boolean
        __long: [number, number][]
      }
      const before = w.__long.filter(([start]) => start < w.__app)
      const paint = performance.getEntriesByName('first-paint')[0]?.startTime ?? Number.NaN
      const bundle = performance
        .getEntriesByType('resource')
        .find((e) => /\/assets\/index-[^/]*\.js$/.test(e.name)) as PerformanceResourceTiming | undefined
      return {
        app: w.__app,
        usable: w.__usable,
        copy: w.__copy,
        longTasks: before.length,
        longMs: before.reduce((sum, [, d]) => sum + d, 0),
        firstPaint: paint,
        bundle: bundle?.responseEnd ?? Number.NaN,
        parsed: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domInteractive,
      }
    })
    if (s.copy !== withCopy)
      throw new Error(`expected ${withCopy ? 'the kept view' : 'no kept view'} on screen`)
    // The app's first reads and writes settle before the next sample leaves the page.
    await page.waitForTimeout(300)
    return s
  }

  const withCopy: Sample[] = []
  const without: Sample[] = []
  for (let r = 0; r < RELOADS + 1; r++) {
    const order = r % 2 === 0 ? [true, false] : [false, true]
    for (const copy of order) {
      const s = await reload(copy)
      // The first round warms the HTTP cache and the service worker.
      if (r > 0) (copy ? withCopy : without).push(s)
    }
  }
  const keptKb = await page.evaluate((key) => (localStorage.getItem(key)?.length ?? 0) / 1024, KEY)
  const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`
  const of = (xs: Sample[], k: keyof Sample) => xs.map((s) => Number(s[k]))
  const describe = (xs: Sample[]) =>
    `usable ${median(of(xs, 'usable')).toFixed(1)} (${spread(of(xs, 'usable'))}), own row painted ${median(of(xs, 'app')).toFixed(1)} (${spread(of(xs, 'app'))}), first paint ${median(of(xs, 'firstPaint')).toFixed(1)}, bundle received ${median(of(xs, 'bundle')).toFixed(1)}, long tasks before the row ${median(of(xs, 'longTasks'))} totalling ${median(of(xs, 'longMs')).toFixed(0)} ms, HTML parsed (after the first script) ${median(of(xs, 'parsed')).toFixed(1)} (${spread(of(xs, 'parsed'))})`
  console.log('with the kept view, ms:', JSON.stringify(withCopy.map((s) => Math.round(s.usable))))
  console.log('without it, ms:        ', JSON.stringify(without.map((s) => Math.round(s.usable))))
  const oursMs = median(of(withCopy, 'usable'))
  const baseMs = median(of(without, 'usable'))
  record({
    name: 'web-reload-app-usable-200',
    unit: 'load',
    ours: 1000 / oursMs,
    baseline: 1000 / baseMs,
    notes: `median ms of ${RELOADS} reloads per side, a cached group of 200, relay live, order alternated per round, navigation → the app's own first message row painted with #root not inert: with the kept view (${keptKb.toFixed(0)} KB) ${describe(withCopy)} vs the same reload without it ${describe(without)}`,
  })
  await context.close()
} finally {
  await browser.close()
  await relay.close()
  rmSync(siteDir, { recursive: true, force: true })
}
