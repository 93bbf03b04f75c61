import type { Subscription } from 'nostr-tools/abstract-relay'
import type { NostrEvent } from 'nostr-tools/core'
import { type Filter, matchFilter } from 'nostr-tools/filter'

/** Handlers of one subscription. Events arrive verified and once per subscription. */
export interface SubscriptionHandlers {
  /** One matching event, verified, at most once per subscription. */
  onevent(event: NostrEvent): void
  /** The relay has sent everything it stored (EOSE), or `eoseTimeout` passed; what follows is live. */
  oneose?(): void
  /** Called just before `oneose` when no EOSE came within `eoseTimeout`: the relay may not have answered. */
  oneoseTimeout?(): void
  /** The relay ended the subscription (CLOSED) with this text; it will not be resumed. */
  onclosed?(reason: string): void
  /**
   * The subscription is sent again on a new connection (a resume, from a little before the newest
   * event seen): what comes before its next `oneose` is the relay's stored answer, newest first.
   */
  onresume?(): void
  /**
   * The relay sent an event this subscription delivered already (dropped; in a stored answer, it
   * marks a place), with the `created_at` it had.
   */
  onrepeat?(id: string, createdAt: number): void
}

/** A subscription as the caller sees it: one REQ on each socket it lives through, until closed. */
export interface LogicalSub {
  id: string
  filters: Filter[]
  handlers: SubscriptionHandlers
  /** Newest created_at seen per filter, for `since` on resume. */
  newest: (number | undefined)[]
  /** The `created_at` of each event delivered, by id. */
  seen: Map<string, number>
  /** Its REQ on the current socket, if any. */
  live: Subscription | undefined
  /** True once the subscription has been sent at least once (a later send is a resume). */
  fired: boolean
  authRetried: boolean
  eosed: boolean
  done: boolean
}

/** A subscription not sent yet. */
export function logicalSub(id: string, filters: Filter[], handlers: SubscriptionHandlers): LogicalSub {
  return {
    id,
    filters,
    handlers,
    newest: filters.map(() => undefined),
    seen: new Map(),
    live: undefined,
    fired: false,
    authRetried: false,
    eosed: false,
    done: false,
  }
}

/**
 * The filters of the subscription's next REQ: as given the first time; on a resume, from just
 * before the newest event seen (`slack` seconds) and without the limit, so a burst sent while we
 * were away is not cut to the newest `limit`. Duplicates are dropped by `seen`.
 */
export function requestFilters(sub: LogicalSub, slack: number): Filter[] {
  return sub.filters.map((f, i) => {
    const newest = sub.newest[i]
    if (!sub.fired || newest === undefined) return f
    const { limit: _limit, ...rest } = f
    return { ...rest, since: Math.max(f.since ?? 0, newest - slack) }
  })
}

/** Notes an event as seen by the subscription; false when it was seen already. */
export function record(sub: LogicalSub, event: NostrEvent): boolean {
  if (sub.seen.has(event.id)) return false
  sub.seen.set(event.id, event.created_at)
  for (let i = 0; i < sub.filters.length; i++) {
    if (matchFilter(sub.filters[i]!, event)) {
      const n = sub.newest[i]
      if (n === undefined || event.created_at > n) sub.newest[i] = event.created_at
    }
  }
  return true
}
