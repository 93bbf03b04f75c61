/**
 * Names and pictures (kind 0) of the people in the open groups: read from the local store at
 * once, then asked from the relays in small batches. Only the newest kind 0 per person counts.
 */
import type { EventStore, RelayPool } from '@roost/client'
import type { NostrEvent } from 'nostr-tools'
import type { Profile } from './types'

const BATCH_MS = 150
const MAX_AUTHORS = 100

function parseProfile(event: NostrEvent): Profile | undefined {
  try {
    const raw = JSON.parse(event.content) as Record<string, unknown>
    const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim().slice(0, 200) : undefined)
    return {
      name: str(raw.display_name) ?? str(raw.name),
      picture: str(raw.picture),
      about: str(raw.about),
    }
  } catch {
    return undefined
  }
}

export class ProfileBook {
  private readonly profiles = new Map<string, { profile: Profile; at: number }>()
  private readonly asked = new Set<string>()
  private queue = new Set<string>()
  private timer: ReturnType<typeof setTimeout> | undefined
  private version = 0
  private closed = false

  constructor(
    private readonly pool: RelayPool,
    private readonly store: EventStore,
    private readonly relays: () => string[],
    private readonly onChange: () => void,
  ) {}

  get changes(): number {
    return this.version
  }

  get(pubkey: string): Profile | undefined {
    if (!this.asked.has(pubkey)) {
      this.asked.add(pubkey)
      this.queue.add(pubkey)
      this.timer ??= setTimeout(() => void this.flush(), BATCH_MS)
    }
    return this.profiles.get(pubkey)?.profile
  }

  /** Asks the relays again for one person's profile (their card is open: show what is current). */
  refresh(pubkey: string): void {
    this.asked.delete(pubkey)
    this.get(pubkey)
  }

  /** A kind 0 from anywhere (our own publish, a relay): keeps it when it is the newest. */
  ingest(event: NostrEvent): void {
    if (event.kind !== 0) return
    const known = this.profiles.get(event.pubkey)
    if (known && known.at >= event.created_at) return
    const profile = parseProfile(event)
    if (!profile) return
    this.profiles.set(event.pubkey, { profile, at: event.created_at })
    this.version++
    this.onChange()
  }

  private async flush(): Promise<void> {
    this.timer = undefined
    const authors = [...this.queue].slice(0, MAX_AUTHORS)
    for (const a of authors) this.queue.delete(a)
    if (this.queue.size > 0) this.timer = setTimeout(() => void this.flush(), BATCH_MS)
    if (authors.length === 0 || this.closed) return
    const cached = await this.store.query({ kinds: [0], authors }).catch(() => [])
    for (const e of cached) this.ingest(e)
    const fetched = await this.pool
      .fetch(this.relays(), [{ kinds: [0], authors }], { timeout: 4000 })
      .catch(() => [])
    for (const e of fetched) {
      this.ingest(e)
      void this.store.add(e).catch(() => undefined)
    }
  }

  close(): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
  }
}
