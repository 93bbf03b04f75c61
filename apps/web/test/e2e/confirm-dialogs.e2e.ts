import { describe, expect, test } from 'vitest'
import {
  joinByCode,
  layoutProblems,
  messageIn,
  newPerson,
  type Person,
  screenshot,
  send,
  sidebarGroup,
  signInWithNsec,
  withStack,
} from './harness'

/**
 * Destructive actions ask once, in the app's own dialog (never the browser's confirm()): deleting
 * a message, and removing a member, which takes an admin's roles in the same step. A group that
 * removed someone offers them "Remove from my list", which their other devices follow.
 */
const {
  stack,
  people: [ada, bob],
} = withStack({ people: ['Ada', { name: 'Bob', viewport: { width: 375, height: 740 }, touch: true }] })

/** The browser's own dialogs a page opened: none may appear. */
function nativeDialogs(person: Person): string[] {
  const seen: string[] = []
  person.page.on('dialog', (d) => seen.push(`${d.type()}: ${d.message()}`))
  return seen
}

let groupId = ''

describe('confirmations in the app', () => {
  test('deleting a message asks in the app dialog; Escape keeps it, the button deletes it', async () => {
    groupId = await stack.relay.createGroup({ name: 'Club', admins: [ada.pubkey!, bob.pubkey!] })
    const natives = [...nativeDialogs(ada), ...nativeDialogs(bob)]
    await joinByCode(ada, `${stack.relay.url}'${groupId}`)
    await bob.page.setViewportSize({ width: 1280, height: 800 })
    await joinByCode(bob, `${stack.relay.url}'${groupId}`)
    await stack.relay.createGroup({ id: 'lobby', name: 'Lobby' })
    await joinByCode(bob, `${stack.relay.url}'lobby`)
    await sidebarGroup(bob, 'Club').click()
    await bob.page.setViewportSize({ width: 375, height: 740 })
    await send(bob, 'Oops, wrong group')
    const row = messageIn(ada, 'Oops, wrong group')
    await row.hover()
    await row.getByRole('button', { name: 'Delete message' }).click()
    const dialog = ada.page.getByRole('dialog', { name: 'Delete message' })
    await dialog.getByText('Delete this message for everyone?').waitFor()
    await screenshot(ada.page, 'confirm-delete-message')
    await ada.page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    expect(await messageIn(ada, 'Oops, wrong group').count()).toBe(1)

    // Bob deletes his own from the phone, with the keyboard.
    const own = messageIn(bob, 'Oops, wrong group')
    await own.focus()
    await bob.page.keyboard.press('Enter')
    await own.getByRole('button', { name: 'Delete message' }).focus()
    await bob.page.keyboard.press('Enter')
    const phoneDialog = bob.page.getByRole('dialog', { name: 'Delete message' })
    await phoneDialog.waitFor()
    await screenshot(bob.page, 'confirm-delete-message-phone')
    expect(await layoutProblems(bob.page, { minTarget: 44 })).toEqual([])
    await phoneDialog.getByRole('button', { name: 'Delete for everyone' }).focus()
    await bob.page.keyboard.press('Enter')
    await phoneDialog.waitFor({ state: 'detached' })
    await messageIn(ada, 'Oops, wrong group').waitFor({ state: 'detached' })
    expect(natives).toEqual([])
  })

  test('removing an admin is one confirmed step that takes their roles; they can take the group off their list', async () => {
    const natives = nativeDialogs(ada)
    const { page } = ada
    await page.getByRole('button', { name: /^People/ }).click()
    const admins = page.getByRole('list', { name: 'Admins' })
    await admins
      .getByRole('listitem')
      .filter({ hasText: 'Bob' })
      .getByRole('button', { name: 'Remove' })
      .click()
    const dialog = page.getByRole('dialog', { name: 'Remove member' })
    await dialog.getByText(/Bob is an admin \(admin\): the roles are taken too/).waitFor()
    await screenshot(page, 'confirm-remove-admin')
    await dialog.getByRole('button', { name: 'Remove Bob' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect.poll(() => stack.relay.state(groupId)?.members.includes(bob.pubkey!)).toBe(false)
    expect(stack.relay.state(groupId)?.admins.map((a) => a.pubkey)).not.toContain(bob.pubkey)
    await admins.getByText('Bob').waitFor({ state: 'detached' })
    expect(natives).toEqual([])

    // Bob: "Not a member", and "Remove from my list" in the group list.
    await bob.page.getByRole('button', { name: 'Open group list' }).click()
    const entry = sidebarGroup(bob, 'Club')
    await entry.getByText('Not a member').waitFor()
    await screenshot(bob.page, 'not-a-member-phone')
    expect(await layoutProblems(bob.page, { minTarget: 44 })).toEqual([])
    await bob.page.getByRole('button', { name: 'Remove Club from my list' }).click()
    await entry.waitFor({ state: 'detached' })
    // Another device of Bob's reads his list (10009) from the relay: Club is not on it.
    const other = await newPerson(stack)
    await signInWithNsec(stack, other, bob.nsec!)
    await sidebarGroup(other, 'Lobby').waitFor()
    expect(await sidebarGroup(other, 'Club').count()).toBe(0)
    expect([...ada.errors, ...bob.errors, ...other.errors]).toEqual([])
  })
})
