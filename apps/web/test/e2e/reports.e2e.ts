/**
 * Reports: a member reports a message (or its author) with a reason; the group's admins see the
 * open reports with the message, and delete it, remove the person or dismiss the report from
 * there. Another member never sees a report. The reporter is on a phone, the admin on a desktop.
 */
import { beforeAll, describe, expect, test } from 'vitest'
import {
  joinByCode,
  layoutProblems,
  messageIn,
  newPerson,
  type Person,
  screenshot,
  send,
  seriousViolations,
  sidebarGroup,
  signInWithNsec,
  withStack,
} from './harness'

const PHONE = { width: 375, height: 812 }
const {
  stack,
  people: [ada, bob, cy],
} = withStack({ people: ['Ada', { name: 'Bob', viewport: PHONE, touch: true }, 'Cy'] })
beforeAll(async () => {
  await stack.relay.createGroup({
    id: 'club',
    name: 'Club',
    admins: [ada.pubkey!],
    members: [bob.pubkey!, cy.pubkey!],
  })
  for (const p of [ada, bob, cy]) {
    // On a phone the join button is in the group list's drawer.
    const menu = p.page.getByRole('button', { name: 'Open group list' })
    if (await menu.isVisible()) await menu.click()
    await joinByCode(p, `${stack.relay.url}'club`)
  }
})

/** Opens the report dialog on a message (focus shows its actions, on a phone too). */
async function reportDialog(person: Person, text: string) {
  const row = messageIn(person, text)
  await row.focus()
  await row.getByRole('button', { name: 'Report…' }).click()
  return person.page.getByRole('dialog', { name: 'Report' })
}

async function openPeople(person: Person) {
  await sidebarGroup(person, 'Club').click()
  await person.page.getByRole('button', { name: /^People/ }).click()
}

describe('reports', () => {
  test('a member reports a message with a reason; the admin sees it with the message and deletes it', async () => {
    await send(cy, 'Cheap pills at pills.example')
    await send(cy, 'Hello all')
    await messageIn(bob, 'Cheap pills at pills.example').waitFor()
    // No report button on one's own messages.
    const own = messageIn(cy, 'Hello all')
    await own.hover()
    expect(await own.getByRole('button', { name: 'Report…' }).count()).toBe(0)

    const dialog = await reportDialog(bob, 'Cheap pills at pills.example')
    await dialog.getByLabel('Why').selectOption({ label: 'Spam' })
    await dialog.getByLabel('Details for the admins (optional)').fill('Pill adverts, third time today')
    await screenshot(bob.page, 'report-dialog-phone')
    expect(await seriousViolations(bob.page)).toEqual([])
    await dialog.getByRole('button', { name: 'Send report' }).click()
    await dialog.getByText('Report sent. Only the admins of Club see it.').waitFor()
    await dialog.getByRole('button', { name: 'Close' }).first().click()

    await openPeople(ada)
    const reports = ada.page.getByRole('list', { name: 'Reports' })
    const item = reports.getByRole('listitem').filter({ hasText: 'Pill adverts, third time today' })
    await item.getByText('Cheap pills at pills.example').waitFor()
    await item.getByText('Spam').waitFor()
    await item.getByText(/Bob/).waitFor()
    await screenshot(ada.page, 'reports-admin')
    expect(await seriousViolations(ada.page)).toEqual([])

    // Cy, a plain member, sees no report.
    await openPeople(cy)
    await cy.page.getByRole('list', { name: 'Members' }).getByText('Bob').waitFor()
    expect(await cy.page.getByRole('list', { name: 'Reports' }).count()).toBe(0)

    await item.getByRole('button', { name: 'Delete message' }).click()
    await ada.page.getByText('Message deleted.').waitFor()
    await item.waitFor({ state: 'detached' })
    await messageIn(bob, 'Cheap pills at pills.example').waitFor({ state: 'detached' })
    expect([...ada.errors, ...bob.errors, ...cy.errors]).toEqual([])
  })

  test('a member reports a person; the admin removes them from the report, and dismisses another', async () => {
    await send(cy, 'I am the admin here, send me your keys')
    await messageIn(bob, 'I am the admin here, send me your keys').waitFor()
    const first = await reportDialog(bob, 'I am the admin here, send me your keys')
    await first.getByLabel(/Cy, the person/).check()
    await first.getByLabel('Why').selectOption({ label: 'Impersonation' })
    await first.getByRole('button', { name: 'Send report' }).click()
    await first.getByText(/Report sent/).waitFor()
    await first.getByRole('button', { name: 'Close' }).first().click()

    await send(ada, 'Welcome everyone')
    const second = await reportDialog(bob, 'Welcome everyone')
    await second.getByLabel('Details for the admins (optional)').fill('Just testing the button')
    await second.getByRole('button', { name: 'Send report' }).click()
    await second.getByText(/Report sent/).waitFor()
    await second.getByRole('button', { name: 'Close' }).first().click()

    // Ada's phone: the open reports under People and the invite dialog fit the screen.
    const phone = await newPerson(stack, { viewport: PHONE, touch: true })
    await signInWithNsec(stack, phone, ada.nsec!)
    await phone.page.getByRole('button', { name: 'Open group list' }).click()
    await sidebarGroup(phone, 'Club').click()
    await phone.page.getByRole('button', { name: 'Group actions' }).click()
    await phone.page.getByRole('menuitem', { name: /^People/ }).click()
    const onPhone = phone.page.getByRole('list', { name: 'Reports' })
    await onPhone.getByRole('listitem').filter({ hasText: 'Just testing the button' }).waitFor()
    await onPhone.getByRole('listitem').filter({ hasText: 'Impersonation' }).waitFor()
    await screenshot(phone.page, 'reports-admin-phone')
    expect(await layoutProblems(phone.page, { minTarget: 44 })).toEqual([])
    expect(await seriousViolations(phone.page)).toEqual([])
    await phone.page.getByRole('button', { name: 'Back to Club' }).click()
    await phone.page.getByRole('button', { name: 'Group actions' }).click()
    await phone.page.getByRole('menuitem', { name: 'Invite people…' }).click()
    const invite = phone.page.getByRole('dialog', { name: 'Invite people' })
    await invite.getByLabel('Who can use it').selectOption({ label: 'Anyone with the link' })
    await invite.getByLabel('Expires').selectOption({ label: 'In 1 day' })
    await invite.getByRole('button', { name: 'Create invite link' }).click()
    await invite
      .getByTestId('invite-terms')
      .getByText(/^Admits anyone with the link · expires /)
      .waitFor()
    await screenshot(phone.page, 'invite-terms-phone')
    expect(await layoutProblems(phone.page, { minTarget: 44 })).toEqual([])
    expect(phone.errors).toEqual([])

    const reports = ada.page.getByRole('list', { name: 'Reports' })
    const mistaken = reports.getByRole('listitem').filter({ hasText: 'Just testing the button' })
    await mistaken.getByRole('button', { name: 'Dismiss' }).click()
    await mistaken.waitFor({ state: 'detached' })
    const person = reports.getByRole('listitem').filter({ hasText: 'Impersonation' })
    await person.getByRole('button', { name: 'Remove Cy from the group' }).click()
    await person.waitFor({ state: 'detached' })
    await expect.poll(() => stack.relay.state('club')?.members.includes(cy.pubkey!)).toBe(false)
    // Every report is closed on the relay: none left for any admin.
    await reports.waitFor({ state: 'detached' })
    expect(stack.relay.state('club')?.members).toContain(bob.pubkey)
  })
})
