/**
 * Each of my messages shows where it stands, in the timeline: a send whose answer does not come
 * (the link stalls for 20 s, longer than the publish deadline) is "not confirmed yet", not failed,
 * then shows as sent once the link is back, and a Retry meanwhile makes no second copy on the
 * relay. A refused message stays where it was, with the relay's reason, Retry and Delete.
 */
import type { NostrEvent } from 'nostr-tools'
import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { type FaultProxy, startFaultProxy } from '../../../../test/support/fault-proxy'
import { joinByCode, messageIn, newPerson, type Person, screenshot, signUp, withStack } from './harness'

setPoolWebSocket(WebSocket)

const { stack } = withStack({
  relay: { limits: { maxContentLength: 8_000 } },
  seed: async (s) => {
    await s.relay.createGroup({ id: 'talk', name: 'Talk' })
  },
})

let link: FaultProxy
let ada: Person
let pool: SimplePool

beforeAll(async () => {
  // Ada's browser reaches the relay through the proxy (the page's origin is its relay).
  link = await startFaultProxy(stack.relay.url)
  ada = await newPerson(stack)
  await signUp({ ...stack, base: link.url.replace(/^ws/, 'http') }, ada, 'Ada')
  await joinByCode(ada, `${link.url}'talk`)
  await ada.page.getByRole('heading', { name: /Talk/ }).waitFor()
  pool = new SimplePool()
})
afterAll(async () => {
  pool?.close([stack.relay.url])
  await ada?.context.close()
  await link?.close()
})

function box() {
  return ada.page.getByRole('textbox', { name: /^Message / })
}

/** What the relay holds from Ada in the group, read back directly (not through the proxy). */
function stored(): Promise<NostrEvent[]> {
  return pool.querySync([stack.relay.url], { kinds: [9], '#h': ['talk'], authors: [ada.pubkey!] })
}

function stateOf(text: string) {
  return messageIn(ada, text).getByTestId('send-state')
}

describe('where my messages stand', () => {
  test('a 20 s stall: not confirmed, then sent, and Retry makes no copy', async () => {
    const { page } = ada
    await box().click()
    await page.keyboard.type('before the stall', { delay: 30 })
    await page.keyboard.press('Enter')
    await messageIn(ada, 'before the stall').waitFor()
    await expect.poll(() => stateOf('before the stall').count()).toBe(0)

    const texts = ['one in the stall', 'two in the stall', 'three in the stall']
    const stall = link.stall(20_000)
    for (const t of texts) {
      await page.keyboard.type(t, { delay: 40 })
      await page.keyboard.press('Enter')
    }
    expect(await box().inputValue()).toBe('')
    // The deadline passes with no answer: the first is "not confirmed yet", not failed, not gone.
    await expect
      .poll(() => stateOf(texts[0]!).getAttribute('data-status'), { timeout: 40_000 })
      .toBe('unknown')
    const failed = page.locator('[data-testid="send-state"][data-status="failed"]')
    expect(await failed.count()).toBe(0)
    const unknownDuringStall = await page.locator('[data-testid="send-state"][data-status="unknown"]').count()
    await screenshot(page, 'send-states-not-confirmed')
    await stateOf(texts[0]!).getByRole('button', { name: 'Retry' }).click()
    await stall

    // The link is back: the unconfirmed one turns sent by itself, shown once. Those typed behind
    // it left once it was answered, or, when the app had meanwhile seen the relay unreachable,
    // came back to the box ("You are offline"): never lost, never doubled.
    await expect
      .poll(async () => `${await messageIn(ada, texts[0]!).count()} ${await stateOf(texts[0]!).count()}`, {
        timeout: 60_000,
      })
      .toBe('1 0')
    const inBox = await box().inputValue()
    const later = texts.slice(1).filter((t) => !inBox.includes(t))
    for (const t of later)
      await expect
        .poll(async () => `${await messageIn(ada, t).count()} ${await stateOf(t).count()}`, {
          timeout: 60_000,
        })
        .toBe('1 0')
    expect(await failed.count()).toBe(0)
    const held = await stored()
    const counts = texts.map((t) => held.filter((e) => e.content === t).length)
    console.log(
      `20 s stall: typed ${texts.length}, not confirmed during the stall ${unknownDuringStall}, failed 0, stored ${counts.join('/')}, shown sent ${1 + later.length}, back in the box ${texts.length - 1 - later.length}, one Retry clicked`,
    )
    expect(counts).toEqual(texts.map((t) => (t === texts[0] || later.includes(t) ? 1 : 0)))
    await screenshot(page, 'send-states-sent')
    expect(ada.errors).toEqual([])
  }, 150_000)

  test('a refused message shows the reason with Retry and Delete; Retry adds no copy, Delete drops it', async () => {
    const { page } = ada
    const long = 'A long paste. '.repeat(700) // 9,800 characters, more than this relay takes
    await box().click()
    await page.keyboard.insertText(long)
    await page.keyboard.press('Enter')
    const state = page
      .locator('[data-testid="send-state"][data-status="failed"]')
      .filter({ hasText: 'content too long' })
    await state.waitFor()
    expect(await state.textContent()).toContain('content too long')
    expect(await box().inputValue()).toBe('')
    await screenshot(page, 'send-states-refused')
    await state.getByRole('button', { name: 'Retry' }).click()
    await state.waitFor() // refused again, still one row
    expect(await page.locator('[data-testid="send-state"]').count()).toBe(1)
    expect((await stored()).some((e) => e.content.startsWith('A long paste.'))).toBe(false)
    await state.getByRole('button', { name: 'Delete' }).click()
    await expect.poll(() => page.locator('[data-testid="send-state"]').count()).toBe(0)
    expect(ada.errors).toEqual([])
  }, 60_000)
})
