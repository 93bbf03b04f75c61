import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

  /** A fresh temporary directory, removed after the test. */
  tmp(): string {
    const dir = mkdtempSync(join(tmpdir(), 'roost-client-'))
    this.defer(() => rmSync(dir, { recursive: true, force: true }))
    return dir
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

/** Frames seen on the wire by a client, for asserting what a relay said. */
export interface WireLog {
  sent: string[]
  received: string[]
}

/** The real `ws` WebSocket, recording every frame in `log` (observation only, nothing is altered). */
export function recordingWebSocket(log: WireLog): typeof globalThis.WebSocket {
  class Recording extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols)
      this.addEventListener('message', (e) => {
        log.received.push(String(e.data))
      })
    }
    override send(data: Parameters<WebSocket['send']>[0], ...rest: unknown[]): void {
      log.sent.push(String(data))
      ;(WebSocket.prototype.send as (...a: unknown[]) => void).call(this, data, ...rest)
    }
  }
  return Recording as unknown as typeof globalThis.WebSocket
}

/** `OK false` messages in a wire log, as [event id, message]. */
export function refusals(log: WireLog): [string, string][] {
  const out: [string, string][] = []
  for (const frame of log.received) {
    const msg = JSON.parse(frame) as unknown[]
    if (msg[0] === 'OK' && msg[2] === false) out.push([String(msg[1]), String(msg[3])])
  }
  return out
}

/** A network switch for one client: while `offline`, new sockets fail to connect (a closed port). */
export interface Gate {
  offline: boolean
}

/** The real `ws` WebSocket behind a {@link Gate}: the fault injected is "the network is down". */
export function gatedWebSocket(gate: Gate): typeof globalThis.WebSocket {
  class Gated extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(gate.offline ? 'ws://127.0.0.1:9' : url, protocols)
    }
  }
  return Gated as unknown as typeof globalThis.WebSocket
}
