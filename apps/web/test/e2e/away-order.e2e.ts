/**
 * One order everywhere (decision 21) on a device that was away: Ada's browser saw the first two
 * messages of a crowded second live, then went away (offline, reloaded while offline, or behind a
 * link that stalled) while Bob wrote the rest of that second; in one case she first answered in a
 * later second, Bob's clock being behind hers. When she is back, the relay's answer
 * (newest first) and her IndexedDB cache together show the whole second in the order Bob wrote it,
 * and so does one more reload (offline, the cache alone; then the relay's answer).
 */
import { finalizeEvent, generateSecretKey } from 'nostr-tools'
import { Relay } from 'nostr-tools/relay'
import { describe, expect, test } from 'vitest'
import { type FaultProxy, startFaultProxy } from '../../../../test/support/fault-proxy'
import {
  joinByCode,
  messageIn,
  newPerson,
  nextSecond,
  offlineUnderWorker,
  type Person,
  screenshot,
  send,
  signUp,
  skewClock,
  withStack,
} from './harness'
import { historyEvents, IMPORT_OPTIONS, publishAll } from './seed'

const TALL = { width: 1280, height: 2000 }
/** Messages Bob writes in the crowded second; Ada sees the first {@link SEEN} live. */
const CROWD = 8
const SEEN = 2

const { stack } = withStack({
  relay: { ...IMPORT_OPTIONS },
  seed: async ({ relay }) => {
    await relay.createGroup({ id: 'talk', name: 'Talk' })
    await publishAll(relay.url, historyEvents('talk', 30))
  },
})

/** Bob, writing straight to the relay, each message after the relay's OK to the one before. */
async function bobWrites(texts: readonly string[], createdAt: number, key: Uint8Array): Promise<void> {
  const relay = await Relay.connect(stack.relay.url)
  try {
    for (const content of texts)
      await relay.publish(
        finalizeEvent({ kind: 9, created_at: createdAt, tags: [['h', 'talk']], content }, key),
      )
  } finally {
    relay.close()
  }
}

/** The message texts on screen, top to bottom, of those starting with `prefix`. */
async function shown(person: Person, prefix: string): Promise<string[]> {
  const all = await person.page
    .getByRole('log', { name: 'Messages' })
    .locator('article .body')
    .evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()))
  return all.filter((t) => t.startsWith(prefix))
}

/**
 * Once the relay has answered the group's subscription (the header no longer says "Saved
 * messages") and the app says it is online.
 */
async function answered(person: Person): Promise<void> {
  const { page } = person
  await page.getByRole('heading', { name: 'Talk' }).waitFor()
  await expect.poll(() => page.locator('.sync-status').textContent(), { timeout: 60_000 }).toBe('')
  const banner = page.getByTestId('connection')
  await expect.poll(() => banner.getAttribute('data-status'), { timeout: 60_000 }).toBe('online')
}

/**
 * Ada's browser, talking to the relay through `proxy` (the app's relay is the origin that served
 * it), in Talk with its history on screen; Bob writes the first {@link SEEN} messages of the
 * crowded second and she sees them live. Returns the crowd's texts and Bob's key.
 */
async function adaSeesTheFirstTwo(
  proxy: FaultProxy,
  prefix: string,
  opts: { adaSkewMs?: number; bobAheadS?: number } = {},
) {
  const ada = await newPerson(stack, { viewport: TALL })
  if (opts.adaSkewMs !== undefined) await skewClock(ada, opts.adaSkewMs)
  const base = proxy.url
  await signUp({ ...stack, base }, ada, 'Ada')
  await joinByCode(ada, `${base.replace(/^http/, 'ws')}'talk`)
  await messageIn(ada, 'History message 30 of 30').waitFor({ timeout: 30_000 })
  await answered(ada)
  const crowd = Array.from({ length: CROWD }, (_, i) => `${prefix} ${i + 1} of ${CROWD}`)
  // Every message of the crowd has this second, the relay's now (one clock on this machine):
  // nothing Ada holds is newer.
  const second = Math.floor(Date.now() / 1000) + (opts.bobAheadS ?? 0)
  const bob = generateSecretKey()
  await bobWrites(crowd.slice(0, SEEN), second, bob)
  await messageIn(ada, crowd[SEEN - 1]!).waitFor({ timeout: 30_000 })
  expect(await shown(ada, prefix)).toEqual(crowd.slice(0, SEEN))
  return { ada, crowd, second, bob }
}

