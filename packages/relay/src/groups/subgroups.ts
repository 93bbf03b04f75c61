import type { NostrEvent } from 'nostr-tools'
import { type GroupRecord, hasRole } from './record'

/**
 * Spec §1.10 checks for a 9002 that sets (or clears) a group's parent, and keeps every child listed.
 * Returns the refusal, or undefined. Pure: `group` looks up any group by id.
 *
 * @example
 * checkParenting(edit, child, (id) => groups.get(id)) // "restricted: would create a parent cycle"
 */
export function checkParenting(
  event: NostrEvent,
  g: GroupRecord,
  group: (id: string) => GroupRecord | undefined,
): string | undefined {
  const parents = event.tags.filter((t) => t[0] === 'parent')
  if (parents.length > 1) return 'invalid: at most one parent tag'
  const parentId = parents[0]?.[1]
  if (parentId !== undefined) {
    const parent = group(parentId)
    if (!parent || parent.deleted) return `restricted: parent group '${parentId}' doesn't exist`
    for (let at: string | undefined = parentId, hops = 0; at !== undefined && hops < 1000; hops++) {
      if (at === g.id) return 'restricted: would create a parent cycle'
      at = group(at)?.parent
    }
    if (!hasRole(parent, event.pubkey, 'admin')) return 'restricted: must be an admin of the parent group'
  }
  const listed = new Set(event.tags.filter((t) => t[0] === 'child').map((t) => t[1]))
  const missing = (g.children ?? []).filter((c) => !listed.has(c))
  if (missing.length > 0)
    return `blocked: the child list must include every subgroup (missing '${missing[0]}')`
  return undefined
}

/**
 * After `before` became `after`, the records of the old and new parent (and, when a group was
 * deleted, of its children) that must change so both sides agree. Pure.
 */
export function relink(
  before: GroupRecord | undefined,
  after: GroupRecord | undefined,
  group: (id: string) => GroupRecord | undefined,
): GroupRecord[] {
  const id = (after ?? before)?.id
  if (id === undefined) return []
  const gone = !after || after.deleted
  const oldParent = before?.parent
  const newParent = gone ? undefined : after?.parent
  const out: GroupRecord[] = []
  if (oldParent !== newParent) {
    const o = oldParent === undefined ? undefined : group(oldParent)
    if (o) out.push({ ...o, children: (o.children ?? []).filter((c) => c !== id) })
    const n = newParent === undefined ? undefined : group(newParent)
    if (n && !(n.children ?? []).includes(id)) out.push({ ...n, children: [...(n.children ?? []), id] })
  }
  if (gone) {
    for (const child of before?.children ?? []) {
      const c = group(child)
      if (c && c.parent === id) {
        const { parent: _dropped, ...root } = c
        out.push(root)
      }
    }
  }
  return out
}
