import { describe, expect, test } from 'vitest'
import { joinByCode, messageIn, screenshot, send, withStack } from './harness'

const {
  stack,
  people: [ada, bob],
} = withStack({ relay: { demo: true }, people: ['Ada', 'Bob'] })

describe('closed and private groups', () => {
  test('a closed group keeps a join without a code for its admins, says so, and takes a code later', async () => {
    const { page } = bob
    await joinByCode(bob, `${stack.relay.url}'design`)
    const banner = page.getByTestId('access')
    await banner.getByText('Request sent — an admin of Design must approve it.').waitFor()
    // The sidebar says so too.
    await page
      .getByRole('navigation', { name: 'Groups' })
      .getByRole('button', { name: /Design.*Join request pending/ })
      .waitFor()
    expect(stack.relay.state('design')?.pending).toContain(bob.pubkey)
    await screenshot(page, 'request-sent')

    // A closed group takes writes from members only: the composer says so instead of sending.
    const box = page.getByRole('textbox', { name: 'Message Design' })
    expect(await box.isDisabled()).toBe(true)
    const reasonId = await box.getAttribute('aria-describedby')
    expect(await page.locator(`[id="${reasonId}"]`).textContent()).toMatch(/approv/)

    // An invite code admits at once, also while the request waits.
    await banner.getByLabel('Invite code').fill(stack.relay.demo!.invite)
    await banner.getByRole('button', { name: 'Use the code' }).click()
    await page.getByTestId('access').waitFor({ state: 'detached' })
    await expect.poll(() => stack.relay.state('design')?.members.includes(bob.pubkey!)).toBe(true)
    await send(bob, 'Hi designers')
    await messageIn(bob, 'Hi designers').waitFor()

    // A write the relay refuses (content over its 65,536 limit): the message stays where it was
    // written, with the relay's reason, Retry and Delete; nothing is lost.
    const tooLong = 'x'.repeat(70_000)
    await box.fill(tooLong)
    await box.press('Enter')
    const state = page.locator('[data-testid="send-state"][data-status="failed"]')
    await state.waitFor()
    expect(await state.textContent()).toMatch(/invalid: /)
    await state.getByRole('button', { name: 'Retry' }).waitFor()
    await state.getByRole('button', { name: 'Delete' }).waitFor()
  })

  test('a private group is unreadable without membership and readable after NIP-42 auth as a member', async () => {
    const code = await stack.relay.createInvite('private')
    const naddrLink = await privateLink(code)
    // Ada joins with the invite link; the relay asks for AUTH on the private group and the client answers.
    await joinByCode(ada, naddrLink)
    await ada.page.getByRole('heading', { name: /Private/ }).waitFor()
    await send(ada, 'Members only')
    await messageIn(ada, 'Members only').waitFor()
    expect(stack.relay.state('private')?.members).toContain(ada.pubkey)

    // Bob, not a member, asks without a code: his request waits, and he never sees the message.
    await joinByCode(bob, `${stack.relay.url}'private`)
    await bob.page
      .getByTestId('access')
      .getByText(/an admin of .* must approve it/)
      .waitFor()
    expect(await messageIn(bob, 'Members only').count()).toBe(0)
    // The composer is disabled and says why.
    const box = bob.page.getByRole('textbox', { name: 'Message Private' })
    expect(await box.isDisabled()).toBe(true)
    const reason = await box.getAttribute('aria-describedby')
    expect(await bob.page.locator(`[id="${reason}"]`).textContent()).toMatch(/approval|member/i)
  })
})

async function privateLink(code: string): Promise<string> {
  const { naddrEncode } = await import('nostr-tools/nip19')
  return `${naddrEncode({ kind: 39000, pubkey: stack.relay.pubkey, identifier: 'private', relays: [stack.relay.url] })}?invite=${code}`
}