/** Bob writes the rest of the crowd while Ada is away; none of it reaches her screen meanwhile. */
async function bobWritesTheRest(
  ada: Person,
  crowd: string[],
  second: number,
  bob: Uint8Array,
  prefix: string,
  held = crowd.slice(0, SEEN),
) {
  await bobWrites(crowd.slice(SEEN), second, bob)
  await ada.page.waitForTimeout(1500)
  expect(await shown(ada, prefix)).toEqual(held)
}

/** The messages of Talk on the relay (kind 9), as it answers a REQ. */
async function onRelay(limit?: number): Promise<{ content: string; created_at: number }[]> {
  const relay = await Relay.connect(stack.relay.url)
  try {
    return await new Promise((resolve) => {
      const got: { content: string; created_at: number }[] = []
      const sub = relay.subscribe([{ kinds: [9], '#h': ['talk'], ...(limit && { limit }) }], {
        onevent: (e) => got.push(e),
        oneose: () => {
          sub.close()
          resolve(got)
        },
      })
    })
  } finally {
    relay.close()
  }
}

/** The `created_at` of the newest message in Talk on the relay. */
async function newestOnRelay(): Promise<number> {
  return Math.max(0, ...(await onRelay(1)).map((e) => e.created_at))
}

/** The `created_at` of the message with this text on the relay, if it has it. */
async function createdAtOnRelay(content: string): Promise<number | undefined> {
  return (await onRelay()).find((e) => e.content === content)?.created_at
}

/** Ada goes offline, and her link to the relay is cut and refused: nothing can reach her. */
async function away(ada: Person, proxy: FaultProxy): Promise<void> {
  await offlineUnderWorker(ada)
  proxy.refuse()
  proxy.cut()
}

/** Ada's browser is online again and the link lets her through. */
async function back(ada: Person, proxy: FaultProxy): Promise<void> {
  proxy.refuse(0)
  await ada.context.setOffline(false)
}

/**
 * One more reload, offline with the link cut: IndexedDB alone shows the whole crowd in Bob's
 * order; then, online again, so does the relay's answer.
 */
async function reloadedInOrder(ada: Person, proxy: FaultProxy, crowd: string[], prefix: string) {
  await away(ada, proxy)
  await ada.page.reload()
  await messageIn(ada, crowd.at(-1)!).waitFor({ timeout: 30_000 })
  await ada.page.locator('.sync-status').filter({ hasText: 'Saved messages · offline' }).waitFor()
  expect(await shown(ada, prefix)).toEqual(crowd)
  await back(ada, proxy)
  await answered(ada)
  expect(await shown(ada, prefix)).toEqual(crowd)
}

