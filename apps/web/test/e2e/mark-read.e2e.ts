import { describe, expect, test } from 'vitest'
import { newPerson, type Person, screenshot, send, sidebarGroup, signInWithNsec, withStack } from './harness'

/**
 * "Mark all as read", for one group (its menu) and for every group (the sidebar), goes through
 * read state: a second device of the same account sees the badges go too.
 */
const {
  stack,
  people: [ada, bob],
} = withStack({
  seed: async (stack) => {
    await stack.relay.createGroup({ id: 'talk', name: 'Talk' })
    await stack.relay.createGroup({ id: 'lobby', name: 'Lobby' })
    await stack.relay.createGroup({ id: 'quiet', name: 'Quiet' })
  },
  people: [
    { name: 'Ada', join: ['talk', 'lobby', 'quiet'] },
    { name: 'Bob', join: ['talk', 'lobby'] },
  ],
})

/** The tab looks hidden: the open group is not read while nobody looks. */
async function hide(person: Person) {
  await person.page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true })
    Object.defineProperty(document, 'hidden', { value: true, configurable: true })
    document.dispatchEvent(new Event('visibilitychange'))
  })
}

const badge = (person: Person, group: string) => sidebarGroup(person, group).getByTestId('unread-badge')

describe('mark all as read', () => {
  test('a group from its menu, and every group from the sidebar, on both devices', async () => {
    const laptop = await newPerson(stack)
    await signInWithNsec(stack, laptop, ada.nsec!)
    await sidebarGroup(laptop, 'Quiet').click()
    await sidebarGroup(ada, 'Talk').click()
    await ada.page.getByRole('heading', { name: 'Talk' }).waitFor()
    await sidebarGroup(bob, 'Talk').click()
    await bob.page.getByRole('heading', { name: 'Talk' }).waitFor()
    await hide(ada)
    await hide(laptop)

    await send(bob, 'Talk one')
    await send(bob, 'Talk two')
    for (const person of [ada, laptop]) await badge(person, 'Talk').filter({ hasText: '2' }).waitFor()
    await ada.page.getByRole('button', { name: 'Group actions' }).click()
    await ada.page.getByRole('menuitem', { name: 'Mark all as read' }).click()
    for (const person of [ada, laptop]) await badge(person, 'Talk').waitFor({ state: 'detached' })

    await sidebarGroup(bob, 'Lobby').click()
    await bob.page.getByRole('heading', { name: 'Lobby' }).waitFor()
    await send(bob, 'Lobby news')
    await sidebarGroup(bob, 'Talk').click()
    await bob.page.getByRole('heading', { name: 'Talk' }).waitFor()
    await send(bob, 'More talk')
    for (const person of [ada, laptop]) {
      await badge(person, 'Lobby').waitFor()
      await badge(person, 'Talk').waitFor()
    }
    await screenshot(ada.page, 'mark-all-read-before')
    await ada.page.getByRole('navigation', { name: 'Groups' }).waitFor()
    await ada.page
      .getByRole('complementary', { name: 'Groups' })
      .getByRole('button', { name: 'Mark all as read' })
      .click()
    for (const person of [ada, laptop]) {
      await badge(person, 'Lobby').waitFor({ state: 'detached' })
      await badge(person, 'Talk').waitFor({ state: 'detached' })
    }
    await ada.page
      .getByRole('complementary', { name: 'Groups' })
      .getByRole('button', { name: 'Mark all as read' })
      .waitFor({ state: 'detached' })
    expect([...ada.errors, ...laptop.errors]).toEqual([])
  })
})
