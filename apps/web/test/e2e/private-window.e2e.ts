import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import {
  joinByCode,
  messageIn,
  type Person,
  screenshot,
  send,
  sidebarGroup,
  signInWithNsec,
  signUp,
  withStack,
} from './harness'

setPoolWebSocket(WebSocket)

// The laptop and the private window sign in in the test; Bob writes in General.
const {
  stack,
  people: [laptop, incognito, bob],
} = withStack({ relay: { demo: true }, people: [{}, {}, { name: 'Bob', join: ['general'] }] })
beforeAll(async () => {
  // A private window: the page has no IndexedDB at all.
  await incognito.context.addInitScript(() => {
    Object.defineProperty(window, 'indexedDB', { value: undefined, configurable: true })
  })
})

/** The user's read-state blobs (kind 30078) on the relay, as `slot@created_at`. */
async function blobs(pubkey: string): Promise<string[]> {
  const pool = new SimplePool()
  try {
    const events = await pool.querySync([stack.relay.url], { kinds: [30078], authors: [pubkey] })
    return events.map((e) => `${e.tags.find((t) => t[0] === 'd')?.[1]}@${e.created_at}`).sort()
  } finally {
    pool.close([stack.relay.url])
  }
}

function badge(person: Person) {
  return sidebarGroup(person, 'General').getByTestId('unread-badge')
}

describe('a private window without IndexedDB', () => {
  test('shows what other devices read, keeps its own reading to itself, and says so in Settings', async () => {
    await signUp(stack, laptop, 'Ada')
    await joinByCode(laptop, `${stack.relay.url}'general`)
    await messageIn(laptop, 'Welcome to Roost! This is the general channel.').waitFor()
    await laptop.page.getByRole('button', { name: 'Browse groups' }).click()
    // The laptop's read state (the welcome messages read) is on the relay.
    await expect.poll(() => blobs(laptop.pubkey!), { timeout: 30_000 }).toHaveLength(1)
    await send(bob, 'Unread on every device')
    await messageIn(bob, 'Unread on every device').waitFor()
    await expect.poll(() => badge(laptop).textContent(), { timeout: 15_000 }).toMatch(/^1/)

    await signInWithNsec(stack, incognito, laptop.nsec!)
    // Only Bob's message is unread here: the laptop's reading came over the relay.
    await expect.poll(() => badge(incognito).textContent(), { timeout: 20_000 }).toMatch(/^1/)

    const { page } = incognito
    await page.getByRole('button', { name: 'Settings and account' }).click()
    await page
      .getByTestId('read-state-not-kept')
      .getByText(/what you read here will not be kept/)
      .waitFor()
    await screenshot(page, 'private-window-settings')
    await page.keyboard.press('Escape')
    await laptop.page.getByRole('button', { name: 'Settings and account' }).click()
    await laptop.page.getByRole('heading', { name: 'Read state and notifications' }).waitFor()
    expect(await laptop.page.getByTestId('read-state-not-kept').count()).toBe(0)
    await laptop.page.keyboard.press('Escape')

    // Reading here clears the badge here, and publishes nothing: no new slot, no new version.
    const before = await blobs(laptop.pubkey!)
    await sidebarGroup(incognito, 'General').click()
    await messageIn(incognito, 'Unread on every device').waitFor()
    await badge(incognito).waitFor({ state: 'detached' })
    // Hiding the tab is when a pending mark would go out at once; the 5 s debounce is passed too.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true })
      document.dispatchEvent(new Event('visibilitychange'))
      window.dispatchEvent(new Event('pagehide'))
    })
    await page.waitForTimeout(7000)
    expect(await blobs(laptop.pubkey!)).toEqual(before)
    expect(await badge(laptop).textContent()).toMatch(/^1/)
    expect(incognito.errors).toEqual([])
  })
})
