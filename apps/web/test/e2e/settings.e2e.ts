import { startRelay } from '@roost/relay'
import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { messageIn, withStack } from './harness'

setPoolWebSocket(WebSocket)

const {
  stack,
  people: [ada],
} = withStack({ relay: { demo: true }, people: ['Ada'] })

/** The ids of the user's read-state blobs (kind 30078, addressable: one per slot) on the relay. */
async function readStateEvents(pubkey: string): Promise<string> {
  const pool = new SimplePool()
  try {
    const events = await pool.querySync([stack.relay.url], { kinds: [30078], authors: [pubkey] })
    return events
      .map((e) => e.id)
      .sort()
      .join(',')
  } finally {
    pool.close([stack.relay.url])
  }
}

/** The newest event of a kind by `pubkey` on one relay, or undefined. */
async function newest(relay: string, kind: number, pubkey: string) {
  const pool = new SimplePool()
  try {
    const events = await pool.querySync([relay], { kinds: [kind], authors: [pubkey] })
    return events.sort((a, b) => b.created_at - a.created_at)[0]
  } finally {
    pool.close([relay])
  }
}

describe('keyboard and settings', () => {
  test('keyboard only: open the join dialog, join, write a message, use the group menu', async () => {
    const { page } = ada
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement
        return el && el !== document.body ? (el.textContent?.trim() ?? '') : ''
      })
    // Tab from the top of the page to "Join a group".
    await page.locator('body').focus()
    for (let i = 0; i < 20 && !(await focused()).includes('Join a group'); i++)
      await page.keyboard.press('Tab')
    expect(await focused()).toContain('Join a group')
    await page.keyboard.press('Enter')
    await page.keyboard.type(`${stack.relay.url}'general`)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: /General/ }).waitFor()
    // The skip link (the first stop on the page) takes focus to the message box.
    for (let i = 0; i < 60 && (await focused()) !== 'Skip to content'; i++) await page.keyboard.press('Tab')
    expect(await focused()).toBe('Skip to content')
    await page.keyboard.press('Enter')
    await page.keyboard.type('Typed without a mouse')
    await page.keyboard.press('Enter')
    await messageIn(ada, 'Typed without a mouse').waitFor()
    // The group menu opens with Enter, moves with arrows, closes with Escape.
    await page.getByRole('button', { name: 'Group actions' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('menu').waitFor()
    expect(await focused()).toBe('Start a thread…')
    await page.keyboard.press('ArrowDown')
    expect(await focused()).toBe('People')
    await page.keyboard.press('Escape')
    await page.getByRole('menu').waitFor({ state: 'detached' })
    expect(await focused()).toContain('Group')
  })

  test('"keep read state on this device only": reading then publishes no read-state event', async () => {
    const { page } = ada
    // The tab going hidden flushes pending read state (NIP-RS decision g).
    const hide = () =>
      page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true })
        document.dispatchEvent(new Event('visibilitychange'))
        Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true })
      })
    const write = async (text: string) => {
      const box = page.getByRole('textbox', { name: 'Message General' })
      await box.fill(text)
      await box.press('Enter')
      await messageIn(ada, text).waitFor()
    }
    // Synced (the default): a read mark reaches the relay as an encrypted kind 30078.
    await write('First mark')
    const before = await readStateEvents(ada.pubkey!)
    await hide()
    await expect.poll(() => readStateEvents(ada.pubkey!), { timeout: 10_000 }).not.toBe(before)
    const synced = await readStateEvents(ada.pubkey!)

    await page.getByRole('button', { name: 'Settings and account' }).click()
    await page.getByLabel(/Keep read state on this device only/).check()
    await page.keyboard.press('Escape')
    await write('Second mark')
    await hide()
    // Nothing to await for an event that must not come: allow the flush a moment, then look.
    await page.waitForTimeout(1500)
    expect(await readStateEvents(ada.pubkey!)).toBe(synced)
    // The setting survives a reload.
    await page.reload()
    await page.getByRole('button', { name: 'Settings and account' }).click()
    expect(await page.getByLabel(/Keep read state on this device only/).isChecked()).toBe(true)
    await page.keyboard.press('Escape')
  })

  test('a relay added in Settings takes effect at once: the group list goes to it without a restart', async () => {
    const { page } = ada
    const other = await startRelay({ port: 0, host: '127.0.0.1', db: ':memory:' })
    try {
      await page.getByRole('button', { name: 'Settings and account' }).click()
      await page.getByLabel('Add a relay').fill(other.url)
      await page.getByRole('button', { name: 'Add', exact: true }).click()
      await page.getByText(other.url, { exact: true }).waitFor()
      await expect
        .poll(
          async () => {
            const list = await newest(other.url, 10009, ada.pubkey!)
            return (list?.tags ?? []).filter((t) => t[0] === 'group').map((t) => t[1])
          },
          { timeout: 20_000 },
        )
        .toContain('general')
      // Removing it again leaves the app on the relay it started with.
      await page.getByRole('button', { name: `Remove ${other.url}` }).click()
      await page.getByText(other.url, { exact: true }).waitFor({ state: 'detached' })
      await page.keyboard.press('Escape')
    } finally {
      await other.close()
    }
  })

  test('Settings offers a user without a NIP-65 relay list to publish one', async () => {
    const { page } = ada
    expect(await newest(stack.relay.url, 10002, ada.pubkey!)).toBeUndefined()
    await page.getByRole('button', { name: 'Settings and account' }).click()
    const publish = page.getByRole('button', { name: 'Publish my relay list' })
    await publish.waitFor({ timeout: 15_000 })
    await publish.click()
    await page.getByText('Relay list published.').waitFor()
    await publish.waitFor({ state: 'detached' })
    const list = await newest(stack.relay.url, 10002, ada.pubkey!)
    expect(list?.tags).toEqual([['r', stack.relay.url]])
    await page.keyboard.press('Escape')
    // A user who has one is not asked again.
    await page.reload()
    await page.getByRole('button', { name: 'Settings and account' }).click()
    await page.getByRole('heading', { name: 'Relays' }).waitFor()
    await page.waitForTimeout(1500)
    expect(await publish.count()).toBe(0)
    await page.keyboard.press('Escape')
  })
})
