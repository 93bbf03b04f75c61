/** The IndexedDB half of negentropy-backfill.bench.ts, bundled and run in Chromium. */
import type { NostrEvent } from 'nostr-tools/core'
import { IndexedDbEventStore } from '../packages/client/src/store'
import { measure, type Run } from './negentropy-backfill.shared'

let n = 0

declare global {
  interface Window {
    backfill(opts: {
      method: 'nip77' | 'req'
      relay: string
      groupId: string
      cached: NostrEvent[]
      truth: string[]
    }): Promise<Run>
  }
}

window.backfill = async (opts) => {
  const store = await IndexedDbEventStore.open(`bench-backfill-${Date.now()}-${n++}`)
  try {
    return await measure({ ...opts, store, websocket: WebSocket })
  } finally {
    await store.close()
  }
}
