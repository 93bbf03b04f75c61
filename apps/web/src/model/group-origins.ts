/**
 * Where groups came from, for telling look-alikes apart (`lib/lookalike.ts`): each group's creation
 * event (9007) and member list (39002), and the relay's NIP-11 bound on how old an accepted event
 * may be. Fetched once per group and kept for the session.
 */
import type { RelayInfo, RelayPool } from '@roost/client'
import { GroupMembers, KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools'
import type { GroupOrigin } from '../lib/lookalike'

const CREATE_KIND = 9007

/**
 * The origin of group `id` from the events a relay served: its oldest 9007 (the relay refuses a
 * second one for the same id, so there is one), the relay-signed 39002. `lowerLimit` is the
 * relay's NIP-11 `created_at_lower_limit` (undefined: it takes events of any age).
 *
 * @example
 * originOf('general', events, relayKey, 600) // { byOperator: true, createdAt: 1733130000, members: 3 }
 */
export function originOf(
  id: string,
  events: readonly NostrEvent[],
  relayKey: string | undefined,
  lowerLimit: number | undefined,
): GroupOrigin {
  const created = events
    .filter((e) => e.kind === CREATE_KIND && e.tags.some((t) => t[0] === 'h' && t[1] === id))
    .sort((a, b) => a.created_at - b.created_at)[0]
  const list = events
    .filter(
      (e) =>
        e.kind === KINDS.members &&
        (relayKey === undefined || e.pubkey === relayKey) &&
        e.tags.some((t) => t[0] === 'd' && t[1] === id),
    )
    .sort((a, b) => b.created_at - a.created_at)[0]
  let members: number | undefined
  try {
    members = list ? GroupMembers.parse(list).entries.length : undefined
  } catch {
    members = undefined
  }
  const byOperator = created !== undefined && relayKey !== undefined && created.pubkey === relayKey
  const vouched = created !== undefined && (byOperator || (lowerLimit !== undefined && lowerLimit > 0))
  return {
    byOperator,
    ...(created && vouched ? { createdAt: created.created_at } : {}),
    ...(created && !vouched ? { claimedAt: created.created_at } : {}),
    ...(members !== undefined ? { members } : {}),
  }
}

/** The relay's `limitation.created_at_lower_limit`, when it is a positive number. */
function lowerLimitOf(info: RelayInfo | undefined): number | undefined {
  const v = info?.limitation?.created_at_lower_limit
  return typeof v === 'number' && v > 0 ? v : undefined
}

/**
 * The origins of groups, asked of their relay once per group and kept for the session.
 * @example
 * const origins = new GroupOrigins(pool, (relay) => registry.relayKey(relay))
 * await origins.origins('wss://relay.example', ['general', 'general-chat']) // { general: { byOperator: true, … }, … }
 */
export class GroupOrigins {
  private readonly known = new Map<string, Promise<GroupOrigin>>()

  constructor(
    private readonly pool: Pick<RelayPool, 'fetch' | 'relayInfo'>,
    /** The relay's key once known (decision 3). */
    private readonly relayKey: (relay: string) => string | undefined,
  ) {}

  /** The origins of groups `ids` on `relay` (normalized URL), asking the relay once for those not yet known. */
  async origins(relay: string, ids: readonly string[]): Promise<Record<string, GroupOrigin>> {
    const missing = [...new Set(ids)].filter((id) => !this.known.has(`${relay}'${id}`))
    if (missing.length > 0) {
      const batch = this.fetch(relay, missing)
      for (const id of missing) {
        const k = `${relay}'${id}`
        this.known.set(
          k,
          batch.then(
            (all) => all[id] as GroupOrigin,
            (err: unknown) => {
              this.known.delete(k) // asked again next time
              throw err
            },
          ),
        )
      }
    }
    const out: Record<string, GroupOrigin> = {}
    await Promise.all(
      ids.map(async (id) => {
        const o = await this.known.get(`${relay}'${id}`)?.catch(() => undefined)
        if (o) out[id] = o
      }),
    )
    return out
  }

  private async fetch(relay: string, ids: string[]): Promise<Record<string, GroupOrigin>> {
    const info = await this.pool.relayInfo(relay).catch(() => undefined)
    const key = this.relayKey(relay) ?? info?.self ?? info?.pubkey
    const events = await this.pool.fetch(
      [relay],
      [
        { kinds: [CREATE_KIND], '#h': ids, limit: ids.length * 2 },
        { kinds: [KINDS.members], '#d': ids, ...(key ? { authors: [key] } : {}), limit: ids.length * 2 },
      ],
      { timeout: 6000 },
    )
    const limit = lowerLimitOf(info)
    return Object.fromEntries(ids.map((id) => [id, originOf(id, events, key, limit)]))
  }
}
