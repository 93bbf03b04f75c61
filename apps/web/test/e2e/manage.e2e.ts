import { describe, expect, test } from 'vitest'
import { joinByCode, messageIn, screenshot, send, sidebarGroup, withStack } from './harness'

const {
  stack,
  people: [ada, bob],
} = withStack({ relay: { demo: true }, people: ['Ada', 'Bob'] })

let groupId = ''

describe('creating, inviting, moderating and leaving', () => {
  test('create a closed group (9007, 9002, join) and invite a second person by link', async () => {
    const { page } = ada
    await page.getByRole('button', { name: 'Create a group' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'Create a group' })
    await dialog.getByLabel('Name').fill('Book club')
    await dialog.getByLabel('About').fill('One chapter a week')
    await dialog.getByLabel(/Closed/).check()
    await screenshot(page, 'create-group')
    await dialog.getByRole('button', { name: 'Create group' }).click()
    await page.getByRole('heading', { name: /Book club/ }).waitFor()
    await sidebarGroup(ada, 'Book club').waitFor()
    groupId = decodeURIComponent(new URL(page.url()).hash).split("'").pop() ?? ''
    const state = stack.relay.state(groupId)
    expect(state?.name).toBe('Book club')
    expect(state?.closed).toBe(true)
    expect(state?.admins.map((a) => a.pubkey)).toContain(ada.pubkey)

    // Admin menu: invite link.
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Invite people…' }).click()
    await page.getByRole('button', { name: 'Create invite link' }).click()
    const linkBox = page.getByLabel('Invite link')
    await linkBox.waitFor()
    const link = await linkBox.inputValue()
    expect(link).toMatch(/^naddr1[a-z0-9]+\?invite=[0-9a-f]+$/)
    await screenshot(page, 'invite')
    const web = await page.getByLabel(/Web link/).inputValue()
    expect(web).toBe(`${stack.base}/#/join/${encodeURIComponent(link)}`)
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
    // Bob opens the web link: the join dialog comes up with the invite filled in.
    await bob.page.goto(web)
    const join = bob.page.getByRole('dialog', { name: 'Join a group' })
    expect(await join.getByLabel('Group link or code').inputValue()).toBe(link)
    await join.getByRole('button', { name: 'Join', exact: true }).click()
    await bob.page.getByRole('heading', { name: /Book club/ }).waitFor()
    await expect.poll(() => stack.relay.state(groupId)?.members.includes(bob.pubkey!)).toBe(true)
    await send(bob, 'Chapter one was great')
    await messageIn(ada, 'Chapter one was great').waitFor()
  })

  test('an admin edits the metadata, deletes a message and removes a member; each shows the relay answer', async () => {
    const { page } = ada
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Edit group…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit group' })
    await dialog.getByLabel('About').fill('Two chapters a week')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.getByText('Saved.').waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    await page.locator('.group-head').getByText('Two chapters a week').waitFor()
    await bob.page.locator('.group-head').getByText('Two chapters a week').waitFor()

    // Bob is not an admin: no admin entries in his menu.
    await bob.page.getByRole('button', { name: 'Group actions' }).click()
    expect(await bob.page.getByRole('menuitem', { name: 'Edit group…' }).count()).toBe(0)
    await bob.page.keyboard.press('Escape')

    // Delete a message for everyone (9005): it disappears on both sides.
    await send(bob, 'Spoilers: the butler did it')
    const spoiler = messageIn(ada, 'Spoilers: the butler did it')
    await spoiler.hover()
    await spoiler.getByRole('button', { name: 'Delete message' }).click()
    await page
      .getByRole('dialog', { name: 'Delete message' })
      .getByRole('button', { name: 'Delete for everyone' })
      .click()
    await page.getByText('Message deleted.').waitFor()
    await messageIn(bob, 'Spoilers: the butler did it').waitFor({ state: 'detached' })
    expect(await messageIn(bob, 'Chapter one was great').count()).toBe(1)

    await page.getByRole('button', { name: /^People/ }).click()
    const people = page.getByRole('complementary', { name: 'People' })
    await people.getByText('Bob').waitFor()
    await screenshot(page, 'people')
    await people
      .getByRole('listitem')
      .filter({ hasText: 'Bob' })
      .getByRole('button', { name: 'Remove' })
      .click()
    await page
      .getByRole('dialog', { name: 'Remove member' })
      .getByRole('button', { name: 'Remove Bob' })
      .click()
    await people.getByText('Member removed.').waitFor()
    await expect.poll(() => stack.relay.state(groupId)?.members.includes(bob.pubkey!)).toBe(false)
    await bob.page.getByTestId('access').getByText('You are not a member of this group.').waitFor()
    await bob.page
      .getByRole('navigation', { name: 'Groups' })
      .getByRole('button', { name: 'Book club Not a member' })
      .waitFor()
  })

  test('leaving a group removes it from the sidebar, and it stays gone after a reload', async () => {
    const { page } = ada
    await joinByCode(ada, `${stack.relay.url}'general`)
    await sidebarGroup(ada, 'General').waitFor()
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Leave group' }).click()
    // Asked in the app's own dialog, never the browser's confirm().
    const dialog = page.getByRole('dialog', { name: 'Leave group' })
    await dialog.getByText('Leave General?').waitFor()
    await dialog.getByRole('button', { name: 'Leave group' }).click()
    await sidebarGroup(ada, 'General').waitFor({ state: 'detached' })
    // The app goes home once the leave is complete (9022 answered, cache wiped, 10009 published).
    await page.waitForFunction(() => location.hash === '#/')
    await page.reload()
    await sidebarGroup(ada, 'Book club').waitFor()
    expect(await sidebarGroup(ada, 'General').count()).toBe(0)
    expect(ada.errors).toEqual([])
  })
})
