/**
 * Closed groups on the default relay: a request without a code waits for the admins (who see it
 * and let the person in), an invite admits as many people as it says until it expires, and the
 * demo's printed code lets many newcomers in.
 */
import { beforeAll, describe, expect, test } from 'vitest'
import { joinByCode, newPerson, type Person, screenshot, sidebarGroup, signUp, withStack } from './harness'
import { stranger } from './strangers'

const PHONE = { width: 375, height: 812 }
const {
  stack,
  people: [ada, bob, cy],
} = withStack({
  relay: { demo: true },
  people: ['Ada', { name: 'Bob', viewport: PHONE, touch: true }, 'Cy'],
})
beforeAll(async () => {
  await stack.relay.createGroup({
    id: 'club',
    name: 'Club',
    about: 'Members only',
    closed: true,
    admins: [ada.pubkey!],
  })
})

/** The join dialog, reached from the sidebar (the drawer on a phone), with the group and a code. */
async function joinWith(person: Person, input: string, code?: string) {
  const { page } = person
  if (await page.getByRole('button', { name: 'Open group list' }).isVisible())
    await page.getByRole('button', { name: 'Open group list' }).click()
  await page.getByRole('button', { name: 'Join a group' }).click()
  const dialog = page.getByRole('dialog', { name: 'Join a group' })
  await dialog.getByLabel('Group link or code').fill(input)
  if (code !== undefined) await dialog.getByLabel('Invite code').fill(code)
  return dialog
}

describe('closed groups on the default relay', () => {
  test('a request without a code waits for the admins; an admin sees it and lets the person in', async () => {
    const dialog = await joinWith(bob, `${stack.relay.url}'club`)
    await dialog.getByTestId('group-preview').getByText('Members only').waitFor()
    await dialog.getByText('without one your request waits for an admin to approve it').waitFor()
    await dialog.getByRole('button', { name: 'Join', exact: true }).click()
    await dialog.waitFor({ state: 'detached' })
    const banner = bob.page.getByTestId('access')
    await banner.getByText('Request sent — an admin of Club must approve it.').waitFor()
    await screenshot(bob.page, 'closed-request-sent-phone')
    expect(stack.relay.state('club')?.pending).toEqual([bob.pubkey])
    expect(stack.relay.state('club')?.members).not.toContain(bob.pubkey)

    // Ada was made admin by the operator: opening the group, she is told of the request.
    await joinByCode(ada, `${stack.relay.url}'club`)
    await sidebarGroup(ada, 'Club')
      .and(ada.page.getByRole('button', { name: /1 join request/ }))
      .waitFor()
    await sidebarGroup(ada, 'Club').click()
    await ada.page.getByRole('button', { name: /^People/ }).click()
    const row = ada.page
      .getByRole('list', { name: 'Join requests' })
      .getByRole('listitem')
      .filter({ hasText: 'Bob' })
    await screenshot(ada.page, 'closed-request-admin')
    await row.getByRole('button', { name: 'Approve' }).click()
    await banner.waitFor({ state: 'detached' })
    expect(await bob.page.getByRole('textbox', { name: 'Message Club' }).isDisabled()).toBe(false)
    expect(stack.relay.state('club')?.members).toContain(bob.pubkey)
    expect([...ada.errors, ...bob.errors]).toEqual([])
  })

  test('an invite for up to 5 people that expires in 7 days: the dialog says so; it admits five, then no one', async () => {
    const { page } = ada
    await sidebarGroup(ada, 'Club').click()
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Invite people…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Invite people' })
    await dialog.getByLabel('Who can use it').selectOption({ label: 'Up to 5 people' })
    await dialog.getByLabel('Expires').selectOption({ label: 'In 7 days' })
    const asked = Math.floor(Date.now() / 1000)
    await dialog.getByRole('button', { name: 'Create invite link' }).click()
    const terms = dialog.getByTestId('invite-terms')
    await terms.getByText(/^Admits up to 5 people · expires /).waitFor()
    await screenshot(page, 'invite-terms')
    const link = await dialog.getByLabel('Invite link').inputValue()
    expect(link).toMatch(/^naddr1[a-z0-9]+\?invite=/)
    const code = decodeURIComponent(link.split('?invite=')[1] ?? '')
    const state = stack.relay.state('club')?.inviteTerms[code]
    expect(state?.left).toBe(5)
    expect(state?.expires).toBeGreaterThanOrEqual(asked + 7 * 86400)
    expect(state?.expires).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 7 * 86400)
    await dialog.getByRole('button', { name: 'Close' }).click()

    // Cy joins by the link: in at once.
    await joinByCode(cy, link)
    await cy.page.getByRole('heading', { name: /Club/ }).waitFor()
    await expect.poll(() => stack.relay.state('club')?.members.includes(cy.pubkey!)).toBe(true)
    expect(await cy.page.getByTestId('access').count()).toBe(0)
    // Four more use it from elsewhere: it is spent.
    for (let i = 0; i < 4; i++) {
      const s = stranger(stack.relay.url)
      await s.publish({
        kind: 9021,
        content: '',
        tags: [
          ['h', 'club'],
          ['code', code],
        ],
      })
      s.close()
    }
    expect(stack.relay.state('club')?.invites).not.toContain(code)
    const dee = await newPerson(stack)
    await signUp(stack, dee, 'Dee')
    await joinByCode(dee, link)
    await dee.page
      .getByTestId('access')
      .getByText(/invalid or already used invite code/)
      .waitFor()
    expect(stack.relay.state('club')?.members).not.toContain(dee.pubkey)
  })

  test('the demo’s printed code lets many newcomers into Design', async () => {
    const code = stack.relay.demo!.invite
    for (const name of ['Eve', 'Fay', 'Gus']) {
      const person = await newPerson(stack)
      await signUp(stack, person, name)
      const dialog = await joinWith(person, `${stack.relay.url}'design`, code)
      await dialog.getByRole('button', { name: 'Join', exact: true }).click()
      await dialog.waitFor({ state: 'detached' })
      await person.page
        .getByRole('textbox', { name: 'Message Design' })
        .and(person.page.locator(':enabled'))
        .waitFor()
      expect(stack.relay.state('design')?.members).toContain(person.pubkey)
    }
    expect(stack.relay.state('design')?.invites).toEqual([code])
  })
})
