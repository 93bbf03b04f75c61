import type { ProfilePolicy } from '../profiles'
import type { GroupRecord } from './record'

type Tags = readonly (readonly string[])[]

const FIELDS = ['name', 'picture', 'banner', 'about'] as const
const FLAGS = ['private', 'restricted', 'hidden', 'closed', 'livekit'] as const
/** Legacy negations (PATCH era) and what they clear. */
const NEGATIONS: Record<string, (typeof FLAGS)[number]> = {
  public: 'private',
  open: 'closed',
  unrestricted: 'restricted',
  visible: 'hidden',
  'no-livekit': 'livekit',
}
/** Tags a 9002 may carry that are not metadata. */
const NOT_METADATA = new Set(['h', 'd', 'previous', 'p', 'e', 'a', 'code', '-', 'parent', 'child'])

/**
 * Applies the metadata tags of a 9002 (or, where the profile says so, a 9007) to a group.
 * PUT (spec, since 2026-03): every field and flag is replaced; legacy negations are no-ops.
 * PATCH (relay29, groups_relay): only named fields change; `public`/`open`/… clear flags.
 *
 * @example
 * applyMetadata(group, [['h','g'],['name','Pizza'],['closed']], PROFILES.strict)
 */
export function applyMetadata(g: GroupRecord, tags: Tags, policy: ProfilePolicy): GroupRecord {
  const patch = policy.patch9002
  const next: Record<string, unknown> = { ...g }
  if (!patch) {
    for (const f of FIELDS) delete next[f]
    for (const f of FLAGS) next[f] = false
    delete next.supportedKinds
  }
  const extra: string[][] = []
  for (const tag of tags) {
    const [name, value] = tag
    if (name === undefined) continue
    if ((FIELDS as readonly string[]).includes(name)) {
      if (typeof value === 'string' && value !== '') next[name] = value
      else if (patch) delete next[name]
    } else if ((FLAGS as readonly string[]).includes(name)) {
      next[name] = true
    } else if (patch && Object.hasOwn(NEGATIONS, name)) {
      next[NEGATIONS[name] as string] = false
    } else if (name === 'supported_kinds') {
      next.supportedKinds = tag
        .slice(1)
        .map((k) => Number(k))
        .filter((k) => Number.isInteger(k) && k >= 0 && k <= 65535)
    } else if (!Object.hasOwn(NEGATIONS, name) && !NOT_METADATA.has(name)) {
      extra.push([...tag])
    }
  }
  if (policy.subgroups) {
    const parent = tags.find((t) => t[0] === 'parent')?.[1]
    if (parent !== undefined) next.parent = parent
    else if (!patch) delete next.parent
    // The child list is the relay's (it follows the children's 9002s); a 9002 may only reorder it.
    const current = g.children ?? []
    const listed = tags
      .filter((t) => t[0] === 'child' && current.includes(t[1] ?? ''))
      .map((t) => t[1] as string)
    next.children = [...new Set([...listed, ...current])]
  }
  if (policy.copyModerationTags) {
    next.extraTags = tags.map((t) => (t[0] === 'h' ? ['d', ...t.slice(1)] : [...t]))
  } else if (policy.keepUnknownTags) {
    const kept = new Map<string, string[]>(g.extraTags.map((t) => [t[0] ?? '', [...t]]))
    for (const t of extra) kept.set(t[0] ?? '', t)
    next.extraTags = [...kept.values()]
  }
  return next as unknown as GroupRecord
}
