import type { GroupKey } from '@roost/nip29'
import type { GroupContext } from './group-context'
import type { GroupState } from './group-state'
import type { GroupWriters } from './group-writers'
import type { GroupHistory } from './history'
import type { SearchableGroup } from './search'
import type { Timeline } from './timeline'
import type { CanSend, GroupEvent, GroupSnapshot } from './types'
import type { GroupUnread } from './unread'

/** @internal What a `Group` is the face of: its core (`group-core.ts`), which the registry holds. */
export interface GroupInside extends SearchableGroup {
  readonly key: GroupKey
  readonly ctx: GroupContext
  readonly state: GroupState
  readonly reads: GroupUnread
  readonly history: GroupHistory
  readonly writers: GroupWriters
  readonly snapshot: () => GroupSnapshot
  readonly subscribe: (listener: (e: GroupEvent) => void) => () => void
  /** Resolves when every event received so far is in the store. */
  flushStore(): Promise<unknown>
  folded(): Timeline
  canSend(kind: number): CanSend
}
