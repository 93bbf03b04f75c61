import type { NostrEvent } from 'nostr-tools'
import { Relay } from 'nostr-tools/relay'
import { describe, expect, test } from 'vitest'
import './seed'
import { newPerson, send, sidebarGroup, signInWithNsec, withStack } from './harness'

/**
 * The notification level follows the account: kept in an encrypted NIP-78 app-data event, so a
 * second device of the same key (another browser profile) has it too, badges included.
 */
const {
  stack,
  people: [ada, bob],
} = withStack({
  seed: async (stack) => {
    await stack.relay.createGroup({ id: 'talk', name: 'Talk' })
    await stack.relay.createGroup({ id: 'lobby', name: 'Lobby' })
  },
  people: [
    { name: 'Ada', join: ['talk', 'lobby'] },
    { name: 'Bob', join: ['talk'] },
  ],
})

describe('notification levels on a second device', () => {
  test('Mentions only, set on one device, holds on another of the same key', async () => {
    await sidebarGroup(ada, 'Talk').click()
    await ada.page.getByLabel('Notifications for Talk').selectOption({ label: 'Mentions only' })

    const laptop = await newPerson(stack)
    await signInWithNsec(stack, laptop, ada.nsec!)
    await sidebarGroup(laptop, 'Lobby').click()
    await laptop.page.getByRole('heading', { name: 'Lobby' }).waitFor()
    await sidebarGroup(laptop, 'Talk').click()
    const select = laptop.page.getByLabel('Notifications for Talk')
    await expect.poll(() => select.inputValue()).toBe('mentions')
    await sidebarGroup(laptop, 'Lobby').click()
    await laptop.page.getByRole('heading', { name: 'Lobby' }).waitFor()

    // Chatter in Talk: the laptop shows the grey count, not the red one.
    await send(bob, 'just chatting')
    await sidebarGroup(laptop, 'Talk').getByTestId('quiet-badge').filter({ hasText: '1' }).waitFor()
    expect(await sidebarGroup(laptop, 'Talk').getByTestId('unread-badge').count()).toBe(0)

    // On the relay: one app-data event of Ada's, its content encrypted (no level in the clear).
    const relay = await Relay.connect(stack.relay.url)
    const events: NostrEvent[] = []
    await new Promise<void>((resolve) => {
      const sub = relay.subscribe([{ kinds: [30078], authors: [ada.pubkey!] }], {
        onevent: (e) => events.push(e),
        oneose: () => {
          sub.close()
          resolve()
        },
      })
    })
    relay.close()
    expect(events.length).toBeGreaterThan(0)
    expect(events[0]!.tags).toContainEqual(['d', 'roost/notify-levels'])
    expect(events[0]!.content).not.toContain('mentions')
    expect([...ada.errors, ...laptop.errors]).toEqual([])
  })
})
