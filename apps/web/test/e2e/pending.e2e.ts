import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools'
import { Relay, useWebSocketImplementation as setWebSocketImplementation } from 'nostr-tools/relay'
import { describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { joinByCode, screenshot, sidebarGroup, withStack } from './harness'

setWebSocketImplementation(WebSocket)

const adminSk = generateSecretKey()
// The groups_relay family queues a join to a closed group for an admin instead of refusing it.
const {
  stack,
  people: [bob],
} = withStack({
  relay: { profile: 'groups_relay' },
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'club', name: 'Club', closed: true, admins: [getPublicKey(adminSk)] })
  },
  people: ['Bob'],
})

describe('a join waiting for an admin', () => {
  test('shows as pending until an admin adds the member (9000), then the group opens up', async () => {
    const { page } = bob
    await joinByCode(bob, `${stack.relay.url}'club`)
    await page.getByTestId('access').getByText('Request sent — an admin of Club must approve it.').waitFor()
    await sidebarGroup(bob, 'Club')
      .and(page.getByRole('button', { name: /Join request pending/ }))
      .waitFor()
    await screenshot(page, 'pending')

    // An admin approves from another client: a kind 9000 naming Bob.
    const relay = await Relay.connect(stack.relay.url)
    try {
      await relay.publish(
        finalizeEvent(
          {
            kind: 9000,
            created_at: Math.floor(Date.now() / 1000),
            tags: [
              ['h', 'club'],
              ['p', bob.pubkey!, 'member'],
            ],
            content: '',
          },
          adminSk,
        ),
      )
    } finally {
      relay.close()
    }
    await page.getByTestId('access').waitFor({ state: 'detached' })
    expect(await page.getByRole('textbox', { name: 'Message Club' }).isDisabled()).toBe(false)
    expect(stack.relay.state('club')?.members).toContain(bob.pubkey)
  })
})
