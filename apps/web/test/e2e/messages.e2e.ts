/**
 * Writing and managing your own messages, between two people in two browser profiles: deleting
 * one's own message and reaction, mentions, the Markdown subset, any-emoji reactions and
 * shortcodes, and the composer's keys.
 */
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import {
  joinByCode,
  messageIn,
  nextSecond,
  type Person,
  screenshot,
  send,
  sidebarGroup,
  withStack,
} from './harness'

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

function box(person: Person) {
  return person.page.getByRole('textbox', { name: /^Message / })
}

async function open(person: Person, name: string): Promise<void> {
  await sidebarGroup(person, name).click()
  await person.page.getByRole('heading', { name: new RegExp(name) }).waitFor()
}

/** The row whose body contains `text` (for rows whose content is formatted). */
function rowWith(person: Person, text: string) {
  return person.page
    .getByRole('log', { name: 'Messages' })
    .locator('article')
    .filter({ has: person.page.locator('.body', { hasText: text }) })
}

beforeAll(async () => {
  for (const p of [ada, bob]) await p.page.getByRole('heading', { name: /Talk/ }).waitFor()
  // Each knows the other's name before mentions are typed.
  await send(bob, 'Bob is here')
  await messageIn(ada, 'Bob is here').getByText('Bob', { exact: true }).first().waitFor()
  await send(ada, 'Ada is here')
  await messageIn(bob, 'Ada is here').getByText('Ada', { exact: true }).first().waitFor()
})

/** No uncaught errors and no alerts in either browser, whatever a test did. */
function clean(): void {
  expect(ada.errors).toEqual([])
  expect(bob.errors).toEqual([])
  expect(ada.dialogs).toEqual([])
  expect(bob.dialogs).toEqual([])
}

describe('your own messages', () => {
  afterEach(clean)

  test('deleting your own message asks first and removes it for everyone, live', async () => {
    await send(ada, 'oops, wrong group')
    const theirs = messageIn(bob, 'oops, wrong group')
    await theirs.waitFor()
    // Bob is no moderator: Ada's message offers him no delete.
    await theirs.hover()
    await theirs.getByRole('button', { name: 'React 👍' }).waitFor()
    expect(await theirs.getByRole('button', { name: 'Delete message' }).count()).toBe(0)

    const mine = messageIn(ada, 'oops, wrong group')
    await mine.hover()
    const confirms: string[] = []
    ada.page.on('dialog', (d) => {
      if (d.type() === 'confirm') confirms.push(d.message())
    })
    await mine.getByRole('button', { name: 'Delete message' }).click()
    // The app's own dialog asks, not the browser's confirm().
    const dialog = ada.page.getByRole('dialog', { name: 'Delete message' })
    await dialog.getByText('Delete this message for everyone?').waitFor()
    await dialog.getByRole('button', { name: 'Delete for everyone' }).click()
    await theirs.waitFor({ state: 'detached' })
    await mine.waitFor({ state: 'detached' })
    expect(confirms).toEqual([])
  })

  test('clicking your own reaction again removes it; the chip tells who reacted on hover and focus', async () => {
    await send(ada, 'react to this')
    const theirs = messageIn(bob, 'react to this')
    await theirs.hover()
    await theirs.getByRole('button', { name: 'React 👍' }).click()
    const chip = messageIn(ada, 'react to this').getByRole('button', { name: '👍 1' })
    await chip.waitFor()
    await chip.hover()
    const tip = messageIn(ada, 'react to this').getByRole('tooltip')
    await expect.poll(() => tip.isVisible()).toBe(true)
    expect(await tip.textContent()).toBe('👍 by Bob')
    await ada.page.mouse.move(0, 0)
    await expect.poll(() => tip.isVisible()).toBe(false)
    await chip.focus()
    await expect.poll(() => tip.isVisible()).toBe(true)

    const own = theirs.getByRole('button', { name: '👍 1, including you' })
    await own.click()
    await chip.waitFor({ state: 'detached' })
    await own.waitFor({ state: 'detached' })
  })
})

