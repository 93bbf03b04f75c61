import type { NostrEvent } from 'nostr-tools'
import type { Engine } from '../engine'
import { isMember } from '../groups/record'
import { type Admission, letInBySomeoneElse, policyRefusal, type UploadPolicy } from './upload-policy'

/** The memberships looked at per key: its newest adds (a key in more groups than this is unusual). */
const MAX_GROUPS = 50
/**
 * How long a no is kept for a key, seconds: a flood of refused uploads costs the store one look
 * per key this often, and a key just let in waits at most this long. A yes is never kept, so a
 * removal takes effect at once.
 */
const KEEP_NO = 5
/** Keys whose refusals are kept at once. */
const CACHE_KEYS = 10_000

/** `true` when `pubkey` may upload, else the reason it may not. */
export type UploadGate = (pubkey: string) => Promise<true | string>

/**
 * The relay's upload policy over its store: who the policy admits, answered from the relay's own
 * member records and the moderation events behind them. A refusal is kept 5 s per key, so a
 * stream of refused uploads costs the store little; a yes is not kept (a removal counts at once).
 *
 * @example
 * const mayUpload = uploadGate(engine, 'invited')
 * await mayUpload(pubkey) // true, or 'uploads are for members someone else let into a group here …'
 */
export function uploadGate(engine: Engine, policy: UploadPolicy): UploadGate {
  const refusal = policyRefusal(policy)
  const cache = new Map<string, { at: number }>()
  const decide = async (pubkey: string): Promise<boolean> => {
    if (policy === 'anyone') return true
    if (policy === 'none') return false
    if (policy === 'members') return namedInAnyMemberList(engine, pubkey)
    if (policy === 'invited') return invited(engine, pubkey)
    if ('keys' in policy) return policy.keys.includes(pubkey)
    for (const id of policy.groups) {
      const g = await engine.group(id)
      if (g && !g.deleted && isMember(g, pubkey)) return true
    }
    return false
  }
  return async (pubkey) => {
    const now = engine.now()
    const kept = cache.get(pubkey)
    if (kept && now - kept.at < KEEP_NO) return refusal
    cache.delete(pubkey)
    if (await decide(pubkey)) return true
    if (cache.size >= CACHE_KEYS) cache.delete(cache.keys().next().value as string)
    cache.set(pubkey, { at: now })
    return refusal
  }
}

/** Whether the relay's member list (39002) of any group names `pubkey`. */
async function namedInAnyMemberList(engine: Engine, pubkey: string): Promise<boolean> {
  const rows = await engine.store.query({ kinds: [39002], authors: [engine.pubkey], '#p': [pubkey] }, 1)
  return rows.length > 0
}

/** Whether someone else let `pubkey` into a group it is a member of now (see {@link letInBySomeoneElse}). */
async function invited(engine: Engine, pubkey: string): Promise<boolean> {
  const adds = await engine.store.query({ kinds: [9000], '#p': [pubkey] }, MAX_GROUPS * 4)
  const seen = new Set<string>()
  for (const row of adds) {
    const add = JSON.parse(row.json) as NostrEvent
    const groupId = add.tags.find((t) => t[0] === 'h')?.[1]
    // The newest 9000 naming the key in each group decides how its membership there began.
    if (groupId === undefined || seen.has(groupId)) continue
    seen.add(groupId)
    if (seen.size > MAX_GROUPS) break
    const g = await engine.group(groupId)
    if (!g || g.deleted || !isMember(g, pubkey)) continue
    if (letInBySomeoneElse(pubkey, engine.pubkey, await admission(engine, add, groupId, pubkey))) return true
  }
  return false
}

/** What {@link letInBySomeoneElse} needs about one add, read only as far as the add needs it. */
async function admission(
  engine: Engine,
  add: NostrEvent,
  groupId: string,
  pubkey: string,
): Promise<Admission> {
  const none: Admission = { add, creator: undefined, joinedItself: false, codeAuthors: [] }
  if (add.pubkey !== engine.pubkey) return none
  const [request] = await engine.store.query({ kinds: [9021], '#h': [groupId], authors: [pubkey] }, 1)
  // A code good for several joins is named in the join request only (the 9000 is public).
  const requested = request && (JSON.parse(request.json) as NostrEvent).tags.find((t) => t[0] === 'code')?.[1]
  const code = add.tags.find((t) => t[0] === 'code')?.[1] || requested
  if (code) {
    const invites = await engine.store.query({ kinds: [9009], '#h': [groupId] }, engine.ctx.limits.maxLimit)
    const authors = invites
      .map((row) => JSON.parse(row.json) as NostrEvent)
      .filter((e) => e.tags.some((t) => t[0] === 'code' && t[1] === code))
      .map((e) => e.pubkey)
    return { ...none, codeAuthors: authors, ...(requested && { requestCode: requested }) }
  }
  const [creation] = await engine.store.query({ kinds: [9007], '#h': [groupId] }, 1)
  const joinRole = engine.policy.joinRole
  const roles = add.tags.find((t) => t[0] === 'p' && t[1] === pubkey)?.slice(2) ?? []
  // A relay that adds joiners (or posters) with its join role made this add for the key's own act.
  const asJoiner = joinRole !== undefined && roles.length === 1 && roles[0] === joinRole
  return { ...none, creator: creation?.pubkey, joinedItself: request !== undefined || asJoiner }
}
