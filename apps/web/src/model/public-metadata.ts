/**
 * The 39000 a relay serves to everyone for a group that is not hidden, fetched on its own. A
 * private group refuses its timeline to non-members, so the group's own subscription never sees
 * its metadata; the browse card, the sidebar and the header all read this same event then, so a
 * group has one name, picture and description everywhere.
 */
import type { RelayPool } from '@roost/client'
import { GroupMetadata, KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools'

interface Known {
  meta: GroupMetadata
  createdAt: number
}

export class PublicMetadata {
  private readonly known = new Map<string, Known>()
  private readonly asked = new Set<string>()

  constructor(
    private readonly pool: Pick<RelayPool, 'fetch'>,
    /** The relay's key once known (decision 3); a 39000 signed by anyone else is ignored. */
    private readonly relayKey: (relay: string) => string | undefined,
    private readonly onChange: () => void,
  ) {}

  /** Keeps a relay-signed 39000 (the newest per group); returns whether it changed anything. */
  remember(relay: string, event: NostrEvent): boolean {
    if (event.kind !== KINDS.metadata) return false
    const key = this.relayKey(relay)
    if (key !== undefined && event.pubkey !== key) return false
    let meta: GroupMetadata
    try {
      meta = GroupMetadata.parse(event)
    } catch {
      return false
    }
    const k = `${relay}'${meta.id}`
    const prev = this.known.get(k)
    if (prev && prev.createdAt >= event.created_at) return false
    this.known.set(k, { meta, createdAt: event.created_at })
    this.onChange()
    return true
  }

  /** The group's public metadata if seen; with `fetch`, asks the relay once when it is not. */
  get(relay: string, id: string, fetch: boolean): GroupMetadata | undefined {
    const k = `${relay}'${id}`
    const hit = this.known.get(k)
    if (hit || !fetch || this.asked.has(k)) return hit?.meta
    this.asked.add(k)
    const key = this.relayKey(relay)
    void this.pool
      .fetch(
        [relay],
        [{ kinds: [KINDS.metadata], '#d': [id], ...(key ? { authors: [key] } : {}), limit: 1 }],
        {
          timeout: 6000,
        },
      )
      .then((events) => {
        for (const e of events) this.remember(relay, e)
      })
      .catch(() => this.asked.delete(k))
    return undefined
  }
}