describe('mentions', () => {
  afterEach(clean)

  test('@ offers people by name from the keyboard; the mention badges and highlights the person named', async () => {
    await open(bob, 'Lobby')
    await nextSecond() // Bob read Talk in this second: a mention sent in it would count as read
    const input = box(ada)
    await input.click()
    await input.pressSequentially('hey @')
    const list = ada.page.getByRole('listbox', { name: 'People to mention' })
    await list.waitFor()
    await input.pressSequentially('b')
    const option = list.getByRole('option', { name: 'Bob' })
    await expect.poll(() => option.getAttribute('aria-selected')).toBe('true')
    expect(await input.getAttribute('aria-activedescendant')).toBe(await option.getAttribute('id'))
    await input.press('ArrowDown') // one match: the selection wraps to it
    await input.press('Enter')
    await list.waitFor({ state: 'detached' })
    expect(await input.inputValue()).toBe('hey @Bob ')
    await input.pressSequentially('look at this')
    await input.press('Enter')

    // Ada's row shows the name; the content carries Bob's npub (the name is resolved from it).
    const sent = rowWith(ada, 'look at this')
    await sent.locator(`.mention[data-pubkey="${bob.pubkey}"]`, { hasText: '@Bob' }).waitFor()
    expect(await sent.locator('.mention-me').count()).toBe(0)

    // Bob, in another group, gets a mention badge beside the unread count.
    const talk = sidebarGroup(bob, 'Talk')
    await talk.getByTestId('mention-badge').filter({ hasText: '@1' }).waitFor()
    await talk.getByTestId('unread-badge').waitFor()
    await screenshot(bob.page, 'mention-badge')
    await open(bob, 'Talk')
    const row = rowWith(bob, 'look at this')
    await row.locator('.mention.mention-me', { hasText: '@Bob' }).waitFor()
    expect(await row.getAttribute('class')).toContain('mentions-me')
    await talk.getByTestId('mention-badge').waitFor({ state: 'detached' })
    await screenshot(bob.page, 'mention-highlight')
  })
})

describe('formatting', () => {
  afterEach(clean)

  test('the Markdown subset renders as elements, and HTML or unsafe links stay text', async () => {
    const text = [
      '**bold** *lean* ~~gone~~ `x = 1` [site](https://example.com/a) [bad](javascript:alert(1)) <b>raw</b>',
      '',
      '> quoted words',
      '',
      '```',
      'const y = 2',
      '```',
      '# not a heading',
    ].join('\n')
    await box(ada).fill(text)
    await box(ada).press('Enter')
    const row = rowWith(bob, 'quoted words')
    await row.waitFor()
    const body = row.locator('.body')
    await body.locator('strong', { hasText: 'bold' }).waitFor()
    expect(await body.locator('em').textContent()).toBe('lean')
    expect(await body.locator('del').textContent()).toBe('gone')
    expect(await body.locator('code.md-code').textContent()).toBe('x = 1')
    expect(await body.locator('blockquote').textContent()).toBe('quoted words')
    expect(await body.locator('pre code').textContent()).toBe('const y = 2')
    const links = body.locator('a')
    expect(await links.count()).toBe(1)
    expect(await links.getAttribute('href')).toBe('https://example.com/a')
    expect(await links.textContent()).toBe('site')
    expect(await body.locator('b, h1, script').count()).toBe(0)
    expect(await body.textContent()).toContain('bad <b>raw</b>')
    expect(await body.textContent()).toContain('# not a heading')
    await screenshot(bob.page, 'markdown')
    expect(bob.dialogs).toEqual([])
  })
})

