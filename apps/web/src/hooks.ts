import { useProfile as useProfileOf, useSnapshot } from '@roost/react'
import { createContext, useCallback, useContext, useSyncExternalStore } from 'react'
import type { AppApi, AppSnapshot, GroupHandle } from './model/api'
import type { Draft, GroupDetail, Profile } from './model/types'

export { usePageVisible } from '@roost/react'

export const AppContext = createContext<AppApi | null>(null)

export function useApp(): AppApi {
  const app = useContext(AppContext)
  if (!app) throw new Error('useApp outside <AppContext>')
  return app
}

/** The shell snapshot; re-renders when groups, unread counts or settings change. */
export function useAppSnapshot(): AppSnapshot {
  return useSnapshot(useApp())
}

/** One group's snapshot (undefined when the group is not in the registry). */
export function useGroup(handle: GroupHandle | undefined): GroupDetail | undefined {
  return useSnapshot(handle)
}

/** A person's kind 0 profile, when one has arrived (the app is the profile source). */
export function useProfile(pubkey: string): Profile | undefined {
  return useProfileOf(pubkey, useApp())
}

/**
 * A message box's draft on this device and its setter (see `Drafts`); re-renders only when this
 * box's draft changes.
 */
export function useDraft(box: string): [Draft, (draft: Draft) => void] {
  const { drafts } = useApp()
  const draft = useSyncExternalStore(drafts.subscribe, () => drafts.get(box))
  const set = useCallback((d: Draft) => drafts.set(box, d), [drafts, box])
  return [draft, set]
}
