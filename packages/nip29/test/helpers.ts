import { finalizeEvent, getPublicKey, type NostrEvent } from 'nostr-tools'

/** Fixed keys, so failures reproduce. */
export const relaySecret = new Uint8Array(32).fill(7)
export const aliceSecret = new Uint8Array(32).fill(1)
export const bobSecret = new Uint8Array(32).fill(2)
export const carolSecret = new Uint8Array(32).fill(3)
export const relayKey = getPublicKey(relaySecret)
export const alice = getPublicKey(aliceSecret)
export const bob = getPublicKey(bobSecret)
export const carol = getPublicKey(carolSecret)

export const RELAY = 'wss://groups.example.com'

/** A real, signed event. */
export function signed(
  secret: Uint8Array,
  kind: number,
  tags: string[][],
  opts: { content?: string; createdAt?: number } = {},
): NostrEvent {
  return finalizeEvent(
    { kind, tags, content: opts.content ?? '', created_at: opts.createdAt ?? 1_700_000_000 },
    secret,
  )
}

/** A relay-signed state event for group `id`. */
export function state(kind: number, id: string, tags: string[][], createdAt = 1_700_000_000): NostrEvent {
  return signed(relaySecret, kind, [['d', id], ...tags], { createdAt })
}

/** A hex id with a chosen prefix, for window tests. */
export function hexId(n: number): string {
  return n.toString(16).padStart(8, '0') + 'f'.repeat(56)
}
