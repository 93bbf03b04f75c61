import { finalizeEvent, generateSecretKey, getPublicKey, nip19 } from 'nostr-tools'
import { describe, expect, test } from 'vitest'
import { messageIn, screenshot, send, withStack } from './harness'
import { IMPORT_OPTIONS, publishAll } from './seed'

/** Another client's key (a member of the group): its messages are built with nostr-tools alone. */
const otherClient = generateSecretKey()

const {
  stack,
  people: [ada, bob],
} = withStack({
  relay: { ...IMPORT_OPTIONS },
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'talk', name: 'Talk', members: [getPublicKey(otherClient)] })
  },
  people: [
    { name: 'Ada', join: ['talk'] },
    { name: 'Bob', join: ['talk'] },
  ],
})

const quotes = (row: ReturnType<typeof messageIn>) => row.getByRole('button', { name: /^In reply to / })

describe('replies other clients read (NIP-C7), and replies in thread on any message', () => {
  test('a reply shows its quote once, not the nevent link as well; another client’s link-only reply shows as a quote', async () => {
    await send(ada, 'Lunch at noon?')
    const target = messageIn(bob, 'Lunch at noon?')
    await target.hover()
    await target.getByRole('button', { name: 'Reply', exact: true }).click()
    await bob.page.getByText('Replying to').waitFor()
    await send(bob, 'Sounds good')

    for (const person of [ada, bob]) {
      const reply = messageIn(person, 'Sounds good')
      await reply.getByRole('button', { name: /In reply to Ada: Lunch at noon\?/ }).waitFor()
      expect(await quotes(reply).count()).toBe(1)
      expect((await reply.locator('.body').textContent())?.trim()).toBe('Sounds good')
      expect(await reply.textContent()).not.toMatch(/nostr:|nevent1/)
    }
    await screenshot(ada.page, 'nip-c7-reply')

    // Another client quotes Ada's message with the link alone (no q or e tag), as a NIP-C7 client may.
    const quoted = await messageIn(ada, 'Lunch at noon?').getAttribute('data-id')
    expect(quoted).toMatch(/^[0-9a-f]{64}$/)
    const link = `nostr:${nip19.neventEncode({ id: quoted!, relays: [stack.relay.url] })}`
    const theirs = finalizeEvent(
      {
        kind: 9,
        created_at: Math.floor(Date.now() / 1000),
        tags: [['h', 'talk']],
        content: `${link}\nSee you there`,
      },
      otherClient,
    )
    await publishAll(stack.relay.url, [theirs])
    for (const person of [ada, bob]) {
      const row = messageIn(person, 'See you there')
      await row.getByRole('button', { name: /In reply to Ada: Lunch at noon\?/ }).waitFor()
      expect(await quotes(row).count()).toBe(1)
      expect(await row.textContent()).not.toMatch(/nostr:|nevent1/)
    }
    expect(ada.errors).toEqual([])
    expect(bob.errors).toEqual([])
  })

  test('reply in thread on a chat message: the count shows under it on both screens, and the thread opens with the reply', async () => {
    await send(ada, 'Who has the slides?')
    const root = messageIn(bob, 'Who has the slides?')
    await root.hover()
    await root.getByRole('button', { name: 'Reply in thread' }).click()
    const panel = bob.page.getByRole('complementary', { name: /^Thread/ })
    await panel.getByText('Who has the slides?').waitFor()
    const box = bob.page.getByRole('textbox', { name: 'Reply in thread' })
    await box.fill('I do, sending them now')
    await box.press('Enter')
    await panel.getByText('I do, sending them now').waitFor()

    for (const person of [ada, bob]) {
      await messageIn(person, 'Who has the slides?').getByRole('button', { name: '1 reply' }).waitFor()
    }
    // The reply is in the thread, not in the channel.
    expect(await messageIn(ada, 'I do, sending them now').count()).toBe(0)
    await messageIn(ada, 'Who has the slides?').getByRole('button', { name: '1 reply' }).click()
    const adas = ada.page.getByRole('complementary', { name: /^Thread/ })
    await adas.getByText('I do, sending them now').waitFor()
    await adas.getByRole('heading', { name: '1 reply' }).waitFor()
    await screenshot(ada.page, 'thread-on-chat-message')
    await ada.page.getByRole('button', { name: 'Close thread' }).click()
    expect(ada.errors).toEqual([])
    expect(bob.errors).toEqual([])
  })
})
