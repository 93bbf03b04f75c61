/**
 * Running a community from the web client: join requests, roles, pins, share links, subgroups and
 * the group preview shown before joining. Plain functions over @roost/client's `Group`, so the
 * adapter only delegates to them.
 */
import type { Group, GroupSnapshot, RelayPool } from '@roost/client'
import { GroupMembers, GroupMetadata, GroupReference, KINDS } from '@roost/nip29'
import { cleanName, tameMarks } from '../lib/names'

/** A join request as the members panel lists it. */
export interface JoinRequestItem {
  pubkey: string
  reason?: string
  code?: string
  createdAt: number
}

/** A role the relay defines (39003), with its description. */
export interface RoleItem {
  name: string
  description?: string
}

/** What the join dialog shows before joining. */
export interface GroupPreview {
  key: string
  id: string
  relay: string
  name: string
  picture?: string
  about?: string
  /** From the relay's 39002; undefined when it publishes none to us. */
  memberCount?: number
  closed: boolean
  private: boolean
  /** The invite code carried by the link, if any. */
  invite?: string
  /** False when the relay served no 39000 for the group (hidden, or no such group). */
  found: boolean
}

export function joinRequestItems(snap: GroupSnapshot): JoinRequestItem[] {
  return snap.joinRequests.map((r) => ({
    pubkey: r.pubkey,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    ...(r.code !== undefined ? { code: r.code } : {}),
    createdAt: r.event.created_at,
  }))
}

export function roleItems(snap: GroupSnapshot): RoleItem[] {
  return (snap.roles?.roles ?? []).map((r) => ({
    name: r.name,
    ...(r.description ? { description: r.description } : {}),
  }))
}

/**
 * The group's naddr (kind 39000, relay hint, relay key) and this client's web link that opens the
 * join dialog on it; undefined until the relay's 39000 is known. No legacy `relay'id` code.
 */
export function shareLinks(group: Group, origin: string): { naddr: string; web: string } | undefined {
  const meta = group.metadata
  if (!meta) return undefined
  const naddr = meta.naddr(group.key.relay)
  return { naddr, web: webJoinLink(origin, naddr) }
}

/** This client's address that opens the join dialog on `input` (`#/join/…`). */
export function webJoinLink(origin: string, input: string): string {
  return `${origin}/#/join/${encodeURIComponent(input)}`
}

/** The pin list with `id` added at the end, or removed. */
export function togglePin(pins: readonly string[], id: string, pinned: boolean): string[] {
  const rest = pins.filter((p) => p !== id)
  return pinned ? [...rest, id] : rest
}

/**
 * Fetches what the join dialog previews: the relay-signed 39000 and, when the relay shares it,
 * the 39002 member count. Throws the parse error for an input that is not a group reference.
 */
export async function fetchPreview(
  pool: Pick<RelayPool, 'fetch'>,
  relayKey: (relay: string) => string | undefined,
  input: string,
): Promise<GroupPreview> {
  const ref = GroupReference.parse(input.trim())
  const key = ref.key()
  const author = ref.relayKey ?? relayKey(key.relay)
  const events = await pool.fetch(
    [key.relay],
    [
      {
        kinds: [KINDS.metadata, KINDS.members],
        '#d': [key.id.value],
        ...(author ? { authors: [author] } : {}),
      },
    ],
    { timeout: 6000 },
  )
  const newest = (kind: number) =>
    events.filter((e) => e.kind === kind).sort((a, b) => b.created_at - a.created_at)[0]
  let meta: GroupMetadata | undefined
  let memberCount: number | undefined
  try {
    const e = newest(KINDS.metadata)
    meta = e ? GroupMetadata.parse(e) : undefined
  } catch {
    meta = undefined
  }
  try {
    const e = newest(KINDS.members)
    memberCount = e ? GroupMembers.parse(e).entries.length : undefined
  } catch {
    memberCount = undefined
  }
  return {
    key: key.toString(),
    id: key.id.value,
    relay: key.relay,
    name: cleanName(meta?.name ?? '') || key.id.value,
    ...(meta?.picture ? { picture: meta.picture } : {}),
    ...(meta?.about ? { about: tameMarks(meta.about) } : {}),
    ...(memberCount !== undefined ? { memberCount } : {}),
    closed: meta?.closed ?? false,
    private: meta?.private ?? false,
    ...(ref.invite ? { invite: ref.invite } : {}),
    found: meta !== undefined,
  }
}
