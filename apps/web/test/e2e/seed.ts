/**
 * Fills a group on the test relay with `count` signed kind 9 messages from a few authors, spread
 * over the past, straight over a WebSocket (the relay must run with `lateWindow: 0` and
 * `previousMinimum: 0`, its import settings, and a rate limit that allows the burst).
 */
import { finalizeEvent, generateSecretKey, type NostrEvent } from 'nostr-tools'
import { Relay, useWebSocketImplementation as setWebSocketImplementation } from 'nostr-tools/relay'
import WebSocket from 'ws'

setWebSocketImplementation(WebSocket)

export const IMPORT_OPTIONS = {
  lateWindow: 0,
  previousMinimum: 0,
  rateLimit: { events: 1_000_000, perSeconds: 1 },
} as const

export function historyEvents(
  groupId: string,
  count: number,
  opts: { authors?: number; spacing?: number; keys?: readonly Uint8Array[] } = {},
) {
  const keys = opts.keys ?? Array.from({ length: opts.authors ?? 4 }, () => generateSecretKey())
  const now = Math.floor(Date.now() / 1000)
  const spacing = opts.spacing ?? 20
  const events: NostrEvent[] = []
  for (let i = 0; i < count; i++) {
    events.push(
      finalizeEvent(
        {
          kind: 9,
          created_at: now - (count - i) * spacing,
          tags: [['h', groupId]],
          content: `History message ${i + 1} of ${count}`,
        },
        keys[i % keys.length]!,
      ),
    )
  }
  return events
}

/** Publishes in batches, waiting for every OK; throws on the first refusal. */
export async function publishAll(url: string, events: NostrEvent[], batch = 200): Promise<void> {
  const relay = await Relay.connect(url)
  try {
    for (let i = 0; i < events.length; i += batch) {
      await Promise.all(events.slice(i, i + batch).map((e) => relay.publish(e)))
    }
  } finally {
    relay.close()
  }
}
