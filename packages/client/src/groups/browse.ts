import { GroupMetadata, KINDS } from '@roost/nip29'
import type { RelayPool } from '../pool'
import type { RelayKeys } from './relay-keys'

/** What browsing a relay needs. */
export interface BrowseContext {
  readonly pool: RelayPool
  readonly relayKeys: RelayKeys
}

/**
 * A relay's public groups: its 39000s signed by the relay key, newest first, parsed, one per id;
 * malformed ones are skipped. Without a NIP-11 key, the author of the first 39000 seen is pinned
 * as the relay key (decision 3) and only its groups are listed.
 *
 * @example
 * const list = await browseRelay({ pool, relayKeys }, 'wss://groups.example.com', {})
 */
export async function browseRelay(
  ctx: BrowseContext,
  url: string,
  opts: { limit?: number; timeout?: number },
): Promise<GroupMetadata[]> {
  let key = await ctx.relayKeys.resolve(url)
  const events = await ctx.pool.fetch(
    [url],
    [{ kinds: [KINDS.metadata], limit: opts.limit ?? 200, ...(key ? { authors: [key] } : {}) }],
    { timeout: opts.timeout },
  )
  if (!key) {
    // No NIP-11 key: pin the author of the first 39000 seen (decision 3), and list only its groups.
    const first = events.find((e) => e.kind === KINDS.metadata)
    if (!first) return []
    ctx.relayKeys.pin(url, first.pubkey)
    key = ctx.relayKeys.get(url)
  }
  const out: GroupMetadata[] = []
  const seen = new Set<string>()
  for (const e of [...events].sort((a, b) => b.created_at - a.created_at)) {
    if (e.pubkey !== key) continue
    try {
      const meta = GroupMetadata.parse(e)
      if (seen.has(meta.id)) continue
      seen.add(meta.id)
      out.push(meta)
    } catch {}
  }
  return out
}
