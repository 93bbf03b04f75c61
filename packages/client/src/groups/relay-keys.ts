import { normalizeRelayUrl } from '@roost/nip29'
import { type RelayPool, relayKeyOf } from '../pool'
import type { EventStore } from '../store'

const RELAY_KEYS = 'roost:groups:relay-keys'

/**
 * The key each group relay signs its state with (decision 3): NIP-11 `self ?? pubkey` (asked once
 * per relay), else a hint (an naddr's pubkey), else the author of the first 39000 seen (pinned).
 * Remembered in the store across restarts; `onChange(relay)` tells the groups on that relay.
 */
export class RelayKeys {
  private readonly keys = new Map<string, string>()
  private readonly resolving = new Map<string, Promise<string | undefined>>()

  constructor(
    private readonly store: EventStore,
    private readonly pool: RelayPool,
    private readonly onChange: (relay: string) => void,
  ) {}

  /** Loads the keys saved by an earlier session. */
  async load(): Promise<void> {
    const saved = await this.store.getValue<Record<string, string>>(RELAY_KEYS)
    for (const [relay, key] of Object.entries(saved ?? {})) this.keys.set(relay, key)
  }

  /** The key in use for a relay, if known. */
  get(relay: string): string | undefined {
    return this.keys.get(normalizeRelayUrl(relay))
  }

  /** The key for an already normalized relay URL (the hot path: every moderator check). */
  known(relay: string): string | undefined {
    return this.keys.get(relay)
  }

  /** Sets (and saves) the key for a relay. */
  set(relay: string, key: string): void {
    if (this.keys.get(relay) === key) return
    this.keys.set(relay, key)
    void this.store.setValue(RELAY_KEYS, Object.fromEntries(this.keys)).catch(() => {})
    this.onChange(relay)
  }

  /** Pins a key when nothing better is known (the first 39000's author). */
  pin(relay: string, pubkey: string): void {
    if (!this.keys.has(relay)) this.set(relay, pubkey)
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
