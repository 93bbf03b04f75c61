import { createContext, useCallback, useContext, useEffect, useState, useSyncExternalStore } from 'react'
import type { AppApi, AppSnapshot, GroupHandle } from './model/api'
import type { GroupDetail, Profile } from './model/types'

export const AppContext = createContext<AppApi | null>(null)

export function useApp(): AppApi {
  const app = useContext(AppContext)
  if (!app) throw new Error('useApp outside <AppContext>')
  return app
}

/** The shell snapshot; re-renders when groups, unread counts or settings change. */
export function useAppSnapshot(): AppSnapshot {
  const app = useApp()
  return useSyncExternalStore(
    useCallback((fn) => app.subscribe(fn), [app]),
    () => app.snapshot(),
  )
}

const noop = () => () => {}

/** One group's snapshot (undefined when the group is not in the registry). */
export function useGroup(handle: GroupHandle | undefined): GroupDetail | undefined {
  return useSyncExternalStore(
    useCallback((fn: () => void) => (handle ? handle.subscribe(fn) : noop()), [handle]),
    () => handle?.snapshot(),
  )
}

/** A person's kind 0 profile, when one has arrived. */
export function useProfile(pubkey: string): Profile | undefined {
  const app = useApp()
  useSyncExternalStore(
    useCallback((fn) => app.subscribe(fn), [app]),
    () => app.profilesVersion(),
  )
  return app.profile(pubkey)
}

/** Whether the page is visible (read marks and notifications depend on it). */
export function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState === 'visible')
  useEffect(() => {
    const on = () => setVisible(document.visibilityState === 'visible')
    document.addEventListener('visibilitychange', on)
    return () => document.removeEventListener('visibilitychange', on)
  }, [])
  return visible
}
