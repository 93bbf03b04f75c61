/**
 * The web client in headless Chromium against the in-process relay: time from pressing Enter in
 * one person's composer to the message painted in another person's browser context (median of 20).
 * Both contexts run the built client served by the relay and have the demo group `general` open.
 * The start is the Enter keydown in the sender's page, the end the animation frame after the row
 * appears in the receiver's page; both read the same wall clock (one machine, one browser).
 *
 * Baseline, same run and relay: the raw relay round trip of the same kind of event over
 * WebSockets from Node: one connection publishes a signed kind 9, another with a live `#h` REQ
 * receives it.
 */

import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey, getEventHash, getPublicKey } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import { chromium, type Page } from 'playwright-core'
import WebSocket from 'ws'
import { distDir, ensureBuilt } from '../apps/web/server/build'
import { startRelay } from '../packages/relay/src/index'
import { CHROMIUM_ARGS as args, median, record } from './lib'

const SENDS = 20
await ensureBuilt({ log: (l) => console.log(l) })
const relay = await startRelay({ port: 0, host: '127.0.0.1', db: ':memory:', staticDir: distDir, demo: true })
const base = relay.url.replace(/^ws/, 'http')
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args,
})

/** A fresh profile, signed up with a new key, with the demo group `general` joined and open. */
async function person(name: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  page.setDefaultTimeout(120_000)
  await page.goto(base)
  await page.getByRole('tab', { name: 'New key' }).click()
  await page.getByLabel('Display name (optional)').fill(name)
  await page.getByRole('button', { name: 'Create my key' }).click()
  await page.getByLabel('I have saved my secret key').check()
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.getByRole('button', { name: 'Join a group' }).click()
  await page.getByLabel('Group link or code').fill(`${relay.url}'general`)
  await page.getByRole('button', { name: 'Join', exact: true }).click()
  await page.getByRole('dialog').waitFor({ state: 'detached' })
  await page.getByRole('heading', { name: /General/ }).waitFor()
  // Enter keydowns in the composer are stamped on the wall clock, before the app handles them.
  await page.evaluate(() => {
    document.addEventListener(
      'keydown',
      (e) => {
        if (e.key === 'Enter' && !e.shiftKey)
          (window as unknown as { __enterAt: number }).__enterAt = performance.timeOrigin + performance.now()
      },
      { capture: true },
    )
  })
  return page
}

const clientRun: number[] = []
const rawRun: number[] = []
try {
  const ada = await person('Ada')
  const bob = await person('Bob')
  const box = ada.getByRole('textbox', { name: /^Message / })
  // One message first, so both timelines have settled on the live subscription.
  const warm = `warm up ${Date.now()}`
  await box.fill(warm)
  await box.press('Enter')
  await bob.getByRole('log', { name: 'Messages' }).locator('article .body', { hasText: warm }).waitFor()

  for (let i = 0; i < SENDS; i++) {
    const text = `paint ${i} ${Math.random().toString(36).slice(2)}`
    // Watch for the row in Bob's page before Ada presses Enter.
    // A string, not a function: the bench's TypeScript loader would add helpers the page lacks.
    await bob.evaluate(`(() => {
      const t = ${JSON.stringify(text)}
      window.__painted = new Promise((resolve) => {
        const obs = new MutationObserver(() => {
          if (![...document.querySelectorAll('article .body')].some((el) => el.textContent === t)) return
          obs.disconnect()
          requestAnimationFrame(() => resolve(performance.timeOrigin + performance.now()))
        })
        obs.observe(document.body, { childList: true, subtree: true, characterData: true })
      })
    })()`)
    await box.fill(text)
    await box.press('Enter')
    const paintedAt = await bob.evaluate(
      () => (window as unknown as { __painted: Promise<number> }).__painted,
    )
    const enterAt = await ada.evaluate(() => (window as unknown as { __enterAt: number }).__enterAt)
    clientRun.push(paintedAt - enterAt)
  }

  // Baseline: the raw relay round trip of a kind 9 in the same group, Node to Node.
  const nw = await initNostrWasm()
  const sk = generateSecretKey()
  const open = async () => {
    const ws = new WebSocket(relay.url)
    await new Promise((resolve, reject) => {
      ws.once('open', resolve)
      ws.once('error', reject)
    })
    return ws
  }
  const sender = await open()
  const receiver = await open()
  const sign = (kind: number, content: string, tags: string[][]) => {
    const e = {
      kind,
      content,
      tags,
      created_at: Math.floor(Date.now() / 1000),
      pubkey: getPublicKey(sk),
    } as NostrEvent
    nw.finalizeEvent(e, sk)
    if (e.id !== getEventHash(e)) throw new Error('bad id')
    return e
  }
  const ok = (e: NostrEvent) =>
    new Promise<void>((resolve, reject) => {
      const on = (data: WebSocket.RawData) => {
        const m = JSON.parse(String(data))
        if (m[0] !== 'OK' || m[1] !== e.id) return
        sender.off('message', on)
        m[2] ? resolve() : reject(new Error(`refused: ${m[3]}`))
      }
      sender.on('message', on)
      sender.send(JSON.stringify(['EVENT', e]))
    })
  await ok(sign(9021, '', [['h', 'general']]))
  await new Promise<void>((resolve) => {
    const on = (data: WebSocket.RawData) => {
      if (JSON.parse(String(data))[0] !== 'EOSE') return
      receiver.off('message', on)
      resolve()
    }
    receiver.on('message', on)
    receiver.send(JSON.stringify(['REQ', 'live', { kinds: [9], '#h': ['general'], limit: 0 }]))
  })
  for (let i = 0; i < SENDS; i++) {
    const e = sign(9, `raw ${i}`, [['h', 'general']])
    const got = new Promise<number>((resolve) => {
      const on = (data: WebSocket.RawData) => {
        const m = JSON.parse(String(data))
        if (m[0] !== 'EVENT' || m[2]?.id !== e.id) return
        receiver.off('message', on)
        resolve(performance.now())
      }
      receiver.on('message', on)
    })
    const start = performance.now()
    sender.send(JSON.stringify(['EVENT', e]))
    rawRun.push((await got) - start)
  }
  sender.close()
  receiver.close()
} finally {
  await browser.close()
  await relay.close()
}

const oursMs = median(clientRun)
const rawMs = median(rawRun)
record({
  name: 'web-enter-to-paint-other-context',
  unit: 'message',
  ours: 1000 / oursMs,
  baseline: 1000 / rawMs,
  notes: `median of ${SENDS} ms: Enter in Ada's composer -> row painted in Bob's browser context ${oursMs.toFixed(1)} (min ${Math.min(...clientRun).toFixed(1)}, max ${Math.max(...clientRun).toFixed(1)}); baseline: raw relay round trip of a kind 9 over WebSockets (publish -> live REQ receives) ${rawMs.toFixed(1)}`,
})