describe('a crowded second written while this browser was away', () => {
  test('offline (its link cut): back online, the second shows in the order written, and after a reload', async () => {
    const proxy = await startFaultProxy(stack.base)
    try {
      const prefix = 'Offline crowd'
      const { ada, crowd, second, bob } = await adaSeesTheFirstTwo(proxy, prefix)
      // Offline: the browser says so, and its connection to the relay is gone and cannot come back.
      await away(ada, proxy)
      await bobWritesTheRest(ada, crowd, second, bob, prefix)

      await back(ada, proxy)
      await messageIn(ada, crowd.at(-1)!).waitFor({ timeout: 60_000 })
      expect(await shown(ada, prefix)).toEqual(crowd)
      await screenshot(ada.page, 'away-order-offline')

      await reloadedInOrder(ada, proxy, crowd, prefix)
      expect(ada.errors).toEqual([])
    } finally {
      await proxy.close()
    }
  }, 240_000)

  test('reloaded while offline: the cache shows what it held, then the relay the rest, in the order written', async () => {
    const proxy = await startFaultProxy(stack.base)
    try {
      const prefix = 'Reload crowd'
      const { ada, crowd, second, bob } = await adaSeesTheFirstTwo(proxy, prefix)
      await away(ada, proxy)
      await bobWritesTheRest(ada, crowd, second, bob, prefix)

      // The service worker serves the app, IndexedDB the messages: the two seen live, nothing more.
      await ada.page.reload()
      await messageIn(ada, crowd[SEEN - 1]!).waitFor({ timeout: 30_000 })
      await ada.page.locator('.sync-status').filter({ hasText: 'Saved messages · offline' }).waitFor()
      expect(await shown(ada, prefix)).toEqual(crowd.slice(0, SEEN))

      await back(ada, proxy)
      await messageIn(ada, crowd.at(-1)!).waitFor({ timeout: 60_000 })
      await answered(ada)
      expect(await shown(ada, prefix)).toEqual(crowd)
      await screenshot(ada.page, 'away-order-reloaded-offline')

      await reloadedInOrder(ada, proxy, crowd, prefix)
      expect(ada.errors).toEqual([])
    } finally {
      await proxy.close()
    }
  }, 240_000)

  test('Bob’s clock behind Ada’s: though she holds a newer message of her own, the rest of the second goes after what she saw, and after a reload', async () => {
    const proxy = await startFaultProxy(stack.base)
    try {
      const prefix = 'Skewed crowd'
      const { ada, crowd, second, bob } = await adaSeesTheFirstTwo(proxy, prefix)
      // Ada answers in a later second by her clock; Bob's stays in the crowded second.
      await nextSecond()
      const reply = `${prefix}: Ada answers`
      await send(ada, reply)
      await messageIn(ada, reply).waitFor()
      await expect.poll(() => createdAtOnRelay(reply), { timeout: 30_000 }).toBeGreaterThan(second)
      await away(ada, proxy)
      await bobWritesTheRest(ada, crowd, second, bob, prefix, [...crowd.slice(0, SEEN), reply])

      await back(ada, proxy)
      await messageIn(ada, crowd.at(-1)!).waitFor({ timeout: 60_000 })
      await answered(ada)
      // Each in its second: the whole crowd in Bob's order, then Ada's answer.
      expect(await shown(ada, prefix)).toEqual([...crowd, reply])
      await screenshot(ada.page, 'away-order-skewed')

      await reloadedInOrder(ada, proxy, [...crowd, reply], prefix)
      expect(ada.errors).toEqual([])
    } finally {
      await proxy.close()
    }
  }, 240_000)

  test('behind a stalled link: once it flows again, the second shows in the order written, and after a reload', async () => {
    const proxy = await startFaultProxy(stack.base)
    try {
      const prefix = 'Stalled crowd'
      const { ada, crowd, second, bob } = await adaSeesTheFirstTwo(proxy, prefix)
      // Nothing moves either way and nothing closes, until the app gives the socket up as dead.
      proxy.blackhole()
      await bobWritesTheRest(ada, crowd, second, bob, prefix)
      const banner = ada.page.getByTestId('connection')
      await expect.poll(() => banner.getAttribute('data-status'), { timeout: 90_000 }).not.toBe('online')
      expect(await shown(ada, prefix)).toEqual(crowd.slice(0, SEEN))

      // The link flows again: the app has given its socket up and opens a new one.
      proxy.restore()
      await messageIn(ada, crowd.at(-1)!).waitFor({ timeout: 90_000 })
      expect(await shown(ada, prefix)).toEqual(crowd)
      await screenshot(ada.page, 'away-order-stalled')

      await reloadedInOrder(ada, proxy, crowd, prefix)
      expect(ada.errors).toEqual([])
    } finally {
      await proxy.close()
    }
  }, 240_000)
})

/**
 * Ada's own clock is wrong, ahead or behind the relay's (and Bob's). She answers the first two
 * messages of the crowded second before she goes away, so she holds a message of her own there.
 *
 * Where her answer goes: an event of ours is dated by our clock, moved back onto the relay's when
 * it runs ahead, and never below the newest second we hold (it sorts after everything we had seen
 * when we sent it). Bob's clock runs 30 s ahead of the relay here (within its window), so the
 * crowded second is newer than the relay's now: whichever way Ada's clock is wrong, her answer is
 * dated in the crowded second itself, the same second as Bob's messages. Within a second, decision
 * 21 orders by the relay's order (arrival), and her answer names the first two in its `previous`
 * tag: it goes after Bob's first two and before the six he wrote while she was away, on every
 * device, live, after her return, and after each reload.
 */
