import { type RelayHandle, type RelayOptions, startRelay } from '@roost/relay'
import { WebSocket } from 'ws'
import {
  type Group,
  type GroupEvent,
  type GroupSnapshot,
  LocalSigner,
  MemoryEventStore,
  nobleVerifier,
} from '../src'
import { createRoost, type Roost, type RoostOptions } from '../src/roost'
import type { EventStore } from '../src/store'

/** Everything a test opened, closed in afterEach. */
export class Harness {
  private readonly closers: (() => Promise<void> | void)[] = []

  defer(fn: () => Promise<void> | void): void {
    this.closers.push(fn)
  }

  async relay(opts: RelayOptions = {}): Promise<RelayHandle> {
    const relay = await startRelay({ port: 0, ...opts })
    let closed = false
    const close = relay.close.bind(relay)
    relay.close = async () => {
      if (closed) return
      closed = true
      await close()
    }
    this.defer(() => relay.close())
    return relay
  }

  /** A client on its own store, with short timeouts and fast reconnects for tests. */
  roost(
    opts: Partial<RoostOptions> & { signer?: LocalSigner; store?: EventStore } = {},
  ): Roost & { signer: LocalSigner } {
    const signer = opts.signer ?? LocalSigner.generate()
    const roost = createRoost({
      ...opts,
      signer,
      store: opts.store ?? new MemoryEventStore(),
      pool: {
        websocket: WebSocket as unknown as typeof globalThis.WebSocket,
        verifier: nobleVerifier,
        backoff: { baseMs: 50, maxMs: 400 },
        publishTimeout: 3_000,
        eoseTimeout: 3_000,
        ...opts.pool,
      },
    })
    this.defer(() => roost.close())
    return Object.assign(roost, { signer })
  }

  async close(): Promise<void> {
    for (const fn of this.closers.splice(0).reverse()) {
      try {
        await fn()
      } catch {}
    }
  }
}

/**
 * Resolves when `predicate(snapshot)` holds, re-checking on every group event; rejects after
 * `ms` with the last snapshot in the message (no sleeping, no polling).
 */
export function until(
  group: Group,
  predicate: (s: GroupSnapshot) => boolean,
  ms = 5_000,
): Promise<GroupSnapshot> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const s = group.snapshot()
      if (predicate(s)) {
        clearTimeout(timer)
        stop()
        resolve(s)
        return true
      }
      return false
    }
    const timer = setTimeout(() => {
      stop()
      const s = group.snapshot()
      reject(
        new Error(
          `condition not met in ${ms} ms: membership ${JSON.stringify(s.membership)}, ${s.messages.length} messages, refused ${s.refused}`,
        ),
      )
    }, ms)
    const stop = group.subscribe((_e: GroupEvent) => {
      check()
    })
    check()
  })
}

/** Resolves on the next group event of a type. */
export function nextEvent<T extends GroupEvent['type']>(
  group: Group,
  type: T,
  ms = 5_000,
): Promise<Extract<GroupEvent, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`no ${type} event in ${ms} ms`))
    }, ms)
    const stop = group.subscribe((e) => {
      if (e.type === type) {
        clearTimeout(timer)
        stop()
        resolve(e as Extract<GroupEvent, { type: T }>)
      }
    })
  })
}

/** Resolves when the registry's listener fires and `predicate` holds. */
export function untilRegistry(roost: Roost, predicate: () => boolean, ms = 5_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (predicate()) return resolve()
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`registry condition not met in ${ms} ms`))
    }, ms)
    const stop = roost.groups.subscribe(() => {
      if (predicate()) {
        clearTimeout(timer)
        stop()
        resolve()
      }
    })
  })
}

export function groupCode(relay: RelayHandle, id: string): string {
  return `${relay.url}'${id}`
}
