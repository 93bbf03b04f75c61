import { describe, expect, test } from 'vitest'
import { joinByCode, messageIn, type Person, screenshot, send, sidebarGroup, withStack } from './harness'

const {
  stack,
  people: [ada, bob],
} = withStack({ people: ['Ada', 'Bob'] })
let groupId = ''

async function groupMenu(person: Person, item: string) {
  await person.page.getByRole('button', { name: 'Group actions' }).click()
  await person.page.getByRole('menuitem', { name: item }).click()
}

describe('running a community', () => {
  test('"Copy link" gives the naddr and a web link that opens the join dialog with a preview', async () => {
    const { page } = ada
    await page.getByRole('button', { name: 'Create a group' }).first().click()
    const create = page.getByRole('dialog', { name: 'Create a group' })
    await create.getByLabel('Name').fill('Garden')
    await create.getByLabel('About').fill('Seeds and soil')
    await create.getByRole('button', { name: 'Create group' }).click()
    await page.getByRole('heading', { name: /Garden/ }).waitFor()
    groupId = decodeURIComponent(new URL(page.url()).hash).split("'").pop() ?? ''

    await groupMenu(ada, 'Copy link…')
    const share = page.getByRole('dialog', { name: 'Share this group' })
    const naddr = await share.getByLabel('Group link (naddr)').inputValue()
    expect(naddr).toMatch(/^naddr1[a-z0-9]+$/)
    const web = await share.getByLabel(/Web link/).inputValue()
    expect(web).toBe(`${stack.base}/#/join/${encodeURIComponent(naddr)}`)
    expect(await share.textContent()).not.toContain(`'${groupId}`) // no legacy relay'id code
    await share.getByRole('button', { name: 'Close' }).click()

    await bob.page.goto(web)
    const join = bob.page.getByRole('dialog', { name: 'Join a group' })
    const preview = join.getByTestId('group-preview')
    await preview.getByRole('heading', { name: 'Garden' }).waitFor()
    await preview.getByText('Seeds and soil').waitFor()
    await preview.getByText(/1 member · open/).waitFor()
    await screenshot(bob.page, 'join-preview')
    await join.getByRole('button', { name: 'Join', exact: true }).click()
    await bob.page.getByRole('heading', { name: /Garden/ }).waitFor()
    await expect.poll(() => stack.relay.state(groupId)?.members.includes(bob.pubkey!)).toBe(true)
  })

  test('roles from 39003 with descriptions; an admin assigns and removes a role; a member gets no admin controls', async () => {
    const { page } = ada
    await page.getByRole('button', { name: /^People/ }).click()
    const people = page.getByRole('complementary', { name: 'People' })
    await people.getByText('Can add and remove members without roles').waitFor()
    const bobRow = people
      .getByRole('list', { name: 'Members' })
      .getByRole('listitem')
      .filter({ hasText: 'Bob' })
    await bobRow.getByRole('button', { name: 'Roles…' }).click()
    await bobRow.getByLabel('moderator').check()
    await bobRow.getByRole('button', { name: 'Save roles' }).click()
    await expect
      .poll(() => stack.relay.state(groupId)?.admins.find((a) => a.pubkey === bob.pubkey)?.roles)
      .toEqual(['moderator'])
    // Bob now has a role: listed under Admins with it, for both of them.
    const admins = people.getByRole('list', { name: 'Admins' })
    const modRow = admins.getByRole('listitem').filter({ hasText: 'Bob' })
    await modRow.getByText('moderator').waitFor()
    await screenshot(page, 'roles')
    await bob.page.getByRole('button', { name: /^People/ }).click()
    const bobPeople = bob.page.getByRole('complementary', { name: 'People' })
    await bobPeople
      .getByRole('list', { name: 'Admins' })
      .locator('.role[title^="Can add and remove members"]')
      .waitFor()
    await bob.page.getByRole('button', { name: /^People/ }).click()

    // Removing it: a 9000 with no role; the relay's answer shows while he is still listed.
    await modRow.getByRole('button', { name: 'Roles…' }).click()
    await modRow.getByLabel('moderator').uncheck()
    await modRow.getByRole('button', { name: 'Save roles' }).click()
    await expect
      .poll(() => stack.relay.state(groupId)?.admins.some((a) => a.pubkey === bob.pubkey))
      .toBe(false)
    await people.getByRole('list', { name: 'Members' }).getByText('Bob').waitFor()
    // A member has no role editor.
    await bob.page.getByRole('button', { name: /^People/ }).click()
    await bobPeople.getByRole('list', { name: 'Members' }).getByText('Bob').waitFor()
    expect(await bobPeople.getByRole('button', { name: 'Roles…' }).count()).toBe(0)
    await bob.page.getByRole('button', { name: /^People/ }).click()
    await page.getByRole('button', { name: /^People/ }).click()
  })

  test('an admin edits the flags (9002); the relay applies them and the header shows them', async () => {
    await groupMenu(ada, 'Edit group…')
    const dialog = ada.page.getByRole('dialog', { name: 'Edit group' })
    await dialog.getByLabel(/Restricted/).check()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.getByText('Saved.').waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    await expect.poll(() => stack.relay.state(groupId)?.restricted).toBe(true)
    await bob.page.locator('.group-head .chip', { hasText: 'restricted' }).waitFor()
    await groupMenu(ada, 'Edit group…')
    await dialog.getByLabel(/Restricted/).uncheck()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.getByText('Saved.').waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    await expect.poll(() => stack.relay.state(groupId)?.restricted).toBe(false)
  })

  test('pins: an admin pins from the message menu, both see the bar; a member cannot pin; unpin from the bar', async () => {
    await send(bob, 'Watering schedule: Tuesdays')
    const row = messageIn(ada, 'Watering schedule: Tuesdays')
    await row.hover()
    await row.getByRole('button', { name: 'Pin message' }).click()
    const adaBar = ada.page.getByRole('region', { name: 'Pinned messages' })
    await adaBar.getByText('Watering schedule: Tuesdays').waitFor()
    const bobBar = bob.page.getByRole('region', { name: 'Pinned messages' })
    await bobBar.getByText('Watering schedule: Tuesdays').waitFor()
    expect(stack.relay.state(groupId)?.pins).toHaveLength(1)
    await screenshot(ada.page, 'pins')
    // Bob is a plain member: no pin button, no unpin in the bar.
    const bobRow = messageIn(bob, 'Watering schedule: Tuesdays')
    await bobRow.hover()
    expect(await bobRow.getByRole('button', { name: /Pin message|Unpin message/ }).count()).toBe(0)
    expect(await bobBar.getByRole('button', { name: /^Unpin/ }).count()).toBe(0)

    await adaBar.getByRole('button', { name: /^Unpin/ }).click()
    await bobBar.waitFor({ state: 'detached' })
    expect(stack.relay.state(groupId)?.pins ?? []).toHaveLength(0)
  })

  test('subgroups: an admin creates one and moves a group; the sidebar shows the tree; Move offers only the parents the relay accepts', async () => {
    const { page } = ada
    await groupMenu(ada, 'New subgroup…')
    const dialog = page.getByRole('dialog', { name: 'New subgroup' })
    await dialog.getByLabel('Subgroup name').fill('Tomatoes')
    await dialog.getByRole('button', { name: 'Create subgroup' }).click()
    await dialog.getByText('Subgroup created under Garden.').waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    const tomatoes = sidebarGroup(ada, 'Tomatoes')
    await tomatoes.waitFor()
    await expect.poll(() => tomatoes.getAttribute('class')).toContain('child')
    const childId = (await tomatoes.getAttribute('data-group'))?.split("'").pop() ?? ''
    expect(stack.relay.state(childId)?.parent).toBe(groupId)
    expect(stack.relay.state(groupId)?.children).toEqual([childId])
    // The tree order: the subgroup right after its parent.
    const order = await page
      .getByRole('navigation', { name: 'Groups' })
      .locator('.group-item')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-group')))
    expect(order.indexOf(`${stack.relay.url}'${childId}`)).toBe(
      order.indexOf(`${stack.relay.url}'${groupId}`) + 1,
    )
    await screenshot(page, 'subgroups')

    // Move offers only the parents the relay accepts: not Garden's own subgroup (a loop), not Porch,
    // where Ada is a member but no admin.
    await stack.relay.createGroup({ id: 'porch', name: 'Porch', members: [ada.pubkey!] })
    await joinByCode(ada, `${stack.relay.url}'porch`)
    await sidebarGroup(ada, 'Porch').waitFor()
    await sidebarGroup(ada, 'Garden').click()
    await groupMenu(ada, 'Move group…')
    const move = page.getByRole('dialog', { name: 'Move group' })
    const parents = () => move.getByLabel('Parent group').locator('option').allTextContents()
    expect(await parents()).toEqual(['None (top level)'])
    await move.getByText('You are an admin of no other group on this relay').waitFor()
    await screenshot(page, 'move-group-none')
    await move.getByRole('button', { name: 'Close' }).click()

    // Tomatoes to the top level (Garden is the one other parent it could have).
    await tomatoes.click()
    await groupMenu(ada, 'Move group…')
    expect(await parents()).toEqual(['None (top level)', 'Garden'])
    await move.getByLabel('Parent group').selectOption({ label: 'None (top level)' })
    await move.getByRole('button', { name: 'Move' }).click()
    await move.getByText('Moved.').waitFor()
    await expect.poll(() => stack.relay.state(childId)?.parent).toBeUndefined()
    await move.getByRole('button', { name: 'Close' }).click()
    await expect.poll(() => tomatoes.getAttribute('class')).not.toContain('child')

    // Bob, a member, has none of the admin entries.
    await bob.page.getByRole('button', { name: 'Group actions' }).click()
    expect(
      await bob.page.getByRole('menuitem', { name: /New subgroup|Move group|Delete group/ }).count(),
    ).toBe(0)
    await bob.page.keyboard.press('Escape')
  })

  test('deleting a group needs its name typed; it goes away for the admin and the relay', async () => {
    const { page } = ada
    await sidebarGroup(ada, 'Tomatoes').click()
    await groupMenu(ada, 'Delete group…')
    const dialog = page.getByRole('dialog', { name: 'Delete group' })
    const confirm = dialog.getByRole('button', { name: 'Delete group' })
    expect(await confirm.isDisabled()).toBe(true)
    await dialog.getByLabel(/Type the group name/).fill('Tomato')
    expect(await confirm.isDisabled()).toBe(true)
    await dialog.getByLabel(/Type the group name/).fill('Tomatoes')
    const childId = decodeURIComponent(new URL(page.url()).hash).split("'").pop() ?? ''
    await confirm.click()
    await sidebarGroup(ada, 'Tomatoes').waitFor({ state: 'detached' })
    expect(stack.relay.state(childId)?.deleted).toBe(true)
    await page.waitForFunction(() => location.hash === '#/')
    expect([...ada.errors, ...bob.errors]).toEqual([])
  })
})
