import { LocalSigner, MemoryEventStore, ReadStateSync, RelayPool } from '@roost/client'
import { messageContext } from '@roost/read-state'
import { describe, expect, test } from 'vitest'
import {
  joinByCode,
  messageIn,
  type Person,
  screenshot,
  send,
  sidebarGroup,
  signInWithNsec,
  signUp,
  withStack,
} from './harness'

// Two devices of one user, signed in by the tests; Bob writes in General.
const {
  stack,
  people: [laptop, phone, bob],
} = withStack({ relay: { demo: true }, people: [{}, {}, { name: 'Bob', join: ['general'] }] })

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

  test('a thread reply read on another device (a msg: mark from another client) clears the thread dot here', async () => {
    // Bob starts a thread and replies in it while the laptop and the phone watch the group.
    await sidebarGroup(phone, 'General').click()
    const { page } = bob
    await page.getByRole('button', { name: 'Group actions' }).click()
    await page.getByRole('menuitem', { name: 'Start a thread…' }).click()
    await page.getByLabel('Title').fill('Ferry times')
    await page.getByLabel('First post').fill('Which ferry on Sunday?')
    await page.getByRole('button', { name: 'Start thread' }).click()
    const root = page
      .getByRole('log', { name: 'Messages' })
      .getByRole('article', { name: 'Thread: Ferry times' })
    for (const device of [laptop, phone])
      await device.page
        .getByRole('log', { name: 'Messages' })
        .getByRole('article', { name: 'Thread: Ferry times' })
        .waitFor()
    // One-second read marks: the reply goes out after the second the devices saw the root in.
    await page.waitForTimeout(1100)
    await root.getByRole('button', { name: /Reply in thread/ }).click()
    const box = page.getByRole('textbox', { name: 'Reply in thread' })
    await box.fill('The 9:40 one')
    await box.press('Enter')
    const reply = page
      .getByRole('complementary', { name: /Thread: Ferry times/ })
      .locator('[data-reply-id]', { hasText: 'The 9:40 one' })
    await reply.waitFor()
    const replyId = (await reply.getAttribute('data-reply-id')) ?? ''
    expect(replyId).toMatch(/^[0-9a-f]{64}$/)
    await page.getByRole('button', { name: 'Close thread' }).click()

    const dots = [laptop, phone].map((d) => sidebarGroup(d, 'General').getByTitle('New thread replies'))
    for (const dot of dots) await dot.waitFor({ timeout: 15_000 })

    // Another NIP-RS client of the same user reads just that reply: it writes only a `msg:` mark.
    const pool = new RelayPool({ signer: LocalSigner.fromSecret(laptop.nsec!) })
    const other = new ReadStateSync({
      pool,
      signer: LocalSigner.fromSecret(laptop.nsec!),
      store: new MemoryEventStore(),
      relays: [stack.relay.url],
    })
    try {
      await other.ready
      other.markRead(messageContext(replyId), Math.floor(Date.now() / 1000))
      await other.flush()
      for (const dot of dots) await dot.waitFor({ state: 'detached', timeout: 20_000 })
    } finally {
      await other.close()
      pool.close()
    }
  })
})
