/**
 * Typing fast: every Enter sends exactly what was in the box at that moment, the box is free at
 * once, and the messages of one group reach the relay (read back by REQ) and the other person's
 * screen in the order they were typed, also when the relay's answers come slowly (a proxy that
 * holds back its frames). A refused message stays in the timeline with its reason; the one typed
 * behind it comes back to the box.
 */
import type { NostrEvent } from 'nostr-tools'
import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { Relay, useWebSocketImplementation as setRelayWebSocket } from 'nostr-tools/relay'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import {
  joinByCode,
  messageIn,
  newPerson,
  type Person,
  type Stack,
  screenshot,
  screenshotsOnFailure,
  signUp,
  startStack,
} from './harness'
import { type SlowLink, slowLink } from './slow-link'

setPoolWebSocket(WebSocket)
setRelayWebSocket(WebSocket)

/** Twenty messages as someone types them in a lively chat. */
const TWENTY = [
  'morning all',
  'is the build green again?',
  'it was red at 9 for me',
  'ok just pulled, looks fine',
  'lunch at 12.30?',
  'yes please',
  'the usual place or the new one',
  'new one, they have soup',
  'fine by me',
  'who else is coming',
  'Cy said maybe',
  'I will book for 4',
  'done, table 7',
  'thanks!',
  'also the review is up',
  'two small comments from me',
  'fixed both',
  'approved',
  'merging now',
  'see you at lunch',
]

/** A slow relay: a few messages typed while the previous one waits for its answer. */
const SLOW = ['first while slow', 'second while slow', 'third while slow', 'fourth one', 'fifth one']

/** 10,000 characters pasted at once, more than this relay takes in one message. */
const LONG = Array.from({ length: 200 }, (_, i) => `Line ${String(i).padStart(3, '0')} of the long paste.`)
  .join(' ')
  .padEnd(10_000, '.')
  .slice(0, 10_000)

let stack: Stack
let pool: SimplePool
let ada: Person
let bob: Person
let dee: Person
let link: SlowLink

function box(person: Person) {
  return person.page.getByRole('textbox', { name: /^Message / })
}

/** Collects, in the relay's order, the kind 9 events `author` writes to `group` from now on. */
async function watchRelay(author: string, group: string) {
  const relay = await Relay.connect(stack.relay.url)
  const events: NostrEvent[] = []
  const sub = relay.subscribe(
    [{ kinds: [9], '#h': [group], authors: [author], since: Math.floor(Date.now() / 1000) - 1 }],
    { onevent: (e) => events.push(e) },
  )
  return {
    events,
    contents: () => events.map((e) => e.content),
    close() {
      sub.close()
      relay.close()
    },
  }
}

/** Waits until `count()` reaches `want` or stops growing for 3 s (so a test on lossy code ends). */
async function settle(count: () => number, want: number): Promise<void> {
  let last = -1
  let since = Date.now()
  while (count() < want) {
    if (count() !== last) {
      last = count()
      since = Date.now()
    } else if (Date.now() - since > 3_000) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** What the relay holds from `author` in `group`, read back by REQ, oldest first. */
async function stored(author: string, group: string): Promise<NostrEvent[]> {
  const events = await pool.querySync([stack.relay.url], { kinds: [9], '#h': [group], authors: [author] })
  return events.sort((a, b) => a.created_at - b.created_at)
}

/** The message texts in the open group's timeline, top to bottom, as rendered. */
async function timelineTexts(person: Person): Promise<string[]> {
  return person.page
    .getByRole('log', { name: 'Messages' })
    .locator('article .body')
    .evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()))
}

beforeAll(async () => {
  stack = await startStack({ limits: { maxContentLength: 8_000 } })
  pool = new SimplePool()
  await stack.relay.createGroup({ id: 'talk', name: 'Talk' })
  ada = await newPerson(stack)
  // Tall enough that the whole run of messages is on screen (the list renders what is visible).
  bob = await newPerson(stack, { viewport: { width: 1280, height: 1500 } })
  await signUp(stack, ada, 'Ada')
  await signUp(stack, bob, 'Bob')
  for (const p of [ada, bob]) {
    await joinByCode(p, `${stack.relay.url}'talk`)
    await p.page.getByRole('heading', { name: /Talk/ }).waitFor()
  }
  // Dee's browser reaches the relay through the slow link (the page's origin is its relay).
  link = await slowLink(stack.relay.url)
  dee = await newPerson(stack)
  await signUp({ ...stack, base: link.base }, dee, 'Dee')
  await joinByCode(dee, `${link.url}'talk`)
  await dee.page.getByRole('heading', { name: /Talk/ }).waitFor()
})
afterAll(async () => {
  pool?.close([stack.relay.url])
  await link?.close()
  await stack?.close()
})

