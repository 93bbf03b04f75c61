// (b) The public API as a TypeScript user sees it, checked with `tsc --noEmit` under
// `moduleResolution: nodenext` against the installed packages' declarations.
import {
  createRoost,
  type Group,
  type GroupSnapshot,
  LocalSigner,
  MemoryEventStore,
  PublishRefusedError,
  type Roost,
} from '@roost/client'
import { SqliteEventStore } from '@roost/client/sqlite'
import { GroupKey, KINDS } from '@roost/nip29'
import { type ProfileSource, RoostProvider, useGroup, useGroups, useProfile, useUnread } from '@roost/react'
import { parseBlob, type ReadStateEngine } from '@roost/read-state'
import { type RelayHandle, type RelayOptions, startRelay } from '@roost/relay'
import { createElement, type ReactNode } from 'react'

export async function roundTrip(options: RelayOptions): Promise<GroupSnapshot> {
  const relay: RelayHandle = await startRelay({ ...options, port: 0, demo: true })
  const roost: Roost = createRoost({
    signer: LocalSigner.generate(),
    store: SqliteEventStore.open(':memory:'),
    relays: [relay.url],
  })
  const group: Group = await roost.groups.join(`${relay.url}'general`)
  try {
    await group.sendMessage('typed')
  } catch (err) {
    if (err instanceof PublishRefusedError) console.log(err.code, err.prefix)
  }
  const snapshot = group.snapshot()
  await roost.close()
  await relay.close()
  return snapshot
}

export const key: string = GroupKey.parse("wss://relay.example.com'general").toString()
export const chat: number = KINDS.chat
export const parsed = parseBlob('{}')
export type Engine = ReadStateEngine
export const memory = new MemoryEventStore()

interface Person {
  name?: string
}

function Unread({ id }: { id: string }): ReactNode {
  const snap: GroupSnapshot | undefined = useGroup(id)
  const unread: number = useUnread(id)
  const person: Person | undefined = useProfile<Person>('a'.repeat(64))
  return `${snap?.id ?? '?'} ${unread} ${person?.name ?? ''} ${useGroups().length}`
}

export function view(roost: Roost, profiles: ProfileSource<Person>): ReactNode {
  return createElement(RoostProvider, { roost, profiles }, createElement(Unread, { id: key }))
}
