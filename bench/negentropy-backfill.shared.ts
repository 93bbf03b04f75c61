/**
 * One backfill measured, the same in Node and in Chromium: a fresh pool whose WebSocket and
 * NIP-11 fetch count the bytes they receive, a store holding the cached window, then NIP-77
 * (`negentropyBackfill`) or the REQ re-fetch (`refetchWindow`) until the store holds the relay's
 * set. Browser-safe: imports only the client's sources.
 */
import { GroupKey } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { negentropyBackfill, RelayPool, refetchWindow } from '../packages/client/src/index'
import type { EventStore } from '../packages/client/src/store'

export interface Run {
  ms: number
  /** Bytes received: WebSocket frames (payload plus the server frame's header) and NIP-11. */
  bytes: number
  /** The fork's window equals the relay's set. */
  equal: boolean
  added: number
  removed: number
}

const utf8 = new TextEncoder()
const size = (data: unknown) =>
  typeof data === 'string' ? utf8.encode(data).length : ((data as ArrayBufferLike).byteLength ?? 0)
/** An unmasked server frame's header: 2 bytes, 4 past 125 bytes of payload, 10 past 65,535. */
const header = (n: number) => (n < 126 ? 2 : n < 65_536 ? 4 : 10)

export async function measure(opts: {
  store: EventStore
  method: 'nip77' | 'req'
  relay: string
  groupId: string
  cached: NostrEvent[]
  truth: string[]
  websocket: typeof WebSocket
}): Promise<Run> {
  const { store, relay } = opts
  const key = new GroupKey(relay, opts.groupId)
  await store.addMany(opts.cached, key.toString())
  const counter = { bytes: 0 }
  const Base = opts.websocket
  class Counting extends Base {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols)
      this.addEventListener('message', (ev: MessageEvent) => {
        const n = size(ev.data)
        counter.bytes += n + header(n)
      })
    }
  }
  const fetchCounting: typeof fetch = async (input, init) => {
    const res = await fetch(input, init)
    const text = await res.text()
    counter.bytes += utf8.encode(text).length
    return new Response(text, { status: res.status, headers: res.headers })
  }
  const pool = new RelayPool({
    websocket: Counting as unknown as typeof WebSocket,
    fetch: fetchCounting,
    publishTimeout: 60_000,
    eoseTimeout: 60_000,
  })
  const start = performance.now()
  const run = opts.method === 'nip77' ? negentropyBackfill : refetchWindow
  const result = await run({ store, pool, key, timeout: 60_000 })
  const ms = performance.now() - start
  pool.close()
  if (result.method === 'none') throw new Error(`no backfill: ${result.reason}`)
  const held = (await store.query({ fork: key.toString(), since: result.since })).map((e) => e.id).sort()
  const truth = [...opts.truth].sort()
  return {
    ms,
    bytes: counter.bytes,
    equal: held.length === truth.length && held.every((id, i) => id === truth[i]),
    added: result.added.length,
    removed: result.removed.length,
  }
}
