import type { RelayUrlCache } from '@roost/nip29'
import { type RelayPool, relayKeyOf } from '../pool'
import type { EventStore } from '../store'

const RELAY_KEYS = 'roost:groups:relay-keys'
const PINNED = 'roost:groups:relay-keys-pinned'

/**
 * The key each group relay signs its state with (decision 3): NIP-11 `self ?? pubkey` (asked once
 * per relay), else a hint (an naddr's pubkey), else the author of the first 39000 seen (pinned).
 * Remembered in the store across restarts; `onChange(relay)` tells the groups on that relay.
 */
export class RelayKeys {
  private readonly keys = new Map<string, string>()
  private readonly resolving = new Map<string, Promise<string | undefined>>()
  /** Relays whose key is only the author of the first 39000 seen: nothing vouches for it. */
  private readonly pinned = new Set<string>()

  constructor(
    private readonly store: EventStore,
    private readonly pool: RelayPool,
    private readonly urls: RelayUrlCache,
    private readonly onChange: (relay: string) => void,
  ) {}

  /** Loads the keys saved by an earlier session. */
  async load(): Promise<void> {
    const [saved, pinned] = await Promise.all([
      this.store.getValue<Record<string, string>>(RELAY_KEYS),
      this.store.getValue<string[]>(PINNED),
    ])
    for (const [relay, key] of Object.entries(saved ?? {})) this.keys.set(relay, key)
    for (const relay of Array.isArray(pinned) ? pinned : []) if (this.keys.has(relay)) this.pinned.add(relay)
  }

  /** The key in use for a relay, if known. */
  get(relay: string): string | undefined {
    return this.keys.get(this.urls.normalize(relay))
  }

  /** The key for an already normalized relay URL (the hot path: every moderator check). */
  known(relay: string): string | undefined {
    return this.keys.get(relay)
  }

  /** True when the relay's key is only pinned from the first 39000 seen (NIP-11 gave none). */
  isPinned(relay: string): boolean {
    return this.pinned.has(relay)
  }

  /** Sets (and saves) the key for a relay, vouched for by NIP-11 or an naddr. */
  set(relay: string, key: string, pinned = false): void {
    const wasPinned = this.pinned.has(relay)
    if (this.keys.get(relay) === key && wasPinned === pinned) return
    this.keys.set(relay, key)
    if (pinned) this.pinned.add(relay)
    else this.pinned.delete(relay)
    void this.store.setValue(RELAY_KEYS, Object.fromEntries(this.keys)).catch(() => {})
    if (pinned || wasPinned) void this.store.setValue(PINNED, [...this.pinned]).catch(() => {})
    this.onChange(relay)
  }

  /** Takes a hint (an naddr's pubkey) when nothing is known. */
  hint(relay: string, pubkey: string): void {
    if (!this.keys.has(relay)) this.set(relay, pubkey)
  }

  /** Decision 3's last resort: pins the author of the first 39000 seen, when nothing is known. */
  pin(relay: string, pubkey: string): void {
    if (!this.keys.has(relay)) this.set(relay, pubkey, true)
  }

  /** NIP-11 once per relay: `self ?? pubkey`, else the hint (naddr pubkey), else whatever is pinned. */
  resolve(relay: string, hint?: string): Promise<string | undefined> {
    let p = this.resolving.get(relay)
    if (!p) {
      p = this.pool.relayInfo(relay).then((info) => {
        const key = relayKeyOf(info)
        if (key) this.set(relay, key)
        return this.keys.get(relay)
      })
      this.resolving.set(relay, p)
    }
    return p.then((key) => {
      if (!key && hint) {
        this.set(relay, hint)
        return hint
      }
      return key
    })
  }
}
