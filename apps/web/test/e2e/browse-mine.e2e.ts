/**
 * Someone the operator made admin of the demo groups (relay-signed 9000s, as the demo does for its
 * admin) signs in with none of them in their list: the welcome page and Browse read the relay's
 * admin and member lists, say so, and open each group in one click instead of offering to
 * "request to join" their own groups. Desktop and phone.
 */
import { bytesToHex } from '@noble/hashes/utils.js'
import { finalizeEvent, generateSecretKey } from 'nostr-tools'
import { Relay, useWebSocketImplementation as setWebSocketImplementation } from 'nostr-tools/relay'
import { beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { type Person, screenshot, seriousViolations, sidebarGroup, withStack } from './harness'

setWebSocketImplementation(WebSocket)

const relaySecret = generateSecretKey()
const {
  stack,
  people: [alice, ann],
} = withStack({
  relay: { demo: true, secretKey: bytesToHex(relaySecret) },
  people: ['Alice', { name: 'Ann', viewport: { width: 375, height: 812 }, touch: true }],
})

beforeAll(async () => {
  // As the demo seeds its admin: relay-signed 9000s with the admin role, no join request.
  const relay = await Relay.connect(stack.relay.url)
  try {
    for (const p of [alice, ann])
      for (const id of ['general', 'design', 'private'])
        await relay.publish(
          finalizeEvent(
            {
              kind: 9000,
              created_at: Math.floor(Date.now() / 1000),
              content: '',
              tags: [
                ['h', id],
                ['p', p.pubkey!, 'admin'],
              ],
            },
            relaySecret,
          ),
        )
  } finally {
    relay.close()
  }
})

for (const [who, person] of [
  ['desktop', () => alice],
  ['phone', () => ann],
] as const) {
  describe(`the demo admin on a ${who}`, () => {
    test('the welcome page shows her groups as hers and opens them; Browse says the same', async () => {
      const me: Person = person()
      const { page } = me
      await page.reload()
      await page.getByRole('heading', { name: 'Welcome to Roost' }).waitFor()
      const list = page.getByRole('list', { name: 'Groups on this relay' })
      for (const name of ['General', 'Design', 'Private']) {
        const card = list.getByRole('listitem').filter({ hasText: name })
        await card.getByText('you are an admin').waitFor()
        await card.getByRole('button', { name: `Open ${name}` }).waitFor()
      }
      expect(await list.getByRole('button', { name: /^Request to join/ }).count()).toBe(0)
      await page
        .getByText('You are already in Design, General and Private on this relay', { exact: false })
        .waitFor()
      await screenshot(page, `browse-mine-${who}`)
      expect(await seriousViolations(page)).toEqual([])

      await list.getByRole('button', { name: 'Open Design' }).click()
      await page.getByRole('heading', { name: /Design/ }).waitFor()
      expect(await page.getByTestId('access').count()).toBe(0)
      expect(await page.getByRole('textbox', { name: 'Message Design' }).isDisabled()).toBe(false)
      if (who === 'phone') await page.getByRole('button', { name: 'Open group list' }).click()
      await sidebarGroup(me, 'Design').waitFor()
      await page.getByRole('button', { name: 'Browse groups' }).click()
      const browse = page.getByRole('list', { name: 'Groups on this relay' })
      await browse
        .getByRole('listitem')
        .filter({ hasText: 'Design' })
        .getByRole('button', { name: 'Open' })
        .waitFor()
      await browse
        .getByRole('listitem')
        .filter({ hasText: 'Private' })
        .getByRole('button', { name: 'Open Private' })
        .waitFor()
      expect([...me.errors]).toEqual([])
    })
  })
}
