import type { TestProject } from 'vitest/node'
import { type RelayHandle, startRelay } from '../../relay/src/index'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Real relays (in-process, in Node) that the browser tests reach over WebSockets. */
    browserRelays: { configured: string; outbox: string; groups: string; added: string; groupId: string }
  }
}

/** Starts the relays the browser tests use (a page cannot start one), and stops them after the run. */
export default async function setup(project: TestProject) {
  const open = () => startRelay({ port: 0, host: '127.0.0.1', db: ':memory:' })
  const relays: RelayHandle[] = [await open(), await open(), await open(), await open()]
  const [configured, outbox, groups, added] = relays as [RelayHandle, RelayHandle, RelayHandle, RelayHandle]
  const groupId = await groups.createGroup({ name: 'Follows NIP-65' })
  project.provide('browserRelays', {
    configured: configured.url,
    outbox: outbox.url,
    groups: groups.url,
    added: added.url,
    groupId,
  })
  return async () => {
    for (const r of relays) await r.close()
  }
}
