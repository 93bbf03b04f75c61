import type { NostrEvent } from 'nostr-tools'
import { GroupId } from './group-id'

/**
 * The group an event belongs to: its first `h` tag's value, if that is a usable group id.
 * State events (39000–39005) name their group with `d` instead and give `undefined` here.
 *
 * @example
 * const id = groupIdOf(event)   // 'general' for a kind 9 sent to the group
 */
export function groupIdOf(event: NostrEvent): string | undefined {
  const tags = (event as Partial<NostrEvent> | null)?.tags
  if (!Array.isArray(tags)) return undefined
  const h = tags.find((t) => Array.isArray(t) && t[0] === 'h')
  if (h === undefined || typeof h[1] !== 'string') return undefined
  try {
    return GroupId.parse(h[1]).value
  } catch {
    return undefined
  }
}

/**
 * The newest of some events by `created_at`, ties broken by the lowest id (NIP-01's rule for
 * replaceable events, and how two state changes in one second are ordered).
 *
 * @example
 * const metadata = GroupMetadata.parse(newestEvent(all39000s)!)
 */
export function newestEvent<E extends Pick<NostrEvent, 'id' | 'created_at'>>(
  events: readonly E[],
): E | undefined {
  let best: E | undefined
  for (const e of events) {
    if (
      best === undefined ||
      e.created_at > best.created_at ||
      (e.created_at === best.created_at && e.id < best.id)
    ) {
      best = e
    }
  }
  return best
}