describe('a crowded second written while this browser was away, its own clock wrong', () => {
  const MINUTE = 60_000
  test.each([
    { clock: '90 s ahead', skew: 90_000, slug: 'ahead-90s' },
    { clock: '2 hours ahead', skew: 120 * MINUTE, slug: 'ahead-2h' },
    { clock: '90 s behind', skew: -90_000, slug: 'behind-90s' },
    { clock: '2 hours behind', skew: -120 * MINUTE, slug: 'behind-2h' },
  ])(
    'her clock $clock: her answer stays between what she saw and what Bob wrote meanwhile, back online and after a reload',
    async ({ skew, slug }) => {
      const proxy = await startFaultProxy(stack.base)
      try {
        const prefix = `Clock ${slug} crowd`
        const { ada, crowd, second, bob } = await adaSeesTheFirstTwo(proxy, prefix, {
          adaSkewMs: skew,
          bobAheadS: 30,
        })
        const wrong = await ada.page.evaluate(() => Date.now() - performance.timeOrigin - performance.now())
        expect(Math.abs(wrong - skew)).toBeLessThan(5_000)

        const reply = `${prefix}: Ada answers`
        await send(ada, reply)
        await messageIn(ada, reply).waitFor()
        await expect.poll(() => createdAtOnRelay(reply), { timeout: 30_000 }).toBe(second)
        const seen = [...crowd.slice(0, SEEN), reply]
        expect(await shown(ada, prefix)).toEqual(seen)

        await away(ada, proxy)
        await bobWritesTheRest(ada, crowd, second, bob, prefix, seen)

        await back(ada, proxy)
        await messageIn(ada, crowd.at(-1)!).waitFor({ timeout: 60_000 })
        await answered(ada)
        const written = [...seen, ...crowd.slice(SEEN)]
        expect(await shown(ada, prefix)).toEqual(written)
        await screenshot(ada.page, `away-order-clock-${slug}`)

        await reloadedInOrder(ada, proxy, written, prefix)
        expect(ada.errors).toEqual([])
      } finally {
        await proxy.close()
      }
    },
    240_000,
  )
})

/**
 * Ada's clock runs 90 s ahead and her browser starts offline, so it cannot ask the relay its time
 * (NIP-11) then. Once the relay is reachable it must learn it: her message is dated by the relay's
 * clock (or the newest second she holds, if later), and what Bob writes after it, by the relay's
 * clock, goes after it (decision 21: `created_at` first). Dated by her
 * own clock it would sort after everything anyone writes in the next 90 s, on every device (and a
 * relay that refuses events from its future would refuse it).
 */
describe('a browser whose clock runs ahead, reloaded while offline', () => {
  test('back online, its message is dated by the relay’s clock, and what Bob writes next goes after it, and after a reload', async () => {
    const proxy = await startFaultProxy(stack.base)
    try {
      const prefix = 'Reloaded ahead crowd'
      const ada = await newPerson(stack, { viewport: TALL })
      await skewClock(ada, 90_000)
      const base = proxy.url
      await signUp({ ...stack, base }, ada, 'Ada')
      await joinByCode(ada, `${base.replace(/^http/, 'ws')}'talk`)
      await answered(ada)
      await away(ada, proxy)
      await ada.page.reload()
      await ada.page.locator('.sync-status').filter({ hasText: 'Saved messages · offline' }).waitFor()
      await back(ada, proxy)
      await answered(ada)

      // Her message goes no lower than the newest second she holds (other cases here wrote into a
      // second ahead of the relay's now): Bob answers in a later second than both.
      const held = await newestOnRelay()
      const mine = `${prefix}: Ada writes`
      await send(ada, mine)
      await messageIn(ada, mine).waitFor()
      await expect.poll(() => createdAtOnRelay(mine), { timeout: 30_000 }).toBeDefined()
      await nextSecond()
      const crowd = Array.from({ length: 3 }, (_, i) => `${prefix} ${i + 1} of 3`)
      const second = Math.max(Math.floor(Date.now() / 1000), held + 1)
      await bobWrites(crowd, second, generateSecretKey())
      await messageIn(ada, crowd.at(-1)!).waitFor({ timeout: 30_000 })
      await screenshot(ada.page, 'away-order-reloaded-ahead')
      expect(await shown(ada, prefix)).toEqual([mine, ...crowd])
      expect(await createdAtOnRelay(mine)).toBeLessThan(second)

      await reloadedInOrder(ada, proxy, [mine, ...crowd], prefix)
      expect(ada.errors).toEqual([])
    } finally {
      await proxy.close()
    }
  }, 240_000)
})