describe('typing fast', () => {
  beforeEach(() => screenshotsOnFailure(() => [ada, bob, dee]))

  test('twenty messages typed at a brisk pace reach the relay and the other person whole, in order', async () => {
    const watch = await watchRelay(ada.pubkey!, 'talk')
    const { page } = ada
    await box(ada).click()
    for (const [i, text] of TWENTY.entries()) {
      // 30–60 ms between keys, then Enter, and straight on with the next message.
      await page.keyboard.type(text, { delay: 30 + ((i * 7) % 31) })
      await page.keyboard.press('Enter')
    }
    await settle(() => watch.events.length, TWENTY.length)
    const kept = await stored(ada.pubkey!, 'talk')
    const exact = kept.filter((e) => TWENTY.includes(e.content)).length
    console.log(
      `fast typing: typed ${TWENTY.length}, on the relay as typed ${exact}, other events there (merged or cut) ${kept.length - exact}`,
    )
    watch.close()
    // The relay's order (its live stream) is the typing order, and it holds each message once.
    expect(watch.contents()).toEqual(TWENTY)
    expect(kept.map((e) => e.content).sort()).toEqual([...TWENTY].sort())
    for (let i = 1; i < kept.length; i++)
      expect(kept[i]!.created_at).toBeGreaterThanOrEqual(kept[i - 1]!.created_at)
    expect(await box(ada).inputValue()).toBe('')

    // Both screens show them in that order.
    await messageIn(bob, TWENTY.at(-1)!).waitFor()
    await messageIn(ada, TWENTY.at(-1)!).waitFor()
    for (const p of [bob, ada]) {
      const texts = (await timelineTexts(p)).filter((t) => TWENTY.includes(t))
      expect(texts).toEqual(TWENTY)
    }
    await screenshot(bob.page, 'send-order-second-device')
    expect(ada.errors).toEqual([])
    expect(bob.errors).toEqual([])
  }, 180_000)

  test('with a slow relay, letters typed right after Enter stay in the box', async () => {
    const watch = await watchRelay(dee.pubkey!, 'talk')
    const { page } = dee
    link.delayMs = 900
    await box(dee).click()
    let typed = ''
    for (const [i, text] of SLOW.entries()) {
      await page.keyboard.type(text.slice(typed.length), { delay: 40 })
      await page.keyboard.press('Enter')
      const next = SLOW[i + 1]
      if (!next) break
      // The first letters of the next message go in while this one waits for the relay's answer…
      typed = next.slice(0, 4)
      await page.keyboard.type(typed, { delay: 40 })
      if (i === 0) await screenshot(page, 'send-order-slow-relay')
      // …and are still there once the answer came and the message shows.
      await messageIn(dee, text).waitFor()
      expect(await box(dee).inputValue()).toBe(typed)
    }
    // Three more in a burst: they wait in line behind the slow answers and leave in order.
    const burst = ['burst one', 'burst two', 'burst three']
    for (const text of burst) {
      await page.keyboard.type(text, { delay: 30 })
      await page.keyboard.press('Enter')
    }
    expect(await box(dee).inputValue()).toBe('')
    // The composer says they are on their way (once the relay has taken a moment).
    const status = page.getByTestId('sending')
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="sending"]')
      return el !== null && /Sending/.test(el.textContent ?? '') && getComputedStyle(el).opacity === '1'
    })
    await screenshot(page, 'send-order-sending')
    const all = [...SLOW, ...burst]
    await settle(() => watch.events.length, all.length)
    watch.close()
    expect(watch.contents()).toEqual(all)
    expect((await stored(dee.pubkey!, 'talk')).filter((e) => all.includes(e.content))).toHaveLength(
      all.length,
    )
    await messageIn(dee, 'burst three').waitFor()
    await expect.poll(() => status.textContent()).toBe('')
    expect(dee.errors).toEqual([])
    link.delayMs = 0
  }, 120_000)

  test('a refused message stays where it was with its reason; the one typed behind it comes back to the box', async () => {
    const { page } = dee
    link.delayMs = 1_500
    await box(dee).click()
    // A 10,000-character paste, more than this relay takes, then a short message right after.
    await page.keyboard.insertText(LONG)
    await page.keyboard.press('Enter')
    await page.keyboard.type('and a short one', { delay: 30 })
    await page.keyboard.press('Enter')
    // Neither is lost: the refused one shows in the timeline with the relay's reason, Retry and
    // Delete; the one behind it never left, and is back in the box.
    const failed = page.locator('[data-testid="send-state"][data-status="failed"]')
    await failed.waitFor()
    expect(await failed.textContent()).toContain('content too long')
    expect(await failed.getByRole('button').allTextContents()).toEqual(['Retry', 'Delete'])
    await expect.poll(() => box(dee).inputValue()).toBe('and a short one')
    expect(await page.getByTestId('send-error').textContent()).toContain('a message before it was not sent')
    await screenshot(page, 'send-order-refused')
    const kept = (await stored(dee.pubkey!, 'talk')).map((e) => e.content)
    expect(kept).not.toContain('and a short one')
    expect(kept.some((c) => c.startsWith('Line 000'))).toBe(false)
    expect(dee.errors).toEqual([])
    link.delayMs = 0
  }, 60_000)
})
