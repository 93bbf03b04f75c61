import { nip19 } from 'nostr-tools'
import { getConversationKey, decrypt as nip44Decrypt } from 'nostr-tools/nip44'
import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { joinByCode, messageIn, newTab, send, sidebarGroup, signUp, withStack } from './harness'

setPoolWebSocket(WebSocket)

// Ada signs in in the test; Bob writes in General.
const {
  stack,
  people: [ada, bob],
} = withStack({ relay: { demo: true }, people: [{}, { name: 'Bob', join: ['general'] }] })

interface Blob {
  slot: string
  clientId: string
  newest: number
}

/** Ada's read-state blobs on the relay, decrypted: slot, client_id and the newest mark. */
async function blobs(): Promise<Blob[]> {
  const pool = new SimplePool()
  try {
    const events = await pool.querySync([stack.relay.url], { kinds: [30078], authors: [ada.pubkey!] })
    const secret = nip19.decode(ada.nsec!).data as Uint8Array
    const key = getConversationKey(secret, ada.pubkey!)
    return events.map((e) => {
      const blob = JSON.parse(nip44Decrypt(e.content, key)) as {
        client_id: string
        contexts: Record<string, number>
      }
      return {
        slot: e.tags.find((t) => t[0] === 'd')?.[1] ?? '',
        clientId: blob.client_id,
        newest: Math.max(0, ...Object.values(blob.contexts)),
      }
    })
  } finally {
    pool.close([stack.relay.url])
  }
}

/** Waits until the relay holds a blob with a mark from `since` on; returns every blob then. */
async function publishedSince(since: number): Promise<Blob[]> {
  let all: Blob[] = []
  await expect
    .poll(
      async () => {
        all = await blobs()
        return all.some((b) => b.newest >= since)
      },
      { timeout: 30_000, interval: 500 },
    )
    .toBe(true)
  return all
}

describe('tabs of one browser profile', () => {
  test('share one read-state installation, and the last tab open carries on when the first closes', async () => {
    await signUp(stack, ada, 'Ada')
    await joinByCode(ada, `${stack.relay.url}'general`)
    await messageIn(ada, 'Welcome to Roost! This is the general channel.').waitFor()
    // The first tab looks elsewhere, once it has published what it read; the second reads.
    await ada.page.getByRole('button', { name: 'Browse groups' }).click()
    const opened = await publishedSince(1)
    expect(opened).toHaveLength(1)
    const second = await newTab(ada)
    await second.page.goto(stack.base)
    await sidebarGroup(second, 'General').click()

    const t1 = Math.floor(Date.now() / 1000)
    await send(bob, 'Read in the second tab')
    await messageIn(second, 'Read in the second tab').waitFor()
    // The first tab learns it was read (no badge), and one blob carries it: one slot, one client_id.
    await expect
      .poll(() => sidebarGroup(ada, 'General').getByTestId('unread-badge').count(), { timeout: 20_000 })
      .toBe(0)
    const first = await publishedSince(t1)
    expect(first.map((b) => [b.slot, b.clientId])).toEqual([[opened[0]!.slot, opened[0]!.clientId]])

    // Now the first tab reads: still the same installation, not a clone of the second.
    await new Promise((r) => setTimeout(r, 1100))
    const t1b = Math.floor(Date.now() / 1000)
    await send(bob, 'Read in the first tab')
    await sidebarGroup(ada, 'General').click()
    await messageIn(ada, 'Read in the first tab').waitFor()
    const both = await publishedSince(t1b)
    expect(both.map((b) => [b.slot, b.clientId])).toEqual([[opened[0]!.slot, opened[0]!.clientId]])

    // The first tab (the leader) closes: the second takes over, with the same ids.
    await ada.page.close()
    await new Promise((r) => setTimeout(r, 1100))
    const t2 = Math.floor(Date.now() / 1000)
    await send(bob, 'Read after the first tab closed')
    await messageIn(second, 'Read after the first tab closed').waitFor()
    const after = await publishedSince(t2)
    expect(after.map((b) => b.slot)).toEqual([first[0]!.slot])
    expect(after.map((b) => b.clientId)).toEqual([first[0]!.clientId])
    expect(second.errors).toEqual([])
  })
})