describe('reactions', () => {
  afterEach(clean)

  test('any emoji from the picker, loaded on first use', async () => {
    await send(ada, 'pick something')
    const theirs = messageIn(bob, 'pick something')
    await theirs.hover()
    await theirs.getByRole('button', { name: 'Add reaction' }).click()
    const picker = bob.page.getByRole('dialog', { name: 'Pick a reaction' })
    await picker.getByRole('combobox', { name: 'Search' }).fill('rocket')
    await picker
      .getByRole('option', { name: /rocket/ })
      .first()
      .click()
    await picker.waitFor({ state: 'detached' })
    await messageIn(ada, 'pick something').getByRole('button', { name: '🚀 1' }).waitFor()
    await theirs.getByRole('button', { name: '🚀 1, including you' }).waitFor()
  })

  test('Escape closes the picker without reacting', async () => {
    const theirs = messageIn(bob, 'pick something')
    await theirs.hover()
    await theirs.getByRole('button', { name: 'Add reaction' }).click()
    const picker = bob.page.getByRole('dialog', { name: 'Pick a reaction' })
    await picker.getByRole('combobox', { name: 'Search' }).waitFor()
    await bob.page.keyboard.press('Escape')
    await picker.waitFor({ state: 'detached' })
    expect(await theirs.locator('.reaction').count()).toBe(1)
  })

  test(':+1: shortcodes in the composer become the emoji', async () => {
    await send(ada, 'sounds good :+1: :tada:')
    const row = rowWith(bob, 'sounds good')
    await row.waitFor()
    expect(await row.locator('.body').textContent()).toMatch(/^sounds good 👍\uFE0F? 🎉$/u)
  })
})

describe('the composer', () => {
  afterEach(clean)

  test('Shift+Enter adds a line, Enter sends, and Up in an empty box quotes your last message', async () => {
    const input = box(ada)
    await input.click()
    await input.pressSequentially('first line')
    await input.press('Shift+Enter')
    await input.pressSequentially('second line')
    expect(await input.inputValue()).toBe('first line\nsecond line')
    await input.press('Enter')
    const row = rowWith(bob, 'second line')
    await row.waitFor()
    expect(await row.locator('.body').textContent()).toBe('first line\nsecond line')
    expect(await input.inputValue()).toBe('')

    await input.press('ArrowUp')
    await ada.page.getByText('Replying to').waitFor()
    expect(await ada.page.locator('.replying').textContent()).toContain('first line')
    await input.pressSequentially('and one more thing')
    await input.press('Enter')
    await rowWith(bob, 'and one more thing')
      .getByRole('button', { name: /In reply to Ada: first line/ })
      .waitFor()
  })

  test('pasting a long text keeps all of it', async () => {
    const long = Array.from({ length: 120 }, (_, i) => `Paragraph ${i + 1} of a long paste.`).join('\n')
    await ada.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.base })
    await ada.page.evaluate((t) => navigator.clipboard.writeText(t), long)
    const input = box(ada)
    await input.click()
    await input.press('Control+V')
    expect(await input.inputValue()).toBe(long)
    await input.press('Enter')
    const row = rowWith(bob, 'Paragraph 120 of a long paste.')
    await row.waitFor()
    expect(await row.locator('.body').textContent()).toBe(long)
  })

  test('in a group whose supported_kinds lacks 9, the box is off and says why, and comes back elsewhere', async () => {
    // Its 39000 lists threads only: chat messages (kind 9) are not taken there.
    await stack.relay.createGroup({ id: 'forum', name: 'Forum', supportedKinds: [11, 1111] })
    await joinByCode(ada, `${stack.relay.url}'forum`)
    await ada.page.getByRole('heading', { name: /Forum/ }).waitFor()
    const input = ada.page.getByRole('textbox', { name: 'Message Forum' })
    const reason = 'This group does not take chat messages (this group does not take kind 9 events).'
    await ada.page.getByText(reason).waitFor()
    expect(await input.isDisabled()).toBe(true)
    // The reason is the box's accessible description, so a screen reader says why it is off.
    const described = await input.evaluate(
      (el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent,
    )
    expect(described).toBe(reason)
    expect(await ada.page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true)

    // Talk takes chat messages: its box is on, with no reason.
    await open(ada, 'Talk')
    expect(await box(ada).isDisabled()).toBe(false)
    expect(await ada.page.getByText(reason).count()).toBe(0)
  })
})
