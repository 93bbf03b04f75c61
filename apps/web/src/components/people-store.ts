/**
 * The open group's people store, apart from the components that render it (names, the profile
 * card), so that a name can open a card without the two importing each other.
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import { shortNpub } from '../lib/format'
import { cleanName } from '../lib/names'
import type { GroupDetail, Member } from '../model/types'

/** What names in the open group can do: open a person's card, and know which names are ambiguous. */
export interface PeopleApi {
  open(pubkey: string): void
  /** Display names two or more people in view share: each gets an npub suffix. */
  clashes: ReadonlySet<string>
}

/** What the store holds: the names' API, the group's members, and whose card is open. */
export interface PeopleState {
  api: PeopleApi | null
  members: readonly Member[]
  membersKnown: boolean
  opened?: string
}

/**
 * The open group's people, shared by every name on screen (timeline, threads, people panel):
 * one group is open at a time, so one store serves them all without wrapping the layout.
 */
let state: PeopleState = { api: null, members: [], membersKnown: false }
const listeners = new Set<() => void>()
function set(next: Partial<PeopleState>) {
  state = { ...state, ...next }
  for (const l of listeners) l()
}
const subscribe = (fn: () => void) => {
  listeners.add(fn)
  return () => listeners.delete(fn)
}
const open = (pubkey: string) => set({ opened: pubkey })

/** The open group's people, or null outside a group view. */
export function usePeople(): PeopleApi | null {
  return useSyncExternalStore(subscribe, () => state.api)
}

/**
 * Publishes the open group's people (its members, the authors in view, and you) for the names on
 * screen: which display names clash, and who is a member with which roles.
 */
export function useGroupPeople(detail: GroupDetail | undefined): void {
  const app = useApp()
  const snap = useAppSnapshot()
  const version = app.profilesVersion()
  const members = detail?.members
  const messages = detail?.messages
  const people = useMemo(
    () => [
      ...new Set([
        ...(members ?? []).map((m) => m.pubkey),
        ...(messages ?? []).map((m) => m.pubkey),
        snap.session.pubkey,
      ]),
    ],
    [members, messages, snap.session.pubkey],
  )
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` changes when any profile does
  const clashes = useMemo(() => {
    const seen = new Map<string, number>()
    for (const pk of people) {
      const name = cleanName(app.profile(pk)?.name ?? '') || shortNpub(pk)
      seen.set(name, (seen.get(name) ?? 0) + 1)
    }
    return new Set([...seen].filter(([, n]) => n > 1).map(([name]) => name))
  }, [people, app, version])
  const active = detail !== undefined
  useEffect(() => {
    if (!active) return
    set({ api: { open, clashes } })
  }, [active, clashes])
  useEffect(() => {
    set({ members: members ?? [], membersKnown: detail?.membersKnown ?? false })
  }, [members, detail?.membersKnown])
  useEffect(() => () => set({ api: null, members: [], membersKnown: false, opened: undefined }), [])
}

/**
 * The whole store (who is open, the members), for the profile card's host.
 * @example const { opened, members } = usePeopleState()
 */
export function usePeopleState(): PeopleState {
  return useSyncExternalStore(subscribe, () => state)
}

/**
 * Closes the open profile card.
 * @example <ProfileCard … onClose={closeProfileCard} />
 */
export function closeProfileCard(): void {
  set({ opened: undefined })
}
