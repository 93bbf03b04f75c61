import { type GroupKey, KINDS } from '@roost/nip29'
import { canSendWith } from './can-send'
import type { GroupRequests } from './group-requests'
import type { GroupState } from './group-state'
import type { MembershipFold } from './membership'
import { pinnedRefs } from './pins'
import type { Timeline } from './timeline'
import type { GroupSnapshot, Message, Thread } from './types'
import type { GroupUnread } from './unread'

/** What a snapshot is made of: the parts of one group, as they are now. */
export interface SnapshotSource {
  readonly key: GroupKey
  readonly state: GroupState
  readonly membershipFold: MembershipFold
  readonly requests: GroupRequests
  readonly reads: GroupUnread
  /** Before the relay's first EOSE; the relay's text when it ended our subscription. */
  readonly subscription: { readonly loading: boolean; readonly refused: string | undefined }
  readonly history: { readonly hasOlder: boolean; readonly relayAway: boolean }
  relayKey(): string | undefined
  /** The relay key is only the author of the first 39000 seen. */
  relayKeyPinned(): boolean
  /** The timeline, folded up to date. */
  folded(): Timeline
}

type Rows = { messages?: readonly Message[]; threads?: readonly Thread[] }

/**
 * A group's immutable snapshot: the same object until something changes. Its `messages` and
 * `threads` are built when first read (a cold start opens every group but renders one), as of the
 * moment the snapshot was taken: `pinRows()` builds them before the timeline changes under them.
 */
export class GroupSnapshots {
  private snap: GroupSnapshot | undefined
  /** The rows of the current snapshot, until they are built. */
  private rows: Rows | undefined

  constructor(private readonly source: SnapshotSource) {}

  /** Something changed: the next `current()` is a new snapshot. */
  invalidate(): void {
    this.snap = undefined
  }

  /** Builds the current snapshot's rows not read yet, before the timeline changes under them. */
  pinRows(): void {
    const rows = this.rows
    if (!rows) return
    this.rows = undefined
    rows.messages ??= this.source.folded().messages()
    rows.threads ??= this.source.folded().threads()
  }

  /** The snapshot as of now. */
  current(): GroupSnapshot {
    if (this.snap) return this.snap
    const s = this.source
    // A page still unfolded changes neither the membership nor the join requests (`ingestStored`
    // folds at once a page holding their kinds); the counts below fold it when read state is on.
    const membership = s.membershipFold.compute()
    const unread = s.reads.count()
    const rows: Rows = {}
    this.rows = rows
    const relayKey = s.relayKey()
    const snap = {
      key: s.key.toString(),
      relay: s.key.relay,
      id: s.key.id.value,
      relayKey,
      unverified: relayKey !== undefined && s.relayKeyPinned(),
      metadata: s.state.metadata,
      admins: s.state.admins,
      members: s.state.members,
      roles: s.state.roles,
      pins: pinnedRefs(s.state.event(KINDS.pins)),
      joinRequests: s.requests.list(s.state.members, s.state.admins),
      membership,
      loading: s.subscription.loading,
      refused: s.subscription.refused,
      hasOlder: s.history.hasOlder,
      olderUnreachable: s.history.relayAway,
      canSend: canSendWith(s.state.metadata, membership, KINDS.chat),
      unread: unread.messages,
      unreadThreads: unread.threads,
      mentions: s.reads.mentions(),
      // getters written in the literal (enumerable, like the fields): a cold start builds one
      // snapshot per group, and defineProperties made each a slow dictionary object
      get messages() {
        rows.messages ??= s.folded().messages()
        return rows.messages
      },
      get threads() {
        rows.threads ??= s.folded().threads()
        return rows.threads
      },
    }
    this.snap = Object.freeze(snap) satisfies GroupSnapshot
    return this.snap
  }
}
