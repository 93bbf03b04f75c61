import { nip19 } from 'nostr-tools'
import { beforeAll, describe, expect, test } from 'vitest'
import { joinByCode, messageIn, newPerson, type Person, screenshot, send, signUp, withStack } from './harness'
import { png } from './media-files'

const {
  stack,
  people: [ada, bob],
} = withStack({ people: ['Ada', 'Bob'] })
let groupId: string
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/

beforeAll(async () => {
  groupId = await stack.relay.createGroup({ name: 'People', admins: [ada.pubkey!], members: [bob.pubkey!] })
  await joinByCode(ada, `${stack.relay.url}'${groupId}`)
  await joinByCode(bob, `${stack.relay.url}'${groupId}`)
})

function card(person: Person) {
  return person.page.getByRole('dialog', { name: 'Profile' })
}

describe('people', () => {
  test('clicking a name or an avatar opens the profile card: name, npub with copy, roles in this group', async () => {
    await send(bob, 'hi from bob')
    const row = messageIn(ada, 'hi from bob')
    await row.getByRole('button', { name: 'Bob', exact: true }).click()
    const c = card(ada)
    await c.waitFor()
    await c.getByText('Bob', { exact: true }).waitFor()
    expect(await c.getByTestId('profile-npub').textContent()).toBe(nip19.npubEncode(bob.pubkey!))
    expect(await c.getByRole('list', { name: 'Roles in this group' }).textContent()).toBe('member')
    await ada.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.base })
    await c.getByRole('button', { name: 'Copy npub' }).click()
    await c.getByRole('button', { name: 'Copied' }).waitFor()
    expect(await ada.page.evaluate(() => navigator.clipboard.readText())).toBe(nip19.npubEncode(bob.pubkey!))
    await screenshot(ada.page, 'profile-card')
    await ada.page.keyboard.press('Escape')
    await c.waitFor({ state: 'detached' })

    // Bob opens Ada's card from her avatar: she is the group's admin.
    await send(ada, 'hello bob')
    await messageIn(bob, 'hello bob').getByRole('button', { name: 'Profile of Ada' }).click()
    await card(bob).getByRole('list', { name: 'Roles in this group' }).getByText('admin').waitFor()
    await bob.page.keyboard.press('Escape')
  })

  test('edit your own profile: name, a picture uploaded to Blossom, about; the other person sees it', async () => {
    await messageIn(ada, 'hello bob').getByRole('button', { name: 'Ada', exact: true }).click()
    const c = card(ada)
    await c.getByRole('button', { name: 'Edit profile' }).click()
    await c.getByLabel('Display name').fill('Ada L.')
    await c.getByLabel('About').fill('Counts things.')
    await c
      .locator('input[aria-label="Upload a picture"]')
      .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png(64, 64, 5) })
    await expect
      .poll(() => c.getByLabel('Picture URL').inputValue())
      .toMatch(new RegExp(`^${stack.relay.mediaUrl}/[0-9a-f]{64}\\.png$`))
    await c.getByRole('button', { name: 'Save profile' }).click()
    await c.getByText('Profile published.').waitFor()
    await ada.page.keyboard.press('Escape')

    // Bob's timeline follows live: he opens nothing and reloads nothing.
    const row = messageIn(bob, 'hello bob')
    await row.getByRole('button', { name: 'Ada L.', exact: true }).waitFor()
    await row.getByRole('button', { name: 'Profile of Ada L.', exact: true }).click()
    const seen = card(bob)
    await seen.getByText('Counts things.').waitFor()
    await seen.getByText('Ada L.', { exact: true }).waitFor()
    const picture = seen.locator('img.avatar')
    await expect
      .poll(() => picture.getAttribute('src'))
      .toMatch(new RegExp(`^${stack.relay.mediaUrl}/[0-9a-f]{64}\\.png$`))
    await expect.poll(() => picture.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(64)
    await bob.page.keyboard.press('Escape')
  })

  test('two people with the same display name are told apart by an npub suffix', async () => {
    const other = await newPerson(stack)
    await signUp(stack, other, 'Bob')
    await joinByCode(other, `${stack.relay.url}'${groupId}`)
    await send(other, 'me too')
    const first = messageIn(ada, 'hi from bob').getByTestId('npub-suffix')
    const second = messageIn(ada, 'me too').getByTestId('npub-suffix')
    await first.waitFor()
    await second.waitFor()
    expect((await first.textContent())?.trim()).toBe(`…${nip19.npubEncode(bob.pubkey!).slice(-5)}`)
    expect((await second.textContent())?.trim()).toBe(`…${nip19.npubEncode(other.pubkey!).slice(-5)}`)
    // Ada's name is hers alone: no suffix.
    expect(await messageIn(ada, 'hello bob').getByTestId('npub-suffix').count()).toBe(0)
    await screenshot(ada.page, 'same-names')
  })

  test('bidi controls in display and group names are stripped, and names are isolated', async () => {
    const spoof = await newPerson(stack)
    await signUp(stack, spoof, '\u202Eevil\u202C')
    await joinByCode(spoof, `${stack.relay.url}'${groupId}`)
    await send(spoof, 'bidi test')
    const author = messageIn(ada, 'bidi test').locator('.author bdi')
    await expect.poll(() => author.textContent()).toBe('evil')

    const gid = await stack.relay.createGroup({ name: 'Notes\u202Egnp.exe', members: [ada.pubkey!] })
    await joinByCode(ada, `${stack.relay.url}'${gid}`)
    const title = ada.page.locator('#group-title bdi')
    await expect.poll(() => title.textContent()).toBe('Notesgnp.exe')
    const sidebar = ada.page.getByRole('navigation', { name: 'Groups' })
    expect(BIDI.test((await sidebar.textContent()) ?? '')).toBe(false)
    expect(ada.errors).toEqual([])
    expect(bob.errors).toEqual([])
  })
})
