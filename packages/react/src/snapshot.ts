import { useCallback, useSyncExternalStore } from 'react'

/** A store that `useSnapshot` can read: `snapshot()` returns the same value until a change. */
export interface SnapshotSource<T> {
  /** Calls `listener` whenever the snapshot may have changed; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
  /** The current value: the same object until it changes, as `useSyncExternalStore` requires. */
  snapshot(): T
}

const noSubscription = () => () => {}

/**
 * The current snapshot of any `{ subscribe, snapshot }` store (a `Group`, or an app's own
 * model), re-rendering when it changes; `undefined` while there is no source.
 *
 * @example
 * const snap = useSnapshot(group) // GroupSnapshot | undefined
 */
export function useSnapshot<T>(source: SnapshotSource<T>): T
export function useSnapshot<T>(source: SnapshotSource<T> | undefined): T | undefined
export function useSnapshot<T>(source: SnapshotSource<T> | undefined): T | undefined {
  const subscribe = useCallback(
    (listener: () => void) => (source ? source.subscribe(() => listener()) : noSubscription()),
    [source],
  )
  const read = () => source?.snapshot()
  return useSyncExternalStore(subscribe, read, read)
}
