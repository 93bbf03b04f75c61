/**
 * Per-group notification levels (all messages, mentions only, muted), kept on this device: the
 * sidebar badges, the tab title and desktop notifications follow them; a mention always counts.
 */
import { beforeAll, describe, expect, test } from 'vitest'
import { messageIn, nextSecond, type Person, screenshot, send, sidebarGroup, withStack } from './harness'

const {
  stack,
  people: [ada, bob],
} = withStack({
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'talk', name: 'Talk' })
    await relay.createGroup({ id: 'lobby', name: 'Lobby' })
  },
  people: [
    { name: 'Ada', join: ['lobby', 'talk'] },
    { name: 'Bob', join: ['lobby', 'talk'] },
  ],
})

async function open(person: Person, name: string): Promise<void> {
  await sidebarGroup(person, name).click()
  await person.page.getByRole('heading', { name: new RegExp(name) }).waitFor()
}

/** Makes Bob's tab look hidden (notifications show then) or visible again (reading happens). */
async function bobTab(state: 'hidden' | 'visible'): Promise<void> {
  await bob.page.evaluate((value) => {
    Object.defineProperty(document, 'visibilityState', { value, configurable: true })
    Object.defineProperty(document, 'hidden', { value: value === 'hidden', configurable: true })
    document.dispatchEvent(new Event('visibilitychange'))
  }, state)
}

/**
 * Bob reads Talk and sets its level from its header, then goes back to Lobby and away. Returns
 * once the clock is past the second he read in: read state has whole seconds, so a message sent in
 * that same second counts as read (NIP-RS), and the tests below want the next one to be unread.
 */
async function setTalkLevel(label: string): Promise<void> {
  await bobTab('visible')
  await open(bob, 'Talk')
  await bob.page.getByLabel('Notifications for Talk').selectOption({ label })
  await sidebarGroup(bob, 'Talk').getByTestId('mention-badge').waitFor({ state: 'detached' })
  await sidebarGroup(bob, 'Talk').getByTestId('unread-badge').waitFor({ state: 'detached' })
  const read = nextSecond()
  await open(bob, 'Lobby')
  await bobTab('hidden')
  await read
}

async function mention(text: string): Promise<void> {
  const box = ada.page.getByRole('textbox', { name: /^Message / })
  await box.click()
  await box.pressSequentially('@Bo')
  await ada.page.getByRole('option', { name: 'Bob' }).waitFor()
  await box.press('Enter')
  await box.pressSequentially(text)
  await box.press('Enter')
}

const notes = () => bob.page.evaluate(() => (window as unknown as { __notes: string[] }).__notes)

beforeAll(async () => {
  for (const p of [ada, bob]) await p.page.getByRole('heading', { name: /Talk/ }).waitFor()
  await send(bob, 'Bob is here')
  await messageIn(ada, 'Bob is here').getByText('Bob', { exact: true }).first().waitFor()
  await send(ada, 'Ada is here')
  await messageIn(bob, 'Ada is here').getByText('Ada', { exact: true }).first().waitFor()

  // Bob allows desktop notifications (the permission is asked from that click) and records them.
  await bob.context.grantPermissions(['notifications'], { origin: stack.base })
  await bob.page.evaluate(() => {
    const w = window as unknown as { __notes: string[]; Notification: typeof Notification }
    w.__notes = []
    const Original = w.Notification
    class Recording extends Original {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options)
        w.__notes.push(`${title}: ${options?.body ?? ''}`)
      }
    }
    Object.defineProperty(Recording, 'permission', { get: () => Original.permission })
    w.Notification = Recording
  })
  await bob.page.getByRole('button', { name: 'Settings and account' }).click()
  await bob.page.getByLabel(/Desktop notifications/).check()
  await bob.page.keyboard.press('Escape')
})

describe('notification levels per group', () => {
  test('muted: no count badge, title or notification for chatter; a mention gets all three', async () => {
    await setTalkLevel('Muted')
    const talk = sidebarGroup(bob, 'Talk')
    await talk.getByText('muted').waitFor()
    await send(ada, 'just chatter')
    await mention('are you around?')
    // The mention arrived after the chatter, so both are in by the time its badge shows.
    await talk.getByTestId('mention-badge').filter({ hasText: '@1' }).waitFor()
    expect(await talk.getByTestId('unread-badge').count()).toBe(0)
    await expect.poll(() => bob.page.title()).toBe('(1) Roost')
    await expect.poll(notes).toEqual(['Ada mentioned you in Talk: @Bob are you around?'])
    await screenshot(bob.page, 'muted-group-mention')
  })

  test('mentions only: only a mention badges (the plain count is grey), and the title and notifications wait for one', async () => {
    await setTalkLevel('Mentions only')
    await expect.poll(() => bob.page.title()).toBe('Roost')
    await send(ada, 'more chatter')
    const talk = sidebarGroup(bob, 'Talk')
    const quiet = talk.getByTestId('quiet-badge').filter({ hasText: '1' })
    await quiet.waitFor()
    expect(await talk.getByTestId('unread-badge').count()).toBe(0)
    // Grey, and the row is not bold: nothing asks for attention until a mention.
    const [badge, red] = await Promise.all([
      quiet.evaluate((b) => getComputedStyle(b).backgroundColor),
      talk.getByTestId('quiet-badge').evaluate(() => {
        const probe = document.createElement('span')
        probe.className = 'badge'
        document.body.append(probe)
        const color = getComputedStyle(probe).backgroundColor
        probe.remove()
        return color
      }),
    ])
    expect(badge).not.toBe(red)
    expect(await talk.getAttribute('class')).not.toContain('unread')
    await screenshot(bob.page, 'mentions-only-quiet')
    expect(await bob.page.title()).toBe('Roost')
    expect(await talk.getByTestId('mention-badge').count()).toBe(0)
    await mention('one more question')
    await talk.getByTestId('mention-badge').waitFor()
    await expect.poll(() => talk.getAttribute('class')).toContain('unread')
    await expect.poll(() => bob.page.title()).toBe('(1) Roost')
    await expect
      .poll(notes)
      .toEqual([
        'Ada mentioned you in Talk: @Bob are you around?',
        'Ada mentioned you in Talk: @Bob one more question',
      ])
  })

  test('all messages: every message counts in the title and notifies; the level is kept on this device', async () => {
    await setTalkLevel('All messages')
    await send(ada, 'everything counts')
    const talk = sidebarGroup(bob, 'Talk')
    await talk.getByTestId('unread-badge').filter({ hasText: '1' }).waitFor()
    await expect.poll(() => bob.page.title()).toBe('(1) Roost')
    await expect.poll(() => notes().then((n) => n.at(-1))).toBe('Ada in Talk: everything counts')
    const saved = await bob.page.evaluate(() =>
      Object.entries(localStorage)
        .filter(([k]) => k.startsWith('roost.notify.'))
        .map(([, v]) => v),
    )
    expect(saved).toEqual(['{}'])
    await setTalkLevel('Muted')
    const again = await bob.page.evaluate(() =>
      Object.entries(localStorage)
        .filter(([k]) => k.startsWith('roost.notify.'))
        .map(([, v]) => JSON.parse(v) as Record<string, string>),
    )
    expect(Object.values(again[0] ?? {})).toEqual(['muted'])
    expect(bob.errors).toEqual([])
    expect(ada.errors).toEqual([])
  })
})
