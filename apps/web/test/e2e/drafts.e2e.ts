/**
 * Drafts: what is typed in a group's box stays with that group on this device, through switching
 * groups and reloading, and a long paste survives a send the relay refused.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import {
  joinByCode,
  messageIn,
  newPerson,
  type Person,
  type Stack,
  screenshot,
  screenshotsOnFailure,
  sidebarGroup,
  signUp,
  startStack,
} from './harness'

/** 10,000 characters in paragraphs, more than this relay takes in one message. */
const LONG = Array.from(
  { length: 400 },
  (_, i) => `Paragraph ${i + 1} of a long paste.${i % 10 === 9 ? '\n\n' : ' '}`,
)
  .join('')
  .padEnd(10_000, '.')
  .slice(0, 10_000)

let stack: Stack
let ada: Person

function box(person: Person) {
  return person.page.getByRole('textbox', { name: /^Message / })
}

async function open(person: Person, name: string): Promise<void> {
  await sidebarGroup(person, name).click()
  await person.page.getByRole('heading', { name: new RegExp(name) }).waitFor()
}

/** Reloads the page and waits for the open group's box. */
async function reload(person: Person, name: string): Promise<void> {
  await person.page.reload()
  await person.page.getByRole('heading', { name: new RegExp(name) }).waitFor()
  await box(person).waitFor()
}

beforeAll(async () => {
  stack = await startStack({ limits: { maxContentLength: 8_000 } })
  await stack.relay.createGroup({ id: 'talk', name: 'Talk' })
  await stack.relay.createGroup({ id: 'lobby', name: 'Lobby' })
  ada = await newPerson(stack)
  await signUp(stack, ada, 'Ada')
  await joinByCode(ada, `${stack.relay.url}'lobby`)
  await joinByCode(ada, `${stack.relay.url}'talk`)
  await ada.page.getByRole('heading', { name: /Talk/ }).waitFor()
})
afterAll(async () => {
  await stack?.close()
})

describe('drafts', () => {
  beforeEach(() => screenshotsOnFailure(() => [ada]))

  test('a draft stays with its group when switching to another group and back', async () => {
    const { page } = ada
    await box(ada).click()
    await page.keyboard.type('Half a thought about lunch', { delay: 20 })
    await open(ada, 'Lobby')
    expect(await box(ada).inputValue()).toBe('')
    await box(ada).click()
    await page.keyboard.type('Lobby draft', { delay: 20 })
    await open(ada, 'Talk')
    expect(await box(ada).inputValue()).toBe('Half a thought about lunch')
    await open(ada, 'Lobby')
    expect(await box(ada).inputValue()).toBe('Lobby draft')
    await open(ada, 'Talk')
    await screenshot(page, 'drafts-switch')
  })

  test('drafts survive a reload, even one typed just before it', async () => {
    const { page } = ada
    await box(ada).click()
    await page.keyboard.press('End')
    await page.keyboard.type(' and tea', { delay: 20 })
    await reload(ada, 'Talk')
    await expect.poll(() => box(ada).inputValue()).toBe('Half a thought about lunch and tea')
    await open(ada, 'Lobby')
    expect(await box(ada).inputValue()).toBe('Lobby draft')
    // A message sent is no longer a draft, after a reload either.
    await box(ada).click()
    await page.keyboard.press('Enter')
    await messageIn(ada, 'Lobby draft').waitFor()
    await reload(ada, 'Lobby')
    expect(await box(ada).inputValue()).toBe('')
  })

  test('a 10,000-character paste survives a refused send and a reload', async () => {
    const { page } = ada
    await open(ada, 'Talk')
    await box(ada).click()
    await page.keyboard.press('Control+A')
    await page.keyboard.press('Backspace')
    await page.keyboard.insertText(LONG)
    await page.keyboard.press('Enter')
    // Refused: it stays in the timeline with the reason (Retry, Delete), and goes back to the box
    // when the page goes away, so a reload does not lose it.
    const failed = page.locator('[data-testid="send-state"][data-status="failed"]')
    await failed.waitFor()
    expect(await failed.textContent()).toContain('content too long')
    await screenshot(page, 'drafts-refused-paste')
    await reload(ada, 'Talk')
    await expect.poll(() => box(ada).inputValue()).toBe(LONG)
    expect(ada.errors).toEqual([])
  })
})
