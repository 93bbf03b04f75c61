import type { TestProject } from 'vitest/node'
import { type RelayHandle, startRelay } from '../../relay/src/index'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Real relays (in-process, in Node) that the browser tests reach over WebSockets. */
    browserRelays: {
      configured: string
      outbox: string
      groups: string
      added: string
      groupId: string
      /** Without a rate limit, for conversations of hundreds of messages: ties answered in arrival order. */
      ordered: string
      /** The same, answering a second's events lowest id first (`tieOrder: 'id'`), as NIP-01 relays do. */
      tiesById: string
    }
  }
}

/** Starts the relays the browser tests use (a page cannot start one), and stops them after the run. */
export default async function setup(project: TestProject) {
  const open = () => startRelay({ port: 0, host: '127.0.0.1', db: ':memory:' })
  const unlimited = { rateLimit: { events: 0, perSeconds: 1 } }
  const ordered = await startRelay({ port: 0, host: '127.0.0.1', db: ':memory:', ...unlimited })
  const tiesById = await startRelay({
    port: 0,
    host: '127.0.0.1',
    db: ':memory:',
    ...unlimited,
    tieOrder: 'id',
  })
  const relays: RelayHandle[] = [await open(), await open(), await open(), await open(), ordered, tiesById]
  const [configured, outbox, groups, added] = relays as [RelayHandle, RelayHandle, RelayHandle, RelayHandle]
  const groupId = await groups.createGroup({ name: 'Follows NIP-65' })
  project.provide('browserRelays', {
    configured: configured.url,
    outbox: outbox.url,
    groups: groups.url,
    added: added.url,
    groupId,
    ordered: ordered.url,
    tiesById: tiesById.url,
  })
  return async () => {
    for (const r of relays) await r.close()
  }
}
