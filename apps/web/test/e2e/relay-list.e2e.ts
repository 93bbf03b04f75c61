import { type RelayHandle, startRelay } from '@roost/relay'
import { finalizeEvent, nip19 } from 'nostr-tools'
import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { joinByCode, messageIn, send, signUp, withStack } from './harness'

setPoolWebSocket(WebSocket)

// Ada signs in in the test; Bob writes in General.
const {
  stack,
  people: [ada, bob],
} = withStack({ relay: { demo: true }, people: [{}, { name: 'Bob', join: ['general'] }] })
let outbox: RelayHandle
beforeAll(async () => {
  outbox = await startRelay({ port: 0, host: '127.0.0.1', db: ':memory:' })
})
afterAll(async () => {
  await outbox?.close()
})

async function count(relay: string, kind: number, pubkey: string): Promise<number> {
  const pool = new SimplePool()
  try {
    return (await pool.querySync([relay], { kinds: [kind], authors: [pubkey] })).length
  } finally {
    pool.close([relay])
  }
}

describe("the user's NIP-65 relay list found after start", () => {
  test('moves read state to its write relays at once, and Settings stops offering to publish one', async () => {
    await signUp(stack, ada, 'Ada')
    await joinByCode(ada, `${stack.relay.url}'general`)
    await messageIn(ada, 'Welcome to Roost! This is the general channel.').waitFor()
    const { page } = ada
    await page.getByRole('button', { name: 'Settings and account' }).click()
    const offer = page.getByRole('button', { name: 'Publish my relay list' })
    await offer.waitFor({ timeout: 15_000 })

    // Another Nostr app of Ada's publishes her list now: the outbox is a write relay.
    const secret = nip19.decode(ada.nsec!).data as Uint8Array
    const list = finalizeEvent(
      {
        kind: 10002,
        created_at: Math.floor(Date.now() / 1000),
        tags: [
          ['r', stack.relay.url, 'read'],
          ['r', outbox.url],
        ],
        content: '',
      },
      secret,
    )
    const pool = new SimplePool()
    try {
      await Promise.all(pool.publish([stack.relay.url], list))
    } finally {
      pool.close([stack.relay.url])
    }
    await offer.waitFor({ state: 'detached', timeout: 20_000 })
    await page.keyboard.press('Escape')

    // What Ada reads from now on goes to the outbox.
    expect(await count(outbox.url, 30078, ada.pubkey!)).toBe(0)
    await send(bob, 'Read after the list came')
    await messageIn(ada, 'Read after the list came').waitFor()
    await expect.poll(() => count(outbox.url, 30078, ada.pubkey!), { timeout: 30_000 }).toBeGreaterThan(0)
    expect(ada.errors).toEqual([])
  })
})
