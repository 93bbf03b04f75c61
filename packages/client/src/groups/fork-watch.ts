import { detectForks, type ForkReport, type GroupAdmins, KINDS, tryNormalizeRelayUrl } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from '../pool'
import type { Group } from './group'

/** What a {@link ForkWatch} reads: the pool, the group, and where to look for the admins' lists. */
export interface ForkWatchOptions {
  /** The pool to read the admins' lists and the other relays with. */
  pool: RelayPool
  /** The group watched for copies elsewhere. */
  group: Group
  /** Relays to read the admins' kind 10009 from (the group's own relay is always added). */
  relays: () => readonly string[]
}

const UNKNOWN: ForkReport = Object.freeze({ status: 'unknown', elsewhere: [], evidence: [] }) as ForkReport

/** The admins of a 39001: those holding a role. */
function adminKeys(admins: GroupAdmins | undefined): string[] {
  if (!admins) return []
  return admins.entries.map((e) => e.pubkey).filter((pk) => admins.contains(pk))
}

/**
 * Fork and migration detection for one group (NIP-29): follows the kind 10009 lists of the
 * group's admins (from its 39001) on the account's relays and the group's relay, and reports where
 * they list the same group id: `here`, `also-lives-on` ("This group also lives on X") or `moved`
 * ("This group moved to X"), with the lists as evidence. Admins are remembered while watching, so
 * an admin who leaves the old group to move it is still heard. It only reports: the other relay's group
 * is another `Group` (another `GroupKey`) with its own timeline and read state, which the user may
 * follow with `roost.groups.join(...)`.
 *
 * @example
 * const watch = roost.groups.watchForks(group.key)
 * const stop = watch.subscribe((report) => { if (report.status === 'moved') banner(report.elsewhere[0].relay) })
 * watch.close()
 */
export class ForkWatch {
  private current: ForkReport = UNKNOWN
  private readonly lists = new Map<string, NostrEvent>()
  /** Every admin seen while watching (NIP-29: cache admin pubkeys): an admin who left to move the group still counts. */
  private readonly admins = new Set<string>()
  private readonly listeners = new Set<(report: ForkReport) => void>()
  private subs: { close(): void }[] = []
  private watched = ''
  private readonly stopGroup: () => void
  private closed = false

  constructor(private readonly opts: ForkWatchOptions) {
    this.stopGroup = opts.group.subscribe((e) => {
      if (e.type === 'updated') this.refresh()
    })
    this.refresh()
  }

  /** The latest report (`unknown` until an admin's list names the group). */
  get report(): ForkReport {
    return this.current
  }

  /** Calls `listener` with each new report; returns the unsubscribe function. */
  readonly subscribe = (listener: (report: ForkReport) => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Stops following the lists. */
  close(): void {
    this.closed = true
    this.stopGroup()
    for (const s of this.subs) s.close()
    this.subs = []
    this.listeners.clear()
  }

  /** Follows the current admins' lists (again, when the admins or relays changed) and re-derives the report. */
  private refresh(): void {
    if (this.closed) return
    const { group, pool } = this.opts
    for (const pk of adminKeys(group.admins)) this.admins.add(pk)
    const admins = [...this.admins].sort()
    const relays = [...new Set([group.key.relay, ...this.opts.relays().map(tryNormalizeRelayUrl)])]
      .filter((r): r is string => r !== undefined)
      .sort()
    const watching = JSON.stringify([admins, relays])
    if (watching !== this.watched) {
      this.watched = watching
      for (const s of this.subs) s.close()
      this.subs = []
      if (admins.length > 0) {
        for (const relay of relays) {
          this.subs.push(
            pool.subscribe(relay, [{ kinds: [KINDS.groupList], authors: admins }], {
              onevent: (event) => this.add(event),
            }),
          )
        }
      }
    }
    this.derive()
  }

  private add(event: NostrEvent): void {
    if (this.closed || event.kind !== KINDS.groupList) return
    const held = this.lists.get(event.pubkey)
    if (
      held &&
      (held.created_at > event.created_at || (held.created_at === event.created_at && held.id <= event.id))
    )
      return
    this.lists.set(event.pubkey, event)
    this.derive()
  }

  private derive(): void {
    const group = this.opts.group
    const next = detectForks(group.key, this.admins, this.lists.values())
    if (JSON.stringify(next) === JSON.stringify(this.current)) return
    this.current = next
    for (const l of [...this.listeners]) l(next)
  }
}
