import { KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { Filter } from 'nostr-tools/filter'
import type { RelayPool } from '../pool'
import type { EventStore } from '../store'
import { planSearch } from '../store/search-rules'

/** The kinds a message search looks at: chat, notes, threads and thread comments. */
export const SEARCH_KINDS: readonly number[] = [KINDS.chat, KINDS.note, KINDS.thread, KINDS.comment]

/** Options of `Group.search` and `GroupsRegistry.search`. */
export interface SearchOptions {
  /** At most this many hits (default 50, at most 500). */
  limit?: number
  /** Only events with created_at ≤ until (the next page: the last hit's created_at). */
  until?: number
  /** Also ask the groups' relays whose NIP-11 lists NIP-50 (default true); false: the local cache only. */
  relays?: boolean
  /** How long to wait for the relays, in ms (default 5 000); the cache answers regardless. */
  timeout?: number
}

/** One search result. */
export interface SearchHit {
  /** The matching event, signed. */
  event: NostrEvent
  /** The group it belongs to (a `GroupKey` string). */
  group: string
  /** Where it was found: the local cache, the group's relay (NIP-50), or both. */
  from: 'cache' | 'relay' | 'both'
}

/** What searching needs to know about one group. */
export interface SearchableGroup {
  readonly key: { readonly relay: string; readonly id: { readonly value: string }; toString(): string }
  /** Whether a 9005 by this pubkey removes a message (moderators). */
  isAdmin(pubkey: string): boolean
  /** Resolves when what the group received is in the store, so the cache answers for it. */
  flushStore(): Promise<unknown>
}

const groupTag = (e: NostrEvent) => e.tags.find((t) => t[0] === 'h')?.[1]

const newestFirst = (a: SearchHit, b: SearchHit) =>
  b.event.created_at - a.event.created_at || (a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0)

/**
 * Searches messages of `groups`: the local cache (`EventStore.search`) and, unless
 * `relays: false`, each group relay whose NIP-11 lists 50 (a NIP-50 REQ scoped to the groups by
 * `#h`); merged, de-duplicated by id, newest first. Messages deleted by their author (kind 5) or a
 * moderator (9005) that the cache knows of are left out; relay hits must carry the `h` of a group
 * asked on that relay. Throws `InvalidQueryError` for a bad text or options.
 *
 * @example
 * const hits = await searchGroups({ store, pool }, roost.groups.groups(), 'pizza')
 */
export async function searchGroups(
  ctx: { store: EventStore; pool: RelayPool },
  groups: readonly SearchableGroup[],
  text: string,
  opts: SearchOptions = {},
): Promise<SearchHit[]> {
  const plan = planSearch({
    text,
    limit: opts.limit,
    ...(opts.until !== undefined && { until: opts.until }),
  })
  if (groups.length === 0 || plan.terms.length === 0 || plan.limit === 0) return []
  const byKey = new Map(groups.map((g) => [g.key.toString(), g]))
  await Promise.all(groups.map((g) => g.flushStore()))
  const hits = new Map<string, SearchHit>()
  const [cached, remote] = await Promise.all([
    ctx.store.search({
      text,
      forks: [...byKey.keys()],
      kinds: [...SEARCH_KINDS],
      limit: plan.limit,
      ...(opts.until !== undefined && { until: opts.until }),
    }),
    opts.relays === false ? [] : relayHits(ctx.pool, groups, text, plan.limit, opts),
  ])
  for (const event of cached) {
    const h = groupTag(event)
    const group = groups.find((g) => g.key.id.value === h)
    if (group) hits.set(event.id, { event, group: group.key.toString(), from: 'cache' })
  }
  for (const hit of remote) {
    const known = hits.get(hit.event.id)
    if (known) known.from = 'both'
    else hits.set(hit.event.id, hit)
  }
  const gone = await deletedIds(ctx.store, [...hits.values()], byKey)
  return [...hits.values()]
    .filter((h) => !gone.has(h.event.id))
    .sort(newestFirst)
    .slice(0, plan.limit)
}

/** Each NIP-50 relay of the groups, asked once for all of its groups. */
async function relayHits(
  pool: RelayPool,
  groups: readonly SearchableGroup[],
  text: string,
  limit: number,
  opts: SearchOptions,
): Promise<SearchHit[]> {
  const perRelay = new Map<string, SearchableGroup[]>()
  for (const g of groups) perRelay.set(g.key.relay, [...(perRelay.get(g.key.relay) ?? []), g])
  const lists = await Promise.all(
    [...perRelay].map(async ([relay, list]) => {
      const info = await pool.relayInfo(relay).catch(() => undefined)
      if (!info?.supported_nips?.includes(50)) return []
      const filter: Filter = {
        kinds: [...SEARCH_KINDS],
        '#h': list.map((g) => g.key.id.value),
        search: text,
        limit,
        ...(opts.until !== undefined && { until: opts.until }),
      }
      const events = await pool.fetch([relay], [filter], { timeout: opts.timeout ?? 5_000 })
      const out: SearchHit[] = []
      for (const event of events) {
        const group = list.find((g) => g.key.id.value === groupTag(event))
        if (!group || !SEARCH_KINDS.includes(event.kind)) continue // not what was asked: ignored
        if (opts.until !== undefined && event.created_at > opts.until) continue
        out.push({ event, group: group.key.toString(), from: 'relay' })
      }
      return out
    }),
  )
  return lists.flat()
}

/** Hits the cache knows to be deleted: a kind 5 by their author, or a 9005 by a moderator of their group. */
async function deletedIds(
  store: EventStore,
  hits: readonly SearchHit[],
  groups: Map<string, SearchableGroup>,
): Promise<Set<string>> {
  const gone = new Set<string>()
  if (hits.length === 0) return gone
  const byId = new Map(hits.map((h) => [h.event.id, h]))
  const deletions = await store.query({
    kinds: [KINDS.deletion, KINDS.deleteEvent],
    tags: { e: [...byId.keys()] },
  })
  for (const d of deletions) {
    for (const t of d.tags) {
      const hit = t[0] === 'e' && t[1] !== undefined ? byId.get(t[1]) : undefined
      if (!hit) continue
      const byAuthor = d.kind === KINDS.deletion && d.pubkey === hit.event.pubkey
      const byModerator = d.kind === KINDS.deleteEvent && groups.get(hit.group)?.isAdmin(d.pubkey) === true
      if (byAuthor || byModerator) gone.add(hit.event.id)
    }
  }
  return gone
}
