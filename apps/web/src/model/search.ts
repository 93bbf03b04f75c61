import type { SearchHit, SearchOptions } from '@roost/client'
import { KINDS } from '@roost/nip29'
import { quoteFreeText } from '../lib/quote'
import { toAnswer } from './answer'

/** One message found by the search box. */
export interface SearchResult {
  id: string
  /** The group's key and its display name. */
  group: string
  groupName: string
  pubkey: string
  kind: number
  createdAt: number
  /** The text shown: a thread's title and content, else the content. */
  text: string
  /** Threads and comments: the thread the hit lives in (opened in the side panel). */
  thread?: string
}

/** A search answer: the hits newest first, or why there are none. */
export type SearchAnswer = { ok: true; results: SearchResult[] } | { ok: false; message: string }

interface Searchable {
  search(text: string, opts?: SearchOptions): Promise<SearchHit[]>
}

/** The thread a hit belongs to: itself for a kind 11, the root `E` of a kind 1111. */
function threadOf(hit: SearchHit): string | undefined {
  if (hit.event.kind === KINDS.thread) return hit.event.id
  if (hit.event.kind !== KINDS.comment) return undefined
  const root = hit.event.tags.find((t) => t[0] === 'E' && /^[0-9a-f]{64}$/.test(t[1] ?? ''))
  return root?.[1]
}

/**
 * Searches `where` (one group or the registry of all) for `text`, newest first, naming each hit's
 * group with `nameOf`. Empty text answers nothing; a refused query becomes a readable answer.
 */
export async function searchMessages(
  where: Searchable,
  text: string,
  nameOf: (key: string) => string,
  opts: SearchOptions = {},
): Promise<SearchAnswer> {
  if (!text.trim()) return { ok: true, results: [] }
  try {
    const hits = await where.search(text, { limit: 50, timeout: 4_000, ...opts })
    const results = hits.map((h): SearchResult => {
      const title = h.event.tags.find((t) => t[0] === 'title')?.[1]
      const thread = threadOf(h)
      return {
        id: h.event.id,
        group: h.group,
        groupName: nameOf(h.group),
        pubkey: h.event.pubkey,
        kind: h.event.kind,
        createdAt: h.event.created_at,
        text: title ? `${title} — ${h.event.content}` : quoteFreeText(h.event),
        ...(thread !== undefined && { thread }),
      }
    })
    return { ok: true, results }
  } catch (err) {
    const answer = toAnswer(err)
    return { ok: false, message: answer.message }
  }
}
