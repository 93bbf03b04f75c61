import type { GroupKey } from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools/core'
import { CannotSendError } from '../errors'
import type { Message } from './types'

/** An own event to withdraw: a folded message/reaction row or a raw event. */
export type OwnTarget = Message | NostrEvent

/**
 * The NIP-09 kind 5 that withdraws `target`, one of the user's own events in the group
 * (decision 17): `h`, `e`, `k`, fresh `previous`. Moderators delete others' events with 9005.
 *
 * @throws {CannotSendError} `refused` when `target` is someone else's.
 */
export function ownDeletion(
  key: GroupKey,
  me: string,
  target: OwnTarget,
  opts: { previous: string[] | undefined; createdAt: number; reason?: string },
): EventTemplate {
  const event = 'event' in target ? target.event : target
  if (event.pubkey !== me) {
    throw new CannotSendError('refused', 'only your own events can be withdrawn; moderators use deleteEvent')
  }
  return key.id.deleteOwn(
    { id: event.id, pubkey: event.pubkey, kind: event.kind },
    { previous: opts.previous, createdAt: opts.createdAt, ...(opts.reason ? { reason: opts.reason } : {}) },
  )
}
