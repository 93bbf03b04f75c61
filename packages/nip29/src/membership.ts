import type { NostrEvent } from 'nostr-tools'
import { KINDS } from './kinds'

/**
 * Our own standing in a group:
 * - `unknown`: nothing says (no 9000/9001 naming us, not in 39002);
 * - `pending`: our 9021 was accepted, no 9000 or 39002 names us yet;
 * - `member`: added by a 9000, listed in 39002, or told `duplicate:` on joining;
 * - `refused`: the relay refused our 9021, with its text in `reason`;
 * - `removed`: removed by a 9001, or our 9022 was accepted.
 *
 * @example
 * if (membership.status === 'refused') showError(membership.reason)
 */
export type Membership =
  | {
      /** Nothing says whether we are a member. */
      status: 'unknown'
    }
  | {
      /** Our join request was accepted, not yet acted on. */
      status: 'pending'
      /** When our 9021 was accepted, Unix seconds: the `now` given to {@link membershipAfterReply}. */
      since: number
    }
  | {
      /** We are a member. */
      status: 'member'
    }
  | {
      /** The relay refused our join request. */
      status: 'refused'
      /** The relay's OK message as sent (e.g. `restricted: invite only`); may be empty. */
      reason: string
    }
  | {
      /** We were removed, or left. */
      status: 'removed'
    }

/** Options of {@link foldMembership}. @example { trusted: (pk) => pk === relayKey || admins.contains(pk) } */
export interface FoldOptions {
  /**
   * Which authors to believe for 9000/9001/39002 (e.g. the relay key and the admins). Without it,
   * every event counts: pass events that came from the group's relay.
   */
  trusted?: (pubkey: string) => boolean
  /**
   * What the relay answered to our own last 9021/9022 (see {@link membershipAfterReply}), with the
   * ids of the events naming us that were already known when it answered. The answer stands until
   * an event naming us that was not known then, and is not older than those that were, decides:
   * the relay's events are compared with each other only, never with our own clock (which may run
   * ahead of the relay's), so a 9000 signed a second "before" our 9021 still makes us a member.
   */
  answer?: {
    /** What the reply made of us, from {@link membershipAfterReply}. */
    membership: Membership
    /** Ids of the events naming us (9000/9001/39002) already known when the relay answered. */
    known: readonly string[]
  }
}

function record(e: unknown): Record<string, unknown> | undefined {
  return typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : undefined
}

function names(e: Record<string, unknown>, me: string): boolean {
  return Array.isArray(e.tags) && e.tags.some((t) => Array.isArray(t) && t[0] === 'p' && t[1] === me)
}

function time(e: Record<string, unknown>): number {
  return typeof e.created_at === 'number' && Number.isFinite(e.created_at) ? e.created_at : 0
}

/**
 * Folds our membership from the group's events: the newest 9000 (put-user) or 9001
 * (remove-user) naming `me` decides, and on an exact `created_at` tie the removal wins. Without
 * either, a 39002 listing `me` means member. A 39002 listing `me` that is newer than the deciding
 * 9001 also means member (we were re-added by an event we did not fetch); a 39002 that does not
 * list `me` proves nothing, since relays may publish partial lists.
 * Other kinds, and events not naming `me`, are ignored, so the whole timeline can be passed.
 * With `opts.answer`, what the relay answered to our own 9021/9022 stands until newer evidence.
 *
 * @example
 * foldMembership(await pool.fetch([relay], [id.membershipFilter(me)]), me) // { status: 'member' }
 */
export function foldMembership(events: readonly NostrEvent[], me: string, opts?: FoldOptions): Membership {
  const folded = foldEvidence(events, me, opts)
  const answer = opts?.answer
  if (answer === undefined) return folded
  if (folded.status === 'unknown') return answer.membership
  const known = new Set(Array.isArray(answer.known) ? answer.known : [])
  let knownAt = Number.NEGATIVE_INFINITY
  const fresh: number[] = []
  for (const raw of Array.isArray(events) ? events : []) {
    const e = record(raw)
    if (e === undefined || !evidence(e, me, opts)) continue
    if (typeof e.id === 'string' && known.has(e.id)) knownAt = Math.max(knownAt, time(e))
    else fresh.push(time(e))
  }
  return fresh.some((at) => at >= knownAt) ? folded : answer.membership
}

/** A trusted 9000/9001 naming `me`, or a 39002 listing `me`. */
function evidence(e: Record<string, unknown>, me: string, opts?: FoldOptions): boolean {
  if (opts?.trusted && !(typeof e.pubkey === 'string' && opts.trusted(e.pubkey))) return false
  return (e.kind === KINDS.putUser || e.kind === KINDS.removeUser || e.kind === KINDS.members) && names(e, me)
}

function foldEvidence(events: readonly NostrEvent[], me: string, opts?: FoldOptions): Membership {
  let decider: { kind: number; at: number } | undefined
  let listedAt: number | undefined
  for (const raw of Array.isArray(events) ? events : []) {
    const e = record(raw)
    if (e === undefined) continue
    if (opts?.trusted && !(typeof e.pubkey === 'string' && opts.trusted(e.pubkey))) continue
    if (e.kind === KINDS.putUser || e.kind === KINDS.removeUser) {
      if (!names(e, me)) continue
      const at = time(e)
      const newer = decider === undefined || at > decider.at
      const tieRemoval = decider !== undefined && at === decider.at && e.kind === KINDS.removeUser
      if (newer || tieRemoval) decider = { kind: e.kind, at }
    } else if (e.kind === KINDS.members && names(e, me)) {
      listedAt = Math.max(listedAt ?? Number.NEGATIVE_INFINITY, time(e))
    }
  }
  if (decider?.kind === KINDS.putUser) return { status: 'member' }
  if (decider?.kind === KINDS.removeUser) {
    return listedAt !== undefined && listedAt > decider.at ? { status: 'member' } : { status: 'removed' }
  }
  return listedAt !== undefined ? { status: 'member' } : { status: 'unknown' }
}

/**
 * What the relay's OK reply to our own 9021 or 9022 tells us:
 * - 9021, message `duplicate:` (OK true or false): `member`;
 * - 9021, OK true: `pending` since `now`, until a 9000 or 39002 names us (relays differ);
 * - 9021, OK false with any other message (`restricted:`, `blocked:`, …): `refused` with the
 *   relay's text, which says whether the refusal is final, pending review or needs payment;
 * - 9022, OK true: `removed`; OK false changes nothing (`undefined`);
 * - a reply that timed out (`timedOut: true`, as the pool reports it) changes nothing: the relay
 *   said nothing, so nothing is known.
 *
 * @example
 * const [result] = await pool.publish([relay], signed)
 * membership = membershipAfterReply(9021, result, now) ?? membership
 */
export function membershipAfterReply(
  kind: 9021 | 9022,
  reply: { ok: boolean; message: string; timedOut?: boolean },
  now: number,
): Membership | undefined {
  if (reply?.timedOut === true) return undefined
  const message = typeof reply?.message === 'string' ? reply.message : ''
  if (kind === KINDS.joinRequest) {
    if (message.trim().toLowerCase().startsWith('duplicate:')) return { status: 'member' }
    if (reply?.ok === true) return { status: 'pending', since: now }
    return { status: 'refused', reason: message }
  }
  if (kind === KINDS.leaveRequest && reply?.ok === true) return { status: 'removed' }
  return undefined
}
