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
  signUp,
  startStack,
} from './harness'
import { png } from './media-files'

/**
 * A private group's files are served to anyone who asks for their hash (Blossom has no notion of
 * the group): the member attaching one is told so, and the test shows it is true.
 */
let stack: Stack
let ada: Person
let secretId: string
let openId: string

beforeAll(async () => {
  stack = await startStack()
  ada = await newPerson(stack)
  await signUp(stack, ada, 'Ada')
  secretId = await stack.relay.createGroup({
    name: 'Secret',
    private: true,
    closed: true,
    members: [ada.pubkey!],
  })
  openId = await stack.relay.createGroup({ name: 'Open', members: [ada.pubkey!] })
  await joinByCode(ada, `${stack.relay.url}'${openId}`)
  await joinByCode(ada, `${stack.relay.url}'${secretId}`)
})
afterAll(async () => {
  await stack?.close()
})
beforeEach(() => screenshotsOnFailure(() => [ada]))

async function attach(name: string) {
  await ada.page.locator('input[aria-label="Attach files"]').setInputFiles({
    name,
    mimeType: 'image/png',
    buffer: png(12, 12, name.length),
  })
  await ada.page.getByRole('list', { name: 'Attachments' }).getByText('Ready').waitFor()
}

describe('files in a private group', () => {
  test('attaching a file says it is readable by anyone with its link, which it is', async () => {
    const { page } = ada
    await page.getByRole('heading', { name: /Secret/ }).waitFor()
    await page.locator('.group-head .chip', { hasText: 'private' }).waitFor()
    const button = page.getByRole('button', { name: 'Attach a file' })
    expect(await button.getAttribute('title')).toMatch(/anyone who gets a file’s link can open it/)
    await attach('plan.png')
    const notice = page.getByTestId('attachment-notice')
    expect(await notice.textContent()).toBe(
      'This group is private, but its files are not: anyone who gets a file’s link can open it, member or not.',
    )
    await screenshot(page, 'private-media-notice')
    await send(ada, 'the plan')
    const img = messageIn(ada, 'the plan').locator('img')
    await img.waitFor()
    const url = (await img.getAttribute('src')) ?? ''
    expect(url.startsWith(stack.relay.mediaUrl)).toBe(true)
    // Someone with no key and no membership, from outside the browser: the file is served.
    const res = await fetch(url)
    expect(res.status).toBe(200)
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG')
  })

  test('an open group says nothing of the kind', async () => {
    const { page } = ada
    await page.getByRole('navigation', { name: 'Groups' }).getByRole('button', { name: /^Open/ }).click()
    await page.getByRole('heading', { name: /Open/ }).waitFor()
    expect(await page.getByRole('button', { name: 'Attach a file' }).getAttribute('title')).toBeNull()
    await attach('public.png')
    expect(await page.getByTestId('attachment-notice').count()).toBe(0)
    expect(ada.errors).toEqual([])
  })
})
