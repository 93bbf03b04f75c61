import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import {
  joinByCode,
  messageIn,
  newPerson,
  type Person,
  type Stack,
  screenshot,
  screenshotsOnFailure,
  send,
  sidebarGroup,
  signInWithNsec,
  signUp,
  startStack,
} from './harness'

let stack: Stack
let laptop: Person
let phone: Person
let bob: Person
beforeAll(async () => {
  stack = await startStack({ demo: true })
  laptop = await newPerson(stack)
  phone = await newPerson(stack)
  bob = await newPerson(stack)
  await signUp(stack, bob, 'Bob')
  await joinByCode(bob, `${stack.relay.url}'general`)
})
afterAll(async () => {
  await stack?.close()
})
beforeEach(() => screenshotsOnFailure(() => [laptop, phone]))

/** Someone else writes in the group, from their own browser. */
async function postAsBob(texts: string[]): Promise<void> {
  for (const text of texts) {
    await send(bob, text)
    await messageIn(bob, text).waitFor()
  }
}

function badge(person: Person) {
  return sidebarGroup(person, 'General').getByTestId('unread-badge')
}

describe('read state across devices (NIP-RS)', () => {
  test('two browsers with the same key: reading on one clears the badge on the other', async () => {
    await signUp(stack, laptop, 'Ada')
    await joinByCode(laptop, `${stack.relay.url}'general`)
    await messageIn(laptop, 'Welcome to Roost! This is the general channel.').waitFor()
    // Leave the group view so new messages stay unread here.
    await laptop.page.getByRole('button', { name: 'Browse groups' }).click()

    await signInWithNsec(stack, phone, laptop.nsec!)
    await sidebarGroup(phone, 'General').waitFor()

    await postAsBob(['one', 'two', 'three'])
    await expect.poll(() => badge(laptop).textContent(), { timeout: 15_000 }).toMatch(/^3/)
    await expect.poll(() => badge(phone).textContent(), { timeout: 15_000 }).toMatch(/^3/)
    expect(await phone.page.title()).toBe('(3) Roost')
    await screenshot(phone.page, 'unread')

    // Reading on the laptop publishes an encrypted read-state blob; the phone merges it.
    await sidebarGroup(laptop, 'General').click()
    await messageIn(laptop, 'three').waitFor()
    // The "new messages" line sits at the old frontier: Bob's three unread messages follow it,
    // everything read before precedes it (same-second messages order by id, so any of them may be first).
    const order = await laptop.page
      .getByRole('log', { name: 'Messages' })
      .evaluate((log) =>
        [...log.querySelectorAll('.timeline-row')].map((row) =>
          row.querySelector('.new-line') ? '<new>' : (row.querySelector('.body')?.textContent ?? ''),
        ),
      )
    const line = order.indexOf('<new>')
    expect(line).toBeGreaterThan(0)
    for (const word of ['one', 'two', 'three']) expect(order.indexOf(word)).toBeGreaterThan(line)
    const welcome = order.indexOf('Welcome to Roost! This is the general channel.')
    expect(welcome).toBeGreaterThanOrEqual(0)
    expect(welcome).toBeLessThan(line)
    await badge(laptop).waitFor({ state: 'detached' })
    await badge(phone).waitFor({ state: 'detached', timeout: 20_000 })
    expect(await phone.page.title()).toBe('Roost')
  })
})
