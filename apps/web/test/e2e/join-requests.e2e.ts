import { beforeAll, describe, expect, test } from 'vitest'
import { joinByCode, screenshot, sidebarGroup, withStack } from './harness'

// The groups_relay family queues a join to a closed group for an admin instead of refusing it.
const {
  stack,
  people: [ada, bob, cy],
} = withStack({ relay: { profile: 'groups_relay' }, people: ['Ada', 'Bob', 'Cy'] })
beforeAll(async () => {
  await stack.relay.createGroup({
    id: 'club',
    name: 'Club',
    about: 'Members only',
    closed: true,
    admins: [ada.pubkey!],
  })
})

describe('join requests', () => {
  test('an admin sees the count and the list, approves in one click (the requester turns member live) and dismisses another', async () => {
    await joinByCode(ada, `${stack.relay.url}'club`)
    await sidebarGroup(ada, 'Club').click()

    // Bob asks from the join dialog: the preview, then the code the closed group asks for.
    await bob.page.getByRole('button', { name: 'Join a group' }).click()
    const dialog = bob.page.getByRole('dialog', { name: 'Join a group' })
    await dialog.getByLabel('Group link or code').fill(`${stack.relay.url}'club`)
    const preview = dialog.getByTestId('group-preview')
    await preview.getByText('Members only').waitFor()
    await preview.getByText(/(\d+ members?|Member list not published) · closed/).waitFor()
    await dialog.getByText('without one your request waits for an admin to approve it').waitFor()
    await dialog.getByLabel('Invite code').fill('from-the-poster')
    await screenshot(bob.page, 'join-preview-closed')
    await dialog.getByRole('button', { name: 'Join', exact: true }).click()
    await dialog.waitFor({ state: 'detached' })
    await bob.page
      .getByTestId('access')
      .getByText('Request sent — an admin of Club must approve it.')
      .waitFor()
    await joinByCode(cy, `${stack.relay.url}'club`)

    // The admin: a count on the group, then the list in the people panel.
    await sidebarGroup(ada, 'Club')
      .and(ada.page.getByRole('button', { name: /2 join requests/ }))
      .waitFor()
    await ada.page.getByRole('button', { name: /^People/ }).click()
    const requests = ada.page.getByRole('list', { name: 'Join requests' })
    const bobRow = requests.getByRole('listitem').filter({ hasText: 'Bob' })
    await bobRow.getByText('code from-the-poster').waitFor()
    await requests.getByRole('listitem').filter({ hasText: 'Cy' }).waitFor()
    await screenshot(ada.page, 'join-requests')

    await bobRow.getByRole('button', { name: 'Approve' }).click()
    await bob.page.getByTestId('access').waitFor({ state: 'detached' })
    expect(await bob.page.getByRole('textbox', { name: 'Message Club' }).isDisabled()).toBe(false)
    expect(stack.relay.state('club')?.members).toContain(bob.pubkey)
    await bobRow.waitFor({ state: 'detached' })
    await ada.page.getByRole('list', { name: 'Members' }).getByText('Bob').waitFor()

    // Dismiss is local and remembered: Cy stays pending on the relay, and gone after a reload.
    await requests
      .getByRole('listitem')
      .filter({ hasText: 'Cy' })
      .getByRole('button', { name: 'Dismiss' })
      .click()
    await requests.waitFor({ state: 'detached' })
    expect(stack.relay.state('club')?.members).not.toContain(cy.pubkey)
    await cy.page
      .getByTestId('access')
      .getByText('Request sent — an admin of Club must approve it.')
      .waitFor()
    await ada.page.reload()
    await sidebarGroup(ada, 'Club').click()
    await ada.page.getByRole('button', { name: /^People/ }).click()
    await ada.page.getByRole('list', { name: 'Members' }).getByText('Bob').waitFor()
    expect(await ada.page.getByRole('list', { name: 'Join requests' }).count()).toBe(0)
    expect(await sidebarGroup(ada, 'Club').getAttribute('aria-label')).toBeNull()
    expect(await sidebarGroup(ada, 'Club').textContent()).not.toMatch(/join request/)

    // A member who is not an admin sees no requests.
    await sidebarGroup(bob, 'Club').click()
    await bob.page.getByRole('button', { name: /^People/ }).click()
    await bob.page.getByRole('list', { name: 'Members' }).getByText('Bob').waitFor()
    expect(await bob.page.getByRole('list', { name: 'Join requests' }).count()).toBe(0)
    expect([...ada.errors, ...bob.errors]).toEqual([])
  })
})
