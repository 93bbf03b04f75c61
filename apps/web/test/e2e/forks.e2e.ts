import { type RelayHandle, startRelay } from '@roost/relay'
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from 'nostr-tools'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { joinByCode, messageIn, screenshot, withStack } from './harness'

/** The group's admin, who copies and then moves it; a key outside the browser. */
const admin = generateSecretKey()
const adminPk = getPublicKey(admin)

const {
  stack,
  people: [bob],
} = withStack({ people: ['Bob'] })
let other: RelayHandle
let groupId = ''
let listAt = Math.floor(Date.now() / 1000)

/** Publishes over a plain WebSocket and resolves on the relay's OK true. */
function publishTo(url: string, event: NostrEvent): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.on('open', () => ws.send(JSON.stringify(['EVENT', event])))
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as unknown[]
      if (msg[0] !== 'OK' || msg[1] !== event.id) return
      ws.close()
      if (msg[2] === true) resolve()
      else reject(new Error(`refused: ${String(msg[3])}`))
    })
    ws.on('error', reject)
  })
}

/** The admin's kind 10009 naming the group on these relays (each newer than the last). */
function adminList(relays: string[]): NostrEvent {
  listAt += 2
  const tags = relays.flatMap((r) => [
    ['group', groupId, r, 'Pizza'],
    ['r', r],
  ])
  return finalizeEvent({ kind: 10009, created_at: listAt, tags, content: '' }, admin)
}

beforeAll(async () => {
  other = await startRelay({ port: 0, host: '127.0.0.1', db: ':memory:' })
  groupId = await stack.relay.createGroup({ name: 'Pizza', admins: [adminPk], members: [bob.pubkey ?? ''] })
  // The same id on the other relay: a copy with its own history.
  await other.createGroup({ id: groupId, name: 'Pizza', admins: [adminPk] })
  await publishTo(
    other.url,
    finalizeEvent(
      {
        kind: 9,
        created_at: Math.floor(Date.now() / 1000),
        tags: [['h', groupId]],
        content: 'over on the copy',
      },
      admin,
    ),
  )
})
afterAll(async () => {
  await other?.close()
})

describe('moved or copied groups (admins’ 10009)', () => {
  test('"also lives on", then "moved", with evidence; following keeps the two apart', async () => {
    const { page } = bob
    await joinByCode(bob, `${stack.relay.url}'${groupId}`)
    await page.getByRole('heading', { name: /Pizza/ }).waitFor()
    await page.getByRole('textbox', { name: /^Message Pizza/ }).fill('here on the home relay')
    await page.getByRole('textbox', { name: /^Message Pizza/ }).press('Enter')
    await messageIn(bob, 'here on the home relay').waitFor()

    // The admin lists the group on both relays.
    await publishTo(stack.relay.url, adminList([stack.relay.url, other.url]))
    const banner = page.getByTestId('fork-banner')
    await banner.getByText(`This group also lives on ${other.url}`).waitFor()
    await banner.getByText('Evidence: the admins').click()
    await banner.getByText(new RegExp(`lists it on ${stack.relay.url}, ${other.url}`)).waitFor()
    await screenshot(page, 'fork-also-lives-on')

    // Then only on the other relay: the group moved.
    await publishTo(stack.relay.url, adminList([other.url]))
    await banner.getByText(`This group moved to ${other.url}`).waitFor()
    await screenshot(page, 'fork-moved')

    // Following adds the other relay's group as its own entry with its own timeline.
    await banner.getByRole('button', { name: /^Follow it on / }).click()
    await banner.getByText('You follow it there too.').waitFor()
    const entries = page.getByRole('navigation', { name: 'Groups' }).getByRole('button', { name: /^Pizza/ })
    await expect.poll(() => entries.count(), { timeout: 30_000 }).toBe(2)
    expect(await messageIn(bob, 'over on the copy').count()).toBe(0)
    await entries.nth(1).click()
    await page.waitForFunction((other) => decodeURIComponent(location.hash).includes(other), other.url)
    await messageIn(bob, 'over on the copy').waitFor()
    expect(await messageIn(bob, 'here on the home relay').count()).toBe(0)
    // Back on the home relay's group, its timeline is unchanged.
    await entries.nth(0).click()
    await page.waitForFunction((home) => decodeURIComponent(location.hash).includes(home), stack.relay.url)
    await messageIn(bob, 'here on the home relay').waitFor()
    expect(await messageIn(bob, 'over on the copy').count()).toBe(0)
    expect(bob.errors).toEqual([])
  })
})
