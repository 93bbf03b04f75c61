import type { Group, GroupSnapshot, GroupsRegistry, Roost } from '@roost/client'
import type { GroupKey } from '@roost/nip29'
import { useCallback, useContext, useMemo, useSyncExternalStore } from 'react'
import { MissingProviderError, RoostContext, useRoost } from './context'
import { useSnapshot } from './snapshot'

/**
 * Every group of the account, in list order; the same array until one is added or removed.
 *
 * @example
 * const groups = useGroups()
 * return <ul>{groups.map((g) => <GroupRow key={g.key.toString()} group={g} />)}</ul>
 */
export function useGroups(): readonly Group[] {
  const { groups } = useRoost()
  return useSyncExternalStore(
    groups.subscribe,
    () => groups.groups(),
    () => groups.groups(),
  )
}

function useRegistryGroup(registry: GroupsRegistry | undefined, groupKey: GroupKey | string | undefined) {
  // By string, so a `GroupKey` made anew on each render does not resubscribe each render.
  const key = groupKey?.toString()
  const subscribe = useCallback(
    (listener: () => void) => (registry && key !== undefined ? registry.subscribe(listener) : () => {}),
    [registry, key],
  )
  const read = () => (registry && key !== undefined ? registry.group(key) : undefined)
  return useSyncExternalStore(subscribe, read, read)
}

/**
 * A group's `GroupSnapshot` (messages, threads, membership, unread, `canSend`, …), re-rendering
 * when it changes. Pass the `Group` itself, or its key (`wss://relay'id` or a `GroupKey`) to
 * look it up in the account's groups: `undefined` until the group is there (e.g. while joining).
 * Given a `Group`, the snapshot is always there (typed `GroupSnapshot`, no `undefined`).
 *
 * @throws {InvalidReferenceError} (from `@roost/nip29`) for a key that is not a group key.
 * @example
 * const snap = useGroup("wss://groups.example.com'general")
 * if (snap) return <Timeline messages={snap.messages} />
 * @example
 * function Channel({ group }: { group: Group }) {
 *   const { messages } = useGroup(group) // GroupSnapshot
 *   return <Timeline messages={messages} onSend={(text) => group.sendMessage(text)} />
 * }
 */
export function useGroup(group: Group): GroupSnapshot
export function useGroup(group: Group | GroupKey | string | undefined): GroupSnapshot | undefined
export function useGroup(group: Group | GroupKey | string | undefined): GroupSnapshot | undefined {
  const isKey = typeof group === 'string' || (group !== undefined && !isGroup(group))
  const registry = useRoostIf(isKey, 'useGroup')?.groups
  const found = useRegistryGroup(registry, isKey ? (group as GroupKey | string) : undefined)
  return useSnapshot(isKey ? found : (group as Group | undefined))
}

/**
 * What {@link useGroupHandle} returns: the group to write to and its snapshot to show, both there
 * or (until the account holds the group) both `undefined`.
 */
export type GroupHandle =
  | {
      /** The group, to write to. */
      readonly group: Group
      /** Its current snapshot, to show. */
      readonly snapshot: GroupSnapshot
    }
  | {
      /** The account does not hold the group (yet). */
      readonly group: undefined
      /** No group, no snapshot. */
      readonly snapshot: undefined
    }

/**
 * The account's group for a key (`wss://relay'id` or a `GroupKey`) as `{ group, snapshot }`: one
 * lookup to show it and write to it, re-rendering when either changes. Both are `undefined` until
 * the group is there (e.g. while joining). Needs `<RoostProvider roost={…}>`.
 *
 * @throws {InvalidReferenceError} (from `@roost/nip29`) for a key that is not a group key.
 * @example
 * const { group, snapshot } = useGroupHandle("wss://groups.example.com'general")
 * if (!group) return <p>Joining…</p>
 * return <Timeline messages={snapshot.messages} onSend={(text) => group.sendMessage(text)} />
 */
export function useGroupHandle(key: GroupKey | string | undefined): GroupHandle {
  const registry = useRoostIf(key !== undefined, 'useGroupHandle')?.groups
  const group = useRegistryGroup(registry, key)
  const snapshot = useSnapshot(group)
  return useMemo(
    () => (group && snapshot ? { group, snapshot } : { group: undefined, snapshot: undefined }),
    [group, snapshot],
  )
}

/**
 * Unread messages: in one group (a `Group` or its key) or, with no argument, across every group
 * of the account. Follows read marks from this and the account's other devices (NIP-RS).
 *
 * @example
 * const total = useUnread()
 * useEffect(() => { document.title = total ? `(${total}) Roost` : 'Roost' }, [total])
 */
export function useUnread(group?: Group | GroupKey | string): number {
  const all = group === undefined
  const roost = useRoostIf(all, 'useUnread')
  const registry = all ? roost?.groups : undefined
  const one = useGroup(group)
  const subscribe = useCallback(
    (listener: () => void) => {
      if (!registry) return () => {}
      const stops = new Map<Group, () => void>()
      const follow = () => {
        const now = new Set(registry.groups())
        for (const [g, stop] of stops) {
          if (now.has(g)) continue
          stop()
          stops.delete(g)
        }
        for (const g of now)
          if (!stops.has(g))
            stops.set(
              g,
              g.subscribe(() => listener()),
            )
      }
      follow()
      const stopRegistry = registry.subscribe(() => {
        follow()
        listener()
      })
      return () => {
        stopRegistry()
        for (const stop of stops.values()) stop()
      }
    },
    [registry],
  )
  const read = () => (registry ? registry.groups().reduce((n, g) => n + g.unread(), 0) : 0)
  const total = useSyncExternalStore(subscribe, read, read)
  return all ? total : (one?.unread ?? 0)
}

function isGroup(x: object): x is Group {
  return typeof (x as Group).snapshot === 'function' && typeof (x as Group).subscribe === 'function'
}

/** The provider's client; throws `MissingProviderError` when `needed` and there is none. */
function useRoostIf(needed: boolean, hook: string): Roost | undefined {
  const { roost } = useContext(RoostContext)
  if (needed && !roost) throw new MissingProviderError(hook, 'roost')
  return roost
}
