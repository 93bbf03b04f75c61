/**
 * Hostile Markdown in the web client, in headless Chromium against the real relay: the time to
 * show one message whole (parse, render and lay out, from the click on "Show all" to the laid-out
 * row) for every input of the hostile corpus (`apps/web/test/e2e/markdown-corpus.ts`, each at the
 * relay's content limit), beside a plain message of the same size as the baseline. The row
 * recorded is the worst input's median; the notes name it and give both times in ms.
 *
 * Run alone: `node --conditions=@roost/source --import tsx bench/markdown.bench.ts`.
 */

import { finalizeEvent, generateSecretKey } from 'nostr-tools'
import { Relay, useWebSocketImplementation as setRelayWebSocket } from 'nostr-tools/relay'
import { chromium, type Page } from 'playwright-core'
import WebSocket from 'ws'
import { distDir, ensureBuilt } from '../apps/web/server/build'
import { CORPUS, PLAIN } from '../apps/web/test/e2e/markdown-corpus'
import { startRelay } from '../packages/relay/src/index'
import { median, record } from './lib'

setRelayWebSocket(WebSocket)

const ROUNDS = 5
const args = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-sync',
]

await ensureBuilt({ log: (l) => console.log(l) })
const relay = await startRelay({
  port: 0,
  db: ':memory:',
  staticDir: distDir,
  rateLimit: { events: 1_000_000, perSeconds: 1 },
})
const base = relay.url.replace(/^ws/, 'http')
await relay.createGroup({ id: 'md', name: 'Markdown' })
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args,
})
const author = generateSecretKey()
const socket = await Relay.connect(relay.url)
let serial = 0

/** Posts `text` from the author; every post is a new event (a tag of its own differs). */
async function post(text: string): Promise<string> {
  const tags = [
    ['h', 'md'],
    ['serial', String(serial++)],
  ]
  const event = finalizeEvent(
    { kind: 9, created_at: Math.floor(Date.now() / 1000), tags, content: text },
    author,
  )
  await socket.publish(event)
  return event.id
}

/** Posts `text`, waits for it at the end of the reader's timeline, and times showing it whole. */
async function showWhole(page: Page, text: string): Promise<number> {
  // The last message shown whole is tall: back to the end, where new messages are followed.
  await page.getByRole('log', { name: 'Messages' }).evaluate((log) => {
    log.scrollTop = log.scrollHeight
  })
  await page.waitForTimeout(50)
  const id = await post(text)
  const button = page.locator(`article[data-id="${id}"] button.md-more`)
  await button.waitFor()
  await page.waitForTimeout(50)
  return page.evaluate(async (id) => {
    const article = document.querySelector(`article[data-id="${id}"]`) as HTMLElement
    const more = article.querySelector('button.md-more') as HTMLButtonElement
    const start = performance.now()
    more.click()
    // React renders a click's update before the event returns; wait out microtasks to be sure.
    for (let i = 0; i < 100 && article.querySelector('button.md-more'); i++) await Promise.resolve()
    if (article.querySelector('button.md-more')) throw new Error('the message did not open')
    article.getBoundingClientRect()
    void document.body.offsetHeight
    return performance.now() - start
  }, id)
}

try {
  await post('hello')
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  await page.goto(base)
  await page.getByRole('button', { name: 'Create my key' }).click()
  await page.getByLabel('I have saved my secret key').check()
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.getByRole('button', { name: 'Join a group' }).click()
  await page.getByLabel('Group link or code').fill(`${relay.url}'md`)
  await page.getByRole('button', { name: 'Join', exact: true }).click()
  await page.getByRole('dialog').waitFor({ state: 'detached', timeout: 60_000 })

  // Warm the page: the first renders of any message run cold code.
  for (let i = 0; i < 3; i++) await showWhole(page, PLAIN)

  const times = new Map<string, number[]>()
  for (let r = 0; r < ROUNDS; r++) {
    for (const input of [{ name: 'plain', text: PLAIN }, ...CORPUS]) {
      const ms = await showWhole(page, input.text)
      times.set(input.name, [...(times.get(input.name) ?? []), ms])
    }
  }
  const medians = [...times].map(([name, ms]) => ({ name, ms: median(ms) }))
  const plain = medians.find((m) => m.name === 'plain')?.ms as number
  const worst = medians.filter((m) => m.name !== 'plain').sort((a, b) => b.ms - a.ms)
  for (const m of worst.slice(0, 5)) console.log(`  ${m.name.padEnd(24)} ${m.ms.toFixed(1)} ms`)
  const top = worst[0] as { name: string; ms: number }
  record({
    name: 'web-markdown-hostile-64k',
    unit: 'message',
    ours: 1000 / top.ms,
    baseline: 1000 / plain,
    notes: `median ms to show one 65,536-character message whole in Chromium (parse, render, layout): worst hostile input "${top.name}" ${top.ms.toFixed(1)} vs a plain message ${plain.toFixed(1)}; ${CORPUS.length} inputs, ${ROUNDS} rounds`,
  })
  await context.close()
} finally {
  socket.close()
  await browser.close()
  await relay.close()
}
