import type { Locator } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import {
  messageIn,
  newPerson,
  type Person,
  type Stack,
  screenshot,
  screenshotsOnFailure,
  seriousViolations,
  signUp,
  startStack,
} from './harness'
import {
  type Stranger,
  say,
  setProfile,
  stranger,
  strangerGroup,
  type TrackingHost,
  trackingHost,
} from './strangers'

/**
 * A stranger's kind 0 picture and group picture (39000) on a tracking host: nothing is asked of
 * that host until the viewer agrees, per host or for every host.
 */
let stack: Stack
let ada: Person
let bea: Person
let tracker: TrackingHost
let other: TrackingHost
let mallory: Stranger
let trudy: Stranger

beforeAll(async () => {
  stack = await startStack()
  tracker = await trackingHost()
  other = await trackingHost()
  mallory = stranger(stack.relay.url)
  await setProfile(mallory, { name: 'Mallory', picture: `${tracker.base}/mallory.png` })
  await strangerGroup(mallory, {
    id: 'tracked',
    name: 'Tracked',
    picture: `${tracker.base}/group.png`,
    about: 'Pictures on a tracking host',
  })
  await say(mallory, 'tracked', 'hello from mallory')
  trudy = stranger(stack.relay.url)
  await setProfile(trudy, { name: 'Trudy', picture: `${other.base}/trudy.png` })
  await strangerGroup(trudy, { id: 'watched', name: 'Watched', picture: `${other.base}/group.png` })
  await say(trudy, 'watched', 'hello from trudy')
  // The page's CSP admits https: images only; the tracking hosts are plain http on 127.0.0.1, so
  // the CSP is bypassed: what keeps the requests away must be the client, not the CSP.
  ada = await newPerson(stack, { bypassCSP: true })
  bea = await newPerson(stack, { bypassCSP: true })
  await signUp(stack, ada, 'Ada')
  await signUp(stack, bea, 'Bea')
})
afterAll(async () => {
  mallory?.close()
  trudy?.close()
  await stack?.close()
  tracker?.close()
  other?.close()
})
beforeEach(() => screenshotsOnFailure(() => [ada, bea]))

/** The tag of the element drawn for an avatar: IMG once a picture loads, SPAN for initials. */
function avatarTag(scope: Locator): Promise<string> {
  return scope
    .locator('.avatar')
    .first()
    .evaluate((e) => e.tagName)
}

describe('pictures from other hosts', () => {
  test('nothing reaches a tracking host before consent: Browse, the join preview, the timeline, the profile card', async () => {
    const { page } = ada
    await page.getByRole('button', { name: 'Browse groups' }).first().click()
    const card = page.getByRole('listitem').filter({ hasText: 'Tracked' })
    await card.waitFor()
    expect(await avatarTag(card)).toBe('SPAN')
    await screenshot(page, 'pictures-browse')

    await page.getByRole('button', { name: 'Join a group' }).click()
    const dialog = page.getByRole('dialog', { name: 'Join a group' })
    await dialog.getByLabel('Group link or code').fill(`${stack.relay.url}'tracked`)
    const preview = dialog.getByTestId('group-preview')
    await preview.getByText('Tracked').waitFor()
    expect(await avatarTag(preview)).toBe('SPAN')
    await dialog.getByRole('button', { name: 'Join', exact: true }).click()
    await dialog.waitFor({ state: 'detached' })

    const row = messageIn(ada, 'hello from mallory')
    await row.getByRole('button', { name: 'Mallory', exact: true }).waitFor()
    expect(await avatarTag(row)).toBe('SPAN')
    expect(await avatarTag(page.locator('.group-head'))).toBe('SPAN')
    await row.getByRole('button', { name: 'Mallory', exact: true }).click()
    const profile = page.getByRole('dialog', { name: 'Profile' })
    await profile.getByText('Mallory', { exact: true }).waitFor()
    expect(await avatarTag(profile)).toBe('SPAN')
    const allow = profile.getByRole('button', { name: `Show pictures from ${tracker.host}` })
    await allow.waitFor()
    await screenshot(page, 'pictures-card-gated')
    expect(await seriousViolations(page)).toEqual([])
    // The sidebar's group picture is on the tracking host too.
    expect(await avatarTag(page.getByRole('navigation', { name: 'Groups' }).getByRole('listitem'))).toBe(
      'SPAN',
    )
    expect(tracker.hits).toEqual([])
    expect(other.hits).toEqual([])

    // A per-host allow: every picture on that host loads, in the card, the timeline, the header.
    await allow.click()
    const img = profile.locator('img.avatar')
    await expect.poll(() => img.evaluate((e: HTMLImageElement) => e.naturalWidth)).toBe(24)
    await page.keyboard.press('Escape')
    await expect
      .poll(() => row.locator('img.avatar').evaluate((e: HTMLImageElement) => e.naturalWidth))
      .toBe(24)
    await expect
      .poll(() => page.locator('.group-head img.avatar').evaluate((e: HTMLImageElement) => e.naturalWidth))
      .toBe(24)
    await expect.poll(() => [...new Set(tracker.hits)].sort()).toEqual(['/group.png', '/mallory.png'])
    await screenshot(page, 'pictures-allowed-host')
    // Only that host: Trudy's pictures elsewhere still wait.
    expect(other.hits).toEqual([])

    // The allow is kept: after a reload the host's pictures load at once.
    await page.reload()
    await messageIn(ada, 'hello from mallory').locator('img.avatar').waitFor()
    await page.getByRole('button', { name: 'Settings and account' }).click()
    const settings = page.getByRole('dialog', { name: 'Settings' })
    await settings.getByRole('list', { name: 'Hosts whose pictures load' }).getByText(tracker.host).waitFor()
    await page.keyboard.press('Escape')
    expect(other.hits).toEqual([])
    expect(ada.errors).toEqual([])
  })

  test('"Load images from any host" lets every picture load', async () => {
    const { page } = bea
    await page.getByRole('button', { name: 'Browse groups' }).first().click()
    const card = page.getByRole('listitem').filter({ hasText: 'Watched' })
    await card.waitFor()
    expect(await avatarTag(card)).toBe('SPAN')
    expect(other.hits).toEqual([])

    await page.getByRole('button', { name: 'Settings and account' }).click()
    await page.getByLabel(/Load images from any host/).check()
    await page.keyboard.press('Escape')
    await expect
      .poll(() => card.locator('img.avatar').evaluate((e: HTMLImageElement) => e.naturalWidth))
      .toBe(24)
    await card.getByRole('button', { name: 'Join Watched' }).click()
    const row = messageIn(bea, 'hello from trudy')
    await expect
      .poll(() => row.locator('img.avatar').evaluate((e: HTMLImageElement) => e.naturalWidth))
      .toBe(24)
    await expect.poll(() => [...new Set(other.hits)].sort()).toEqual(['/group.png', '/trudy.png'])
    expect(bea.errors).toEqual([])
  })
})
