/**
 * One message must not take down its readers: another member posts every hostile Markdown
 * message of the corpus (nesting bombs, delimiter runs, long links, deep lists, mixtures, each at
 * the relay's content limit) over the real relay, and a reader opens the group in Chromium. The
 * page must not crash, no task may block it for 200 ms or more while the group opens and each
 * message is shown, and each message must show all its text at a bounded nesting depth.
 */
import { finalizeEvent, generateSecretKey, nip19 } from 'nostr-tools'
import { Relay, useWebSocketImplementation as setWebSocketImplementation } from 'nostr-tools/relay'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { MARKDOWN_BOUNDS } from '../../src/lib/markdown-bound'
import {
  joinByCode,
  newPerson,
  type Person,
  type Stack,
  screenshot,
  screenshotsOnFailure,
  sidebarGroup,
  signUp,
  startStack,
} from './harness'
import { CORPUS } from './markdown-corpus'

setWebSocketImplementation(WebSocket)

/**
 * The longest task the page may run while the group opens (the Long Tasks API's view). On a
 * loaded machine a page's every task runs longer, so the bound is also measured: opening a group
 * of as many ordinary messages of the same lengths, just before, and hostile ones may take at most
 * twice as long as that (whichever of the two bounds is larger).
 */
const LONG_TASK_MS = 200

let stack: Stack
let ada: Person
const crashes: string[] = []
/** The corpus as posted: event id → input. */
const posted = new Map<string, { name: string; text: string }>()
/** Ordinary messages of the corpus's lengths, as posted in the baseline group. */
const ordinary = new Set<string>()

/** Everyday Markdown, message `n`, repeated to `length` characters. */
function everyday(n: number, length: number): string {
  const line = `**Hello** _there_, see [the site](https://example.com/${n}) and \`some code\` today.\n\n`
  return line.repeat(Math.ceil(length / line.length)).slice(0, length)
}

/** Letters and digits: what must survive formatting, whatever markup is consumed. */
function letters(s: string): string {
  return s.replace(/[^\p{L}\p{N}]/gu, '')
}

/** What a rendered message body shows, read from the DOM without recursion. */
interface Shown {
  /** Text, a link's URL when its label differs, and `nostr:npub…` for each mention. */
  segments: ({ text: string } | { href: string } | { pubkey: string })[]
  /** Elements nested inside `.body`, at the deepest. */
  depth: number
}

async function shown(person: Person, id: string): Promise<Shown> {
  return person.page.locator(`article[data-id="${id}"] .body`).evaluate((body) => {
    const segments: Shown['segments'] = []
    let depth = 0
    // Nodes to visit, and a link's URL to add once its label has been read.
    const stack: ([Node, number] | { href: string })[] = [[body, 0]]
    while (stack.length > 0) {
      const item = stack.pop() as [Node, number] | { href: string }
      if (!Array.isArray(item)) {
        segments.push(item)
        continue
      }
      const [node, d] = item
      depth = Math.max(depth, d)
      if (node.nodeType === Node.TEXT_NODE) {
        segments.push({ text: node.textContent ?? '' })
        continue
      }
      const el = node as Element
      if (el.classList?.contains('mention')) {
        segments.push({ pubkey: el.getAttribute('data-pubkey') ?? '' })
        continue
      }
      const href = el.getAttribute?.('href')
      if (href && href !== el.textContent && `${el.textContent}/` !== href) stack.push({ href })
      for (let i = el.childNodes.length - 1; i >= 0; i--) stack.push([el.childNodes[i] as Node, d + 1])
    }
    return { segments, depth }
  })
}

/** Where two long strings first differ, with some context (a whole message is too long to print). */
function firstDifference(actual: string, expected: string): string {
  let i = 0
  while (i < actual.length && actual[i] === expected[i]) i++
  if (i === actual.length && i === expected.length) return 'same'
  return `at ${i} of ${expected.length}: shown …${actual.slice(Math.max(0, i - 20), i + 20)}… expected …${expected.slice(Math.max(0, i - 20), i + 20)}…`
}

function visible(s: Shown): string {
  return s.segments
    .map((p) => ('text' in p ? p.text : 'href' in p ? p.href : `nostr:${nip19.npubEncode(p.pubkey)}`))
    .join('')
}

beforeAll(async () => {
  stack = await startStack()
  await stack.relay.createGroup({ id: 'lobby', name: 'Lobby' })
  await stack.relay.createGroup({ id: 'hostile', name: 'Hostile' })
  await stack.relay.createGroup({ id: 'plain', name: 'Plain' })
  ada = await newPerson(stack)
  ada.page.on('crash', () => crashes.push('renderer crashed'))
  await signUp(stack, ada, 'Ada')
  await joinByCode(ada, `${stack.relay.url}'hostile`)
  await joinByCode(ada, `${stack.relay.url}'plain`)
  await joinByCode(ada, `${stack.relay.url}'lobby`)
  await ada.page.getByRole('heading', { name: /Lobby/ }).waitFor()

  // Mallory is a member like any other, writing with her own client straight to the relay.
  const mallory = generateSecretKey()
  const relay = await Relay.connect(stack.relay.url)
  try {
    const now = Math.floor(Date.now() / 1000)
    const post = (group: string, kind: number, content: string) => {
      const event = finalizeEvent({ kind, created_at: now, tags: [['h', group]], content }, mallory)
      return relay.publish(event).then(() => event)
    }
    // First some ordinary chat in the lobby, which Ada reads (as she would before any attack).
    await post('lobby', 9021, '')
    for (let i = 1; i <= 10; i++)
      await post('lobby', 9, `**Hello** _number_ ${i}, see [the site](https://example.com/${i}) and \`code\``)
    await ada.page
      .getByRole('log', { name: 'Messages' })
      .getByText('number', { exact: true })
      .first()
      .waitFor()
    await post('plain', 9021, '')
    for (const [n, input] of CORPUS.entries())
      ordinary.add((await post('plain', 9, everyday(n, input.text.length))).id)
    await post('hostile', 9021, '')
    for (const input of CORPUS) posted.set((await post('hostile', 9, input.text)).id, input)
  } finally {
    relay.close()
  }
}, 300_000)
afterAll(async () => {
  await stack?.close()
})

