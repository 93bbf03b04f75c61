import type { EventTemplate, NostrEvent } from 'nostr-tools'
import { InvalidArgumentError } from './errors'
import { isHex64 } from './hex'
import { KINDS } from './kinds'
import { type BuilderOptions, groupTemplate } from './template'

const DELETION_KIND = KINDS.deletion

/** An event one withdraws: its id, author and kind (a whole NostrEvent fits). */
export interface OwnEventRef {
  /** The event id. */
  id: string
  /** Its author: yours, since only the author may withdraw it. */
  pubkey: string
  /** Its kind (goes into a `k` tag). */
  kind: number
}

/** Options of {@link GroupId.deleteOwn}. @example { reason: 'typo', createdAt: now } */
export interface DeletionOptions extends BuilderOptions {
  /** Why; goes into `content`, as NIP-09 says. */
  reason?: string
}

/**
 * A NIP-09 kind 5 withdrawing one's own event(s) in a group: `["h", id]` (so the group's relay
 * takes and serves it), one `["e", id]` per event and one `["k", kind]` per distinct kind.
 * Every event must have one author, who signs the deletion (relays refuse a kind 5 by anyone
 * else). Moderators delete others' events with 9005 instead (`GroupId.deleteEvent`).
 *
 * @throws {InvalidArgumentError} for no events, a malformed event, or events by several authors.
 * @example
 * const template = GroupId.parse('general').deleteOwn([message], { reason: 'typo' })
 */
export function buildOwnDeletion(
  id: string,
  events: OwnEventRef | readonly OwnEventRef[],
  opts?: DeletionOptions,
): EventTemplate {
  const list: readonly OwnEventRef[] = Array.isArray(events) ? events : [events as OwnEventRef]
  if (list.length === 0) throw new InvalidArgumentError('events', 'a deletion needs at least one event')
  const author = (list[0] as OwnEventRef | null)?.pubkey
  if (!isHex64(author)) throw new InvalidArgumentError('events', 'each event needs a 64-hex pubkey')
  const eTags: string[][] = []
  const kinds: number[] = []
  for (const event of list) {
    if (typeof event !== 'object' || event === null || !isHex64(event.id)) {
      throw new InvalidArgumentError('events', 'each event needs a 64-hex id')
    }
    if (event.pubkey !== author) {
      throw new InvalidArgumentError('events', 'one deletion withdraws events of one author only')
    }
    if (!Number.isSafeInteger(event.kind) || event.kind < 0) {
      throw new InvalidArgumentError('events', 'each event needs a non-negative integer kind')
    }
    if (!eTags.some((t) => t[1] === event.id)) eTags.push(['e', event.id])
    if (!kinds.includes(event.kind)) kinds.push(event.kind)
  }
  const reason = opts?.reason ?? ''
  if (typeof reason !== 'string') throw new InvalidArgumentError('reason', 'reason must be a string')
  return groupTemplate(DELETION_KIND, id, reason, [...eTags, ...kinds.map((k) => ['k', String(k)])], opts)
}

/** The event ids a kind 5 names in `e` tags (64-hex only). */
function namedIds(event: NostrEvent): string[] {
  const out: string[] = []
  if (!Array.isArray(event.tags)) return out
  for (const tag of event.tags) {
    if (Array.isArray(tag) && tag[0] === 'e' && isHex64(tag[1]) && !out.includes(tag[1])) out.push(tag[1])
  }
  return out
}

/**
 * Which events a set of NIP-09 deletions withdraws. A kind 5 withdraws an event only when it is
 * signed by that event's author (a deletion naming someone else's event is ignored, as NIP-09
 * says); deletions may arrive before or after their targets.
 *
 * Build it once from every event of a group (non-kind-5 events are skipped), then ask per event.
 *
 * @example
 * const withdrawn = Withdrawals.fold(events)
 * const visible = events.filter((e) => e.kind !== 5 && !withdrawn.has(e))
 */
export class Withdrawals {
  /** target id → the pubkeys whose kind 5 names it. */
  readonly #byTarget: ReadonlyMap<string, ReadonlySet<string>>

  private constructor(byTarget: Map<string, Set<string>>) {
    this.#byTarget = byTarget
  }

  /**
   * Folds the kind 5 events among `events` (anything else, or anything malformed, is skipped).
   * @example Withdrawals.fold([...timeline, ...deletions])
   */
  static fold(events: Iterable<NostrEvent>): Withdrawals {
    const byTarget = new Map<string, Set<string>>()
    for (const event of events) {
      if (typeof event !== 'object' || event === null || event.kind !== DELETION_KIND) continue
      if (!isHex64(event.pubkey)) continue
      for (const target of namedIds(event)) {
        let authors = byTarget.get(target)
        if (authors === undefined) {
          authors = new Set()
          byTarget.set(target, authors)
        }
        authors.add(event.pubkey)
      }
    }
    return new Withdrawals(byTarget)
  }

  /**
   * Whether `event` is withdrawn: a kind 5 by its own author names it.
   * @example withdrawn.has(message) // false when only a stranger's kind 5 names it
   */
  has(event: Pick<NostrEvent, 'id' | 'pubkey'>): boolean {
    return this.#byTarget.get(event.id)?.has(event.pubkey) === true
  }

  /**
   * The ids among `events` that are withdrawn, in input order.
   * @example const gone = new Set(withdrawn.ids(timeline))
   */
  ids(events: Iterable<Pick<NostrEvent, 'id' | 'pubkey'>>): string[] {
    const out: string[] = []
    for (const e of events) if (this.has(e)) out.push(e.id)
    return out
  }
}

/**
 * The ids among `events` that the kind 5s among `events` withdraw (only the author's own
 * deletions count). A shorthand for `Withdrawals.fold(events).ids(events)`.
 * @example const gone = new Set(withdrawnIds(all))
 */
export function withdrawnIds(events: readonly NostrEvent[]): string[] {
  return Withdrawals.fold(events).ids(events)
}
