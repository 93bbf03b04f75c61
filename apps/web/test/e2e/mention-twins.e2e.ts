import { nip19 } from 'nostr-tools'
import { describe, expect, test } from 'vitest'
import { messageIn, screenshot, send, withStack } from './harness'

/** Two people named Bob: the @ list tells them apart as the timeline does, by the npub's end. */
const {
  people: [ada, bob, other],
} = withStack({
  seed: async (stack) => {
    await stack.relay.createGroup({ id: 'talk', name: 'Talk' })
  },
  people: [
    { name: 'Ada', join: ['talk'] },
    { name: 'Bob', join: ['talk'] },
    { name: 'Bob', join: ['talk'] },
  ],
})

const suffix = (pubkey: string) => nip19.npubEncode(pubkey).slice(-5)

describe('the @ list with two people of one name', () => {
  test('each Bob shows the end of his npub, as in the timeline, and the pick names the right one', async () => {
    await send(bob, 'I am the first Bob')
    await send(other, 'I am the other Bob')
    const { page } = ada
    await messageIn(ada, 'I am the other Bob').waitFor()
    // The timeline tells them apart…
    for (const [person, text] of [
      [bob, 'I am the first Bob'],
      [other, 'I am the other Bob'],
    ] as const)
      await messageIn(ada, text)
        .getByTestId('npub-suffix')
        .filter({ hasText: suffix(person.pubkey!) })
        .waitFor()
    // …and so does the @ list, with the same suffix.
    const input = page.getByRole('textbox', { name: 'Message Talk' })
    await input.click()
    await input.pressSequentially('thanks @bo')
    const list = page.getByRole('listbox', { name: 'People to mention' })
    await list.waitFor()
    const options = list.getByRole('option')
    await expect.poll(() => options.count()).toBe(2)
    const names = await options.evaluateAll((els) =>
      els.map(
        (o) =>
          `${o.querySelector('bdi')?.textContent} ${o.querySelector('.npub-suffix')?.textContent?.trim()}`,
      ),
    )
    expect(names.sort()).toEqual([`Bob …${suffix(bob.pubkey!)}`, `Bob …${suffix(other.pubkey!)}`].sort())
    await screenshot(page, 'mention-twins')
    // The other Bob, from the keyboard.
    for (let i = 0; i < 2; i++) {
      const selected = list.getByRole('option', { selected: true })
      if ((await selected.textContent())?.includes(suffix(other.pubkey!))) break
      await input.press('ArrowDown')
    }
    await input.press('Enter')
    await input.pressSequentially('for the notes')
    await input.press('Enter')
    const sent = page.getByRole('log', { name: 'Messages' }).locator('article', { hasText: 'for the notes' })
    await sent.locator(`.mention[data-pubkey="${other.pubkey}"]`).waitFor()
    expect(await sent.locator(`.mention[data-pubkey="${bob.pubkey}"]`).count()).toBe(0)
    expect([...ada.errors, ...bob.errors, ...other.errors]).toEqual([])
  })
})
