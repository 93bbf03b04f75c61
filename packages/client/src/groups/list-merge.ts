import { GroupKey, GroupList, KINDS, tryNormalizeRelayUrl } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'

/**
 * How long (seconds) a list from another device may lag behind a join made here and still be
 * taken as written without having seen it: the group is kept against such a list.
 */
export const LIST_RACE_SECONDS = 60

/**
 * This device's last edit of one group: what, when (unix seconds: when it was made, then when a
 * relay took the list carrying it), and whether a relay has it yet.
 */
export interface ListEdit {
  readonly op: 'add' | 'remove'
  readonly at: number
  /** A relay accepted a list carrying this edit; until then nobody else can have seen it. */
  readonly synced: boolean
}

/** The GroupKey string a `group` tag names, or `undefined` when it has no usable id or relay. */
export function groupTagKey(tag: readonly string[]): string | undefined {
  if (tag[0] !== 'group') return undefined
  const relay = tryNormalizeRelayUrl(tag[2])
  if (relay === undefined) return undefined
  try {
    return new GroupKey(relay, tag[1] as string).toString()
  } catch {
    return undefined
  }
}

/** Every GroupKey string the `group` tags of `tags` name. */
export function groupKeys(tags: readonly (readonly string[])[]): Set<string> {
  const out = new Set<string>()
  for (const t of tags) {
    const k = groupTagKey(t)
    if (k !== undefined) out.add(k)
  }
  return out
}

/** A 10009 as a `GroupList`, or the empty list when it does not parse. */
export function parseListOrEmpty(event: NostrEvent): GroupList {
  try {
    return GroupList.parse(event)
  } catch {
    return GroupList.empty()
  }
}

/** A `GroupList` of these tags and private content, dated `createdAt`. */
export function listOf(tags: string[][], content: string, createdAt: number): GroupList {
  return GroupList.parse({ kind: KINDS.groupList, tags, content, created_at: createdAt } as NostrEvent)
}

/** Whether two tag lists name the same groups (in any order, whatever else they hold). */
export function sameGroups(a: readonly (readonly string[])[], b: readonly (readonly string[])[]): boolean {
  const x = groupKeys(a)
  const y = groupKeys(b)
  if (x.size !== y.size) return false
  for (const k of x) if (!y.has(k)) return false
  return true
}

/**
 * Decision 13, for one group: is it in the merged list? `base` is the last list this device
 * synced, `local` ours now, `remote` the other device's (created at `remoteAt`), `edit` our last
 * edit of this group.
 * - in both lists: kept;
 * - only here: removed elsewhere since the base, unless we added it and the other device cannot
 *   have seen that (not yet at a relay, or `remote` written within {@link LIST_RACE_SECONDS});
 *   kept when the base lacks it (added here);
 * - only there: added elsewhere since the base (kept, also against an earlier leave here: a
 *   concurrent add and remove keeps the group, even against a leave here that is not at a relay
 *   yet), unless `remote` was written before our leave reached a relay (a stale list); dropped when
 *   the base has it (removed here).
 */
export function keepsGroup(
  at: { base: boolean; local: boolean; remote: boolean },
  remoteAt: number,
  edit: ListEdit | undefined,
): boolean {
  if (at.local && at.remote) return true
  if (at.local) {
    if (edit?.op === 'add' && (!edit.synced || remoteAt <= edit.at + LIST_RACE_SECONDS)) return true
    return !at.base
  }
  if (at.remote) {
    if (edit?.op === 'remove') {
      // A list written before our leave reached a relay cannot have seen it: it is stale.
      if (edit.synced && remoteAt <= edit.at) return false
      // Our leave has not reached a relay: the other list keeps what the base had, so a group
      // the base had stays removed; one the base lacks was added elsewhere meanwhile, and a
      // concurrent add and remove keeps it (below).
      if (!edit.synced && at.base) return false
    }
    return !at.base
  }
  return false
}

/**
 * Merges the `group` tags of two versions of one list part (public tags or the decrypted private
 * ones) by {@link keepsGroup}: the remote version's tags, order and other tags first; groups it
 * lacks that stay are appended from ours (with an `r` tag for a new relay in the public part).
 * Pure: returns new arrays.
 *
 * @example
 * const tags = mergeGroupTags(baseKeys, local.tags, remote.tags, remote.createdAt, edits, { relayTags: true })
 */
export function mergeGroupTags(
  base: ReadonlySet<string>,
  local: readonly (readonly string[])[],
  remote: readonly (readonly string[])[],
  remoteAt: number,
  edits: Readonly<Record<string, ListEdit>>,
  opts: { relayTags?: boolean } = {},
): string[][] {
  const localKeys = groupKeys(local)
  const remoteKeys = groupKeys(remote)
  const keep = (k: string) =>
    keepsGroup({ base: base.has(k), local: localKeys.has(k), remote: remoteKeys.has(k) }, remoteAt, edits[k])
  const out = remote
    .filter((t) => {
      const k = groupTagKey(t)
      return k === undefined || keep(k)
    })
    .map((t) => [...t])
  const added = new Set<string>()
  for (const t of local) {
    const k = groupTagKey(t)
    if (k === undefined || remoteKeys.has(k) || added.has(k) || !keep(k)) continue
    added.add(k)
    out.push([...t])
    const relay = GroupKey.parse(k).relay
    if (opts.relayTags && !out.some((r) => r[0] === 'r' && tryNormalizeRelayUrl(r[1]) === relay))
      out.push(['r', relay])
  }
  return out
}
