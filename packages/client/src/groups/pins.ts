import { type GroupKey, GroupPins } from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'

const NONE: readonly string[] = Object.freeze([])

/**
 * The pinned refs (event ids and `<kind>:<pubkey>:<d>` addresses, in order) of the group's
 * relay-signed 39005, already checked against the relay key by the state fold; none without one.
 */
export function pinnedRefs(event: NostrEvent | undefined): readonly string[] {
  if (!event) return NONE
  try {
    return Object.freeze(GroupPins.parse(event).refs())
  } catch {
    return NONE // a malformed 39005 is ignored, as the spec says
  }
}

/** The kind 9010 that replaces the pin list with `refs` (the FULL ordered list). */
export function pinList(
  key: GroupKey,
  refs: readonly string[],
  opts: { previous: string[] | undefined; createdAt: number },
): EventTemplate {
  return key.id.pin(refs, { previous: opts.previous, createdAt: opts.createdAt })
}
