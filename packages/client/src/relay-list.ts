import { tryNormalizeRelayUrl } from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from './pool'
import type { UserRelays } from './relays'

/** NIP-65's kind: the user's read and write relays. */
export const RELAY_LIST_KIND = 10002

/**
 * The read and write relays of a kind 10002 (NIP-65): `["r", url]` is both, a third value
 * `read` or `write` only that one. Bad URLs and other tags are skipped.
 *
 * @example
 * parseRelayList(event) // { read: ['wss://in.example'], write: ['wss://out.example'] }
 */
export function parseRelayList(event: Pick<NostrEvent, 'tags'>): UserRelays {
  const read: string[] = []
  const write: string[] = []
  for (const t of event.tags) {
    if (t[0] !== 'r') continue
    const url = tryNormalizeRelayUrl(t[1])
    if (url === undefined) continue
    if (t[2] !== 'write' && !read.includes(url)) read.push(url)
    if (t[2] !== 'read' && !write.includes(url)) write.push(url)
  }
  return { read, write }
}

/**
 * The kind 10002 template for a relay set (what Settings offers to publish).
 *
 * @example
 * await signer.signEvent(relayListTemplate({ read: [a], write: [a, b] }, now))
 */
export function relayListTemplate(relays: UserRelays, createdAt: number): EventTemplate {
  const tags: string[][] = []
  for (const url of new Set([...relays.read, ...relays.write])) {
    const r = relays.read.includes(url)
    const w = relays.write.includes(url)
    tags.push(r && w ? ['r', url] : ['r', url, r ? 'read' : 'write'])
  }
  return { kind: RELAY_LIST_KIND, created_at: createdAt, tags, content: '' }
}

/**
 * Follows the user's 10002: on the configured relays, then also on the list's own write relays,
 * reporting each newer list that names at least one relay.
 */
export class RelayListFollower {
  private newest: NostrEvent | undefined
  private subs = new Map<string, { close(): void }>()
  private closed = false

  constructor(
    private readonly pool: Pick<RelayPool, 'subscribe'>,
    private readonly me: string,
    private readonly onList: (relays: UserRelays, event: NostrEvent) => void,
  ) {}

  /** Follows on these relays (more are added as lists name write relays). */
  watch(relays: readonly string[]): void {
    for (const relay of relays) {
      if (this.closed || this.subs.has(relay)) continue
      const filter = { kinds: [RELAY_LIST_KIND], authors: [this.me], limit: 1 }
      this.subs.set(relay, this.pool.subscribe(relay, [filter], { onevent: (e) => this.receive(e) }))
    }
  }

  private receive(event: NostrEvent): void {
    if (this.closed || event.kind !== RELAY_LIST_KIND || event.pubkey !== this.me) return
    const cur = this.newest
    if (
      cur &&
      (event.created_at < cur.created_at || (event.created_at === cur.created_at && event.id >= cur.id))
    )
      return
    const relays = parseRelayList(event)
    if (relays.read.length + relays.write.length === 0) return
    this.newest = event
    this.watch(relays.write)
    this.onList(relays, event)
  }

  /** Stops following: closes every subscription; no list is reported after this. */
  close(): void {
    this.closed = true
    for (const s of this.subs.values()) s.close()
    this.subs.clear()
  }
}
