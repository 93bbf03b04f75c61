/**
 * One order everywhere (decision 21): messages two people write within one second show in the
 * order they were written on both their screens, on a fresh device of one of them that scrolls the
 * whole history in (through seconds holding more messages than a page), and on that device again
 * after a reload (its IndexedDB cache, then the relay).
 */
import { finalizeEvent, generateSecretKey, type NostrEvent } from 'nostr-tools'
import { Relay } from 'nostr-tools/relay'
import { describe, expect, test } from 'vitest'
import {
  messageIn,
  newPerson,
  type Person,
  screenshot,
  send,
  sidebarGroup,
  signInWithNsec,
  withStack,
} from './harness'
import { IMPORT_OPTIONS, publishAll } from './seed'

const TALL = { width: 1280, height: 2000 }
/** Earlier history: 160 messages from two others, 40 to a second (a page of the app is 100). */
const EARLIER = 160
const earlierText = (i: number) => `Earlier ${i + 1} of ${EARLIER}`

function earlierHistory(groupId: string): NostrEvent[] {
  const keys = [generateSecretKey(), generateSecretKey()]
  const base = Math.floor(Date.now() / 1000) - 120
  return Array.from({ length: EARLIER }, (_, i) =>
    finalizeEvent(
      { kind: 9, created_at: base + Math.floor(i / 40), tags: [['h', groupId]], content: earlierText(i) },
      keys[i % 2]!,
    ),
  )
}

const {
  stack,
  people: [ada, bob],
} = withStack({
  relay: { ...IMPORT_OPTIONS },
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'talk', name: 'Talk' })
    // Published in this order over one socket: the relay's arrival order, its order of each second.
    await publishAll(relay.url, earlierHistory('talk'))
  },
  people: [
    { name: 'Ada', join: ['talk'], viewport: TALL },
    { name: 'Bob', join: ['talk'], viewport: TALL },
  ],
})

/** The message texts on screen, top to bottom. */
async function shownTexts(person: Person): Promise<string[]> {
  return person.page
    .getByRole('log', { name: 'Messages' })
    .locator('article .body')
    .evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()))
}

/** Scrolls to the top until the first message of the history has loaded. */
async function scrollToFirst(person: Person): Promise<void> {
  const log = person.page.getByRole('log', { name: 'Messages' })
  await expect
    .poll(
      async () => {
        await log.evaluate((el) => {
          el.scrollTop = 0
        })
        return messageIn(person, earlierText(0)).count()
      },
      { timeout: 60_000, interval: 200 },
    )
    .toBe(1)
}

/** Every message of the (virtualized) list, top to bottom: read while scrolling down through it. */
async function allTexts(person: Person): Promise<string[]> {
  const log = person.page.getByRole('log', { name: 'Messages' })
  const byIndex = new Map<number, string>()
  await log.evaluate((el) => {
    el.scrollTop = 0
  })
  for (let step = 0; step < 400; step++) {
    await person.page.waitForTimeout(30) // the list renders what scrolled in
    const rows = await log.evaluate((el) =>
      [...el.querySelectorAll('[data-index]')].map(
        (row) =>
          [
            Number(row.getAttribute('data-index')),
            row.querySelector('article .body')?.textContent?.trim(),
          ] as const,
      ),
    )
    for (const [index, text] of rows) if (text !== undefined) byIndex.set(index, text)
    const end = await log.evaluate((el) => {
      const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 2
      el.scrollTop += Math.floor(el.clientHeight * 0.7)
      return atEnd
    })
    if (end) break
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, text]) => text)
}

describe('messages of one second', () => {
  test('show in the order written on both screens, on a fresh device that scrolls back to the first, and after its reload', async () => {
    // Both pages' clocks stand still within each second, so every message of a round shares its
    // created_at: a question, a second line from the same person, and the answer once both were seen.
    // Seconds just behind the relay's clock: a device clock ahead of it would be corrected onto it.
    const start = Math.floor(Date.now() / 1000) - 20
    const written: string[] = []
    for (let round = 0; round < 6; round++) {
      const at = new Date((start + round) * 1000)
      for (const p of [ada, bob]) await p.page.clock.setFixedTime(at)
      const question = [`Q${round}: bring the slides?`, `Q${round}: and the cable`]
      for (const text of question) {
        await send(ada, text)
        await messageIn(ada, text).waitFor()
      }
      await messageIn(bob, question[1]!).waitFor()
      const answer = `A${round}: sure`
      await send(bob, answer)
      await messageIn(ada, answer).waitFor()
      written.push(...question, answer)
    }
    // Each round's three messages share one second on the relay, as sent.
    const relay = await Relay.connect(stack.relay.url)
    const stored = new Map<string, number>()
    await new Promise<void>((resolve) => {
      const sub = relay.subscribe([{ kinds: [9], '#h': ['talk'], since: start }], {
        onevent: (e) => stored.set(e.content, e.created_at),
        oneose: () => {
          sub.close()
          resolve()
        },
      })
    })
    relay.close()
    expect(written.map((t) => stored.get(t))).toEqual(written.map((_, i) => start + Math.floor(i / 3)))
    const conversation = (texts: string[]) => texts.filter((t) => written.includes(t))
    expect(conversation(await shownTexts(ada))).toEqual(written)
    expect(conversation(await shownTexts(bob))).toEqual(written)
    await screenshot(bob.page, 'same-second-live')

    // A fresh device of Bob's: his key in a new browser profile.
    const fresh = await newPerson(stack, { viewport: TALL })
    await signInWithNsec(stack, fresh, bob.nsec!)
    await sidebarGroup(fresh, 'Talk').click()
    await messageIn(fresh, written.at(-1)!).waitFor()
    expect(conversation(await shownTexts(fresh))).toEqual(written)
    await scrollToFirst(fresh)
    const whole = [...Array.from({ length: EARLIER }, (_, i) => earlierText(i)), ...written]
    expect(await allTexts(fresh)).toEqual(whole)

    // The same device after a reload: its cache first, then the relay.
    await fresh.page.reload()
    await sidebarGroup(fresh, 'Talk').click()
    await messageIn(fresh, written.at(-1)!).waitFor()
    await scrollToFirst(fresh)
    expect(await allTexts(fresh)).toEqual(whole)
    await screenshot(fresh.page, 'same-second-fresh-device')
    for (const p of [ada, bob, fresh]) expect(p.errors).toEqual([])
  }, 240_000)
})