describe('a group full of hostile Markdown', () => {
  beforeEach(() => screenshotsOnFailure(() => [ada]))

  test('opens without a long task, and shows every message whole at a bounded depth', async () => {
    const { page } = ada
    await page.evaluate(() => {
      const w = window as unknown as { __longTasks: number[] }
      w.__longTasks = []
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.__longTasks.push(entry.duration)
      }).observe({ type: 'longtask' })
    })
    const longTasks = () =>
      page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.splice(0))
    const active = () =>
      page.evaluate(() => document.activeElement?.closest('article')?.getAttribute('data-id') ?? '')

    /** Opens `group` and walks from its newest message up to the oldest, one ↑ at a time; its long tasks. */
    const openAndWalk = async (group: string, ids: { has(id: string): boolean; size: number }) => {
      await longTasks()
      await sidebarGroup(ada, group).click()
      await page.getByRole('heading', { name: new RegExp(group) }).waitFor()
      const log = page.getByRole('log', { name: 'Messages' })
      await expect
        .poll(async () => Number(await log.getAttribute('data-rows')), { timeout: 60_000 })
        .toBeGreaterThanOrEqual(CORPUS.length)
      await page.getByRole('textbox', { name: `Message ${group}` }).focus()
      await page.keyboard.press('Shift+Tab')
      const order: string[] = []
      for (let step = 0; step < CORPUS.length * 2 && order.length < ids.size; step++) {
        const id = await active()
        if (ids.has(id) && !order.includes(id)) {
          order.push(id)
          if (posted.has(id)) expect((await shown(ada, id)).depth).toBeLessThanOrEqual(MARKDOWN_BOUNDS.depth)
        }
        await page.keyboard.press('ArrowUp')
        await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('ARTICLE')
      }
      expect(order.length, group).toBe(ids.size)
      return longTasks()
    }

    // The same walk through everyday Markdown first: what this machine's tasks cost right now.
    const baseline = await openAndWalk('Plain', ordinary)
    const opening = await openAndWalk('Hostile', posted)
    await screenshot(page, 'hostile-markdown-open')
    expect(crashes).toEqual([])
    const bound = Math.max(LONG_TASK_MS, 2 * Math.max(0, ...baseline))
    console.log(
      `longest task opening (ms): everyday ${Math.round(Math.max(0, ...baseline))}, hostile ${Math.round(Math.max(0, ...opening))}`,
    )
    expect(
      Math.max(0, ...opening),
      `long tasks while the group opened: ${opening.map(Math.round).join(', ')}; everyday Markdown: ${baseline.map(Math.round).join(', ')}`,
    ).toBeLessThan(bound)

    // Each message shown whole, one by one from the oldest (the list's stop is still there, where
    // the walk up ended): every letter, no deeper than the bound.
    const expanding: number[] = []
    const whole = new Set<string>()
    await page.getByRole('textbox', { name: 'Message Hostile' }).focus()
    await page.keyboard.press('Shift+Tab')
    for (let step = 0; step < CORPUS.length * 2 && whole.size < posted.size; step++) {
      const id = await active()
      const input = posted.get(id)
      if (input && !whole.has(id)) {
        const article = page.locator(`article[data-id="${id}"]`)
        // Clicked where it is: scrolling a tall row to its end makes the list re-anchor under the pointer.
        await article
          .getByRole('button', { name: /^Show all/ })
          .evaluate((b) => (b as HTMLButtonElement).click())
        await article.getByRole('button', { name: /^Show all/ }).waitFor({ state: 'detached' })
        const body = await shown(ada, id)
        expect(body.depth, input.name).toBeLessThanOrEqual(MARKDOWN_BOUNDS.depth)
        expect(firstDifference(letters(visible(body)), letters(input.text)), input.name).toBe('same')
        if (input.name === 'quote-bomb') await screenshot(page, 'hostile-markdown-quote-bomb')
        if (input.name === 'formatted-lines') await screenshot(page, 'hostile-markdown-formatted')
        expanding.push(Math.max(0, ...(await longTasks())))
        whole.add(id)
        await article.focus()
      }
      await page.keyboard.press('ArrowDown')
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('ARTICLE')
    }
    expect(whole.size).toBe(posted.size)
    expect(crashes).toEqual([])
    expect(ada.errors).toEqual([])
    console.log(`longest task per message shown whole (ms): ${expanding.map(Math.round).join(', ')}`)
  }, 300_000)
})
