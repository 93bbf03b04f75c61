import type { NostrEvent } from 'nostr-tools'
import { groupIdOf } from './event-tags'
import { isHex64 } from './hex'
import { KINDS } from './kinds'

/**
 * A join request still waiting for an admin: the requester, their reason (the 9021's content),
 * the invite code they gave, and the 9021 itself.
 * @example for (const r of pendingJoinRequests(events)) list.add(r.pubkey, r.reason)
 */
export interface JoinRequest {
  /** Who asks to join. */
  pubkey: string
  /** What they wrote (the event's content). */
  reason?: string
  /** The invite code they named. */
  code?: string
  /** The 9021 event itself. */
  event: NostrEvent
}

/** Options of {@link pendingJoinRequests}. @example { groupId: 'general' } */
export interface JoinRequestOptions {
  /** Only events whose `h` tag names this group count (pass it when `events` mixes groups). */
  groupId?: string
}

function isNewer(a: NostrEvent, b: NostrEvent): boolean {
  return a.created_at > b.created_at || (a.created_at === b.created_at && a.id < b.id)
}

/**
 * Folds a group's 9021/9022/9000/9001 events into the join requests no one has answered: for each
 * requester, their newest 9021, unless a 9000 or 9001 naming them, or their own 9022, has a
 * `created_at` at or after it (a relay answers in the same second). Other kinds are skipped.
 * Ordered oldest request first, ties by id.
 *
 * @example
 * const waiting = pendingJoinRequests(groupEvents, { groupId: 'general' })
 * // approve one: sign and send id.putUser(waiting[0].pubkey)
 */
export function pendingJoinRequests(events: Iterable<NostrEvent>, opts?: JoinRequestOptions): JoinRequest[] {
  const requests = new Map<string, NostrEvent>()
  const answered = new Map<string, number>()
  const answer = (pubkey: string, at: number): void => {
    answered.set(pubkey, Math.max(answered.get(pubkey) ?? -1, at))
  }
  for (const event of events) {
    if (typeof event !== 'object' || event === null || !Array.isArray(event.tags)) continue
    if (!Number.isSafeInteger(event.created_at) || !isHex64(event.id) || !isHex64(event.pubkey)) continue
    if (opts?.groupId !== undefined && groupIdOf(event) !== opts.groupId) continue
    switch (event.kind) {
      case KINDS.joinRequest: {
        const known = requests.get(event.pubkey)
        if (known === undefined || isNewer(event, known)) requests.set(event.pubkey, event)
        break
      }
      case KINDS.leaveRequest:
        answer(event.pubkey, event.created_at)
        break
      case KINDS.putUser:
      case KINDS.removeUser:
        for (const tag of event.tags) {
          if (Array.isArray(tag) && tag[0] === 'p' && isHex64(tag[1])) answer(tag[1], event.created_at)
        }
        break
    }
  }
  const out: JoinRequest[] = []
  for (const [pubkey, event] of requests) {
    if ((answered.get(pubkey) ?? -1) >= event.created_at) continue
    const request: JoinRequest = { pubkey, event }
    if (typeof event.content === 'string' && event.content.trim() !== '') request.reason = event.content
    const code = event.tags.find((t) => Array.isArray(t) && t[0] === 'code')?.[1]
    if (typeof code === 'string' && code !== '') request.code = code
    out.push(request)
  }
  return out.sort((a, b) => a.event.created_at - b.event.created_at || (a.event.id < b.event.id ? -1 : 1))
}
