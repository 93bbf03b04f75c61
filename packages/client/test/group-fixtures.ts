/**
 * What the Group unit tests share: one group, our key and the relay's, events as the pool hands
 * them over (verified: a real id, a placeholder signature), a group with no network behind it, and
 * read state as another device moves it.
 */
import { GroupKey } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { getEventHash } from 'nostr-tools/pure'
import { brandVerified, LocalSigner, MemoryEventStore, type ReadStateSource, RelayPool } from '../src'
import { GroupCore } from '../src/groups/group-core'

export const ME = '1'.repeat(64)
export const RELAY_KEY = '2'.repeat(64)
export const KEY = new GroupKey('wss://groups.example.com', 'general')
export const CHANNEL = KEY.toString()

/** A stored-and-verified event of the group (its `h` tag first, then `tags`). */
export function event(
  kind: number,
  pubkey: string,
  createdAt: number,
  tags: string[][],
  content: string,
): NostrEvent {
  const t = { kind, pubkey, created_at: createdAt, tags: [['h', 'general'], ...tags], content }
  return brandVerified({ ...t, id: getEventHash(t), sig: 'ab'.repeat(64) })
}

/**
 * A group of {@link KEY} as the registry would make it, with a pool that never connects: its core,
 * whose `ingest` the tests call as the registry does (its `group` is what a UI holds).
 */
export function offlineGroup(
  opts: { readState?: ReadStateSource | undefined; relayKey?: (() => string) | undefined; now?: number } = {},
): GroupCore {
  return new GroupCore(KEY, {
    pool: new RelayPool(),
    store: new MemoryEventStore(),
    signer: LocalSigner.generate(),
    me: ME,
    clock: () => opts.now ?? 1_000,
    ...(opts.readState ? { readState: opts.readState } : {}),
    relayKey: opts.relayKey ?? (() => RELAY_KEY),
    pinRelayKey: () => {},
  })
}

/** Read state as another device's blobs move it: every context, max-merged, listeners told. */
export function movingReadState(): ReadStateSource & { contexts: Record<string, number> } {
  const listeners = new Set<() => void>()
  const contexts: Record<string, number> = {}
  return {
    contexts,
    frontier: (ctx) => contexts[ctx] ?? 0,
    markRead(ctx, ts) {
      contexts[ctx] = Math.max(contexts[ctx] ?? 0, ts)
      for (const l of listeners) l()
    },
    subscribe(l) {
      listeners.add(l)
      return () => listeners.delete(l)
    },
  }
}
