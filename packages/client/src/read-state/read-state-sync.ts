import { normalizeRelayUrl } from '@roost/nip29'
import {
  type Contexts,
  type Effect,
  type EngineState,
  type EngineStatus,
  InvalidContextError,
  InvalidTimestampError,
  isValidContextKey,
  isValidTimestamp,
  type ParentResolver,
  publishTemplate,
  ReadStateEngine,
} from '@roost/read-state'
import type { NostrEvent } from 'nostr-tools/core'
import type { Filter } from 'nostr-tools/filter'
import { ClosedError } from '../errors'
import { nobleVerifier } from '../verify'
import { BlobOpener } from './blob-opener'
import type { ReadStateChange, ReadStateRelays, ReadStateSyncOptions, ReadStateTimers } from './options'
import { flushOnPageHide } from './page-hide'

const STATE_KEY = 'read-state:v1:'

function defaultRandomId(): string {
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  let out = ''
  for (const b of bytes) out += b.toString(16).padStart(2, '0')
  return out
}

/**
 * NIP-RS read state synced across the user's devices: drives the pure `ReadStateEngine` of
 * `@roost/read-state` with a relay pool, a signer (NIP-44 to self) and a store. Verifies every
 * blob's signature before decrypting it, loads from the union of read and write relays within
 * the horizon, keeps a live subscription, publishes to the write relays after a debounce (and on
 * `flush()`/`close()`), and persists its ids and marks per pubkey. It is also a groups
 * `ReadStateSource` (`frontier`, `markRead`, `subscribe`).
 *
 * @example
 * const sync = new ReadStateSync({ pool, signer, store, relays: ['wss://relay.example.com'] })
 * await sync.ready
 * sync.markRead(groupKey.toString(), newestMessage.created_at)
 * sync.effective(groupKey.toString()) // → newestMessage.created_at
 * const off = sync.subscribe(({ contexts, remote }) => rerender(contexts))
 * await sync.close() // flushes
 */
export class ReadStateSync {
  /** Resolves once the persisted state and the initial load are in (rejects only if the signer fails). */
  readonly ready: Promise<void>
  private engine: ReadStateEngine | undefined
  private pubkey = ''
  private readRelays: string[] = []
  private writeRelays: string[] = []
  private readonly clock: () => number
  private readonly timers: ReadStateTimers
  private readonly listeners = new Set<(change: ReadStateChange) => void>()
  private readonly subs: { close(): void }[] = []
  private readonly early: [string, number][] = []
  private readonly opener: BlobOpener
  private readonly settleWaiters: (() => void)[] = []
  private timer: unknown
  private saving: Promise<void> = Promise.resolve()
  private latestState: (() => EngineState) | undefined
  private saveScheduled = false
  private closed = false
  private inFlightTasks = 0
  private remoteDepth = 0
  private readonly detachHide: (() => void) | undefined
  /** Decision l's "this device only": marks and persistence, no network. */
  private readonly localOnly: boolean
  /** Fetches and follows, never publishes (a window that cannot keep its ids). */
  private readonly readOnly: boolean
  /** The engine's load and subscription have been started (there were relays). */
  private networkStarted = false
  private liveFilter: Filter | undefined

  constructor(private readonly opts: ReadStateSyncOptions) {
    this.assignRelays(opts.relays)
    this.clock = opts.clock ?? Date.now
    this.timers = opts.timers ?? {
      setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
      clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
    }
    this.opener = new BlobOpener(opts.signer, opts.verifier ?? nobleVerifier, () => this.pubkey)
    this.localOnly = opts.localOnly === true
    this.readOnly = opts.readOnly === true
    this.detachHide = opts.flushOnHide === false ? undefined : flushOnPageHide(() => void this.flush())
    this.ready = this.init()
    this.ready.catch(() => {})
  }

  private async init(): Promise<void> {
    this.pubkey = await this.opts.signer.getPublicKey()
    // an unreadable stored state starts over with new ids rather than blocking read state
    const state = await this.opts.store.getValue<EngineState>(STATE_KEY + this.pubkey).catch(() => undefined)
    if (this.closed) return
    this.engine = new ReadStateEngine({
      pubkey: this.pubkey,
      clock: this.clock,
      randomId: this.opts.randomId ?? defaultRandomId,
      ...(state?.v === 1 ? { state } : {}),
      ...(this.opts.budget !== undefined ? { budget: this.opts.budget } : {}),
      ...(this.opts.horizonSeconds !== undefined ? { horizonSeconds: this.opts.horizonSeconds } : {}),
      ...(this.opts.debounceMs !== undefined ? { debounceMs: this.opts.debounceMs } : {}),
      ...(this.opts.maxWaitMs !== undefined ? { maxWaitMs: this.opts.maxWaitMs } : {}),
      ...(this.opts.parentOf ? { parentOf: this.opts.parentOf } : {}),
    })
    const early = this.early.splice(0)
    if (this.localOnly || this.readRelays.length === 0) {
      // nowhere to sync (yet): marks and persistence only, until setRelays() gives relays
      for (const [ctx, ts] of early) this.run(this.engine.markRead(ctx, ts))
      const engine = this.engine
      this.saveState(() => engine.snapshot())
      return
    }
    const loaded = new Promise<void>((resolve) => {
      this.onLoaded = resolve
    })
    this.startNetwork()
    for (const [ctx, ts] of early) this.run(this.engine.markRead(ctx, ts))
    await loaded
  }

  private startNetwork(): void {
    if (!this.engine || this.networkStarted) return
    this.networkStarted = true
    this.run(this.engine.start())
  }

  private assignRelays(relays: ReadStateRelays): void {
    const read = 'read' in relays ? relays.read : relays
    const write = 'write' in relays ? relays.write : relays
    this.writeRelays = [...new Set(write.map((r) => normalizeRelayUrl(r)))]
    this.readRelays = [...new Set([...read, ...write].map((r) => normalizeRelayUrl(r)))]
  }

  /**
   * Switches to another relay set (e.g. once the user's NIP-65 list is known): subscribes on the
   * new relays, loads what they hold, and publishes pending marks there. Throws `InvalidRelayUrlError`
   * on a bad URL.
   *
   * @example
   * sync.setRelays({ read: nip65.read, write: nip65.write })
   */
  async setRelays(relays: ReadStateRelays): Promise<void> {
    if (this.closed) throw new ClosedError('ReadStateSync')
    const before = new Set(this.readRelays)
    this.assignRelays(relays)
    await this.ready.catch(() => {})
    const engine = this.engine
    if (!engine || this.localOnly || this.closed) return
    if (!this.networkStarted) {
      if (this.readRelays.length === 0) return
      const loaded = new Promise<void>((resolve) => {
        this.onLoaded = resolve
      })
      this.startNetwork()
      await loaded
      return
    }
    for (const s of this.subs.splice(0)) s.close()
    if (this.liveFilter) this.subscribeLive(this.liveFilter)
    const added = this.readRelays.filter((r) => !before.has(r))
    if (added.length === 0) return
    const nowSec = Math.floor(this.clock() / 1000)
    const since = nowSec - (this.opts.horizonSeconds ?? 7 * 86400)
    const filter: Filter = { kinds: [30078], authors: [this.pubkey], '#t': ['read-state'], since }
    const events = await this.opts.pool.fetch(added, [filter], { timeout: this.fetchTimeout }).catch(() => [])
    const blobs = await this.opener.open(events)
    if (this.closed) return
    this.remoteDepth++
    try {
      this.run(engine.loaded(blobs))
    } finally {
      this.remoteDepth--
    }
  }

  private subscribeLive(filter: Filter): void {
    // the live filter with the horizon as `since`: stored blobs older than it are not replayed
    const since = Math.floor(this.clock() / 1000) - (this.opts.horizonSeconds ?? 7 * 86400)
    for (const relay of this.readRelays) {
      this.subs.push(
        this.opts.pool.subscribe(relay, [{ ...filter, since }], { onevent: (ev) => this.onLive(ev) }),
      )
    }
  }

  private onLoaded: (() => void) | undefined

  // ── public API ───────────────────────────────────────────────────────────────────────────────

  /**
   * Marks `ctx` read up to `ts` (the `created_at` of the newest message read). Never lowers a
   * value; publishes after the debounce. Throws the engine's typed errors on a bad context or
   * timestamp, `ClosedError` after `close()`.
   *
   * @example
   * sync.markRead(`thread:${root.id}`, newestReply.created_at)
   */
  markRead(ctx: string, ts: number): void {
    if (this.closed) throw new ClosedError('ReadStateSync')
    if (!this.engine) {
      // validated now so the caller hears about bad input synchronously; applied once loaded
      if (!isValidContextKey(ctx)) throw new InvalidContextError(ctx)
      if (!isValidTimestamp(ts)) throw new InvalidTimestampError(ts)
      this.early.push([ctx, ts])
      return
    }
    this.run(this.engine.markRead(ctx, ts))
  }

  /**
   * The effective frontier (hierarchical rule with the configured parent resolver), `undefined`
   * when unknown (unread).
   *
   * @example
   * sync.effective(`thread:${root.id}`) // max(thread, channel)
   */
  effective(ctx: string): number | undefined {
    if (!this.engine) {
      let best: number | undefined
      for (const [c, ts] of this.early) if (c === ctx && (best === undefined || ts > best)) best = ts
      return best
    }
    return this.engine.effective(ctx)
  }

  /** `ReadStateSource` for groups: the effective frontier, 0 when unknown. */
  frontier(ctx: string): number {
    return this.effective(ctx) ?? 0
  }

  /** Every known context (local marks merged with every device's blob). */
  get contexts(): Contexts {
    return this.engine?.contexts ?? {}
  }

  /** This installation's ids (after `ready`). */
  get clientId(): string | undefined {
    return this.engine?.clientId
  }
  /** The NIP-RS slot this installation writes its read state to (after `ready`). */
  get slotId(): string | undefined {
    return this.engine?.slotId
  }

  /** What the engine is doing. */
  status(): EngineStatus | undefined {
    return this.engine?.status()
  }

  /** Replaces the parent resolver when the event graph learns new threads. */
  setParentResolver(parentOf: ParentResolver | undefined): void {
    this.engine?.setParentResolver(parentOf)
  }

  /**
   * Listens for advanced contexts. Accepts both `(change) => …` and groups' `() => …`.
   * Returns an unsubscribe function.
   *
   * @example
   * const off = sync.subscribe(({ contexts, remote }) => { if (remote) recount(contexts) })
   */
  subscribe(listener: (change: ReadStateChange) => void): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * Publishes a pending change now (read-before-write included) and resolves when that is done
   * (or failed; a failure is retried later). Also runs on `close()`, page hide and hidden
   * visibility.
   *
   * @example
   * window.addEventListener('beforeunload', () => void sync.flush())
   */
  async flush(): Promise<void> {
    await this.ready.catch(() => {})
    const engine = this.engine
    if (!engine || this.localOnly || this.readOnly || !this.networkStarted) return this.saving
    this.run(engine.flush())
    await this.settled()
    await this.saving
  }

  /**
   * Flushes (waiting at most `closeTimeout`, default 10 s, for a signer or relay that does not
   * answer), then stops the subscription and timers. The store and pool stay open (they are the
   * caller's).
   */
  async close(): Promise<void> {
    if (this.closed) return
    let timer: unknown
    await Promise.race([
      this.flush(),
      new Promise<void>((resolve) => {
        timer = this.timers.setTimeout(resolve, this.opts.closeTimeout ?? 10_000)
      }),
    ])
    this.timers.clearTimeout(timer)
    this.closed = true
    this.detachHide?.()
    for (const s of this.subs.splice(0)) s.close()
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer)
    this.timer = undefined
    for (const w of this.settleWaiters.splice(0)) w()
    await this.saving
  }

  // ── effects ──────────────────────────────────────────────────────────────────────────────────

  private run(effects: Effect[]): void {
    for (const effect of effects) this.perform(effect)
    this.checkSettled()
  }

  private perform(e: Effect): void {
    if (this.readOnly && this.withhold(e)) return
    switch (e.type) {
      case 'load':
        this.task(
          async () => {
            const events = await this.opts.pool.fetch(this.readRelays, [e.filter], {
              timeout: this.fetchTimeout,
            })
            const blobs = await this.opener.open(events)
            if (this.closed || !this.engine) return
            this.remoteDepth++
            try {
              this.run(this.engine.loaded(blobs))
            } finally {
              this.remoteDepth--
            }
            this.onLoaded?.()
          },
          () => {
            if (this.engine && !this.closed) this.run(this.engine.loaded([]))
            this.onLoaded?.()
          },
        )
        break
      case 'subscribe':
        this.liveFilter = e.filter
        this.subscribeLive(e.filter)
        break
      case 'fetch-own':
        this.task(
          async () => {
            const events = await this.opts.pool.fetch(this.writeRelays, [e.filter], {
              timeout: this.fetchTimeout,
            })
            const blobs = await this.opener.open(events)
            if (!this.engine) return
            this.remoteDepth++
            try {
              this.run(this.engine.ownFetched(e.ref, blobs))
            } finally {
              this.remoteDepth--
            }
          },
          () => {
            if (this.engine) this.run(this.engine.ownFetched(e.ref, []))
          },
        )
        break
      case 'publish':
        this.task(async () => {
          let id: string | undefined
          let ok = false
          try {
            const content = await this.opts.signer.nip44.encrypt(this.pubkey, e.plaintext)
            const event = await this.opts.signer.signEvent(publishTemplate(e, content))
            id = event.id
            this.opener.sent(event.id, e.plaintext)
            const results = await this.opts.pool.publish(this.writeRelays, event)
            ok = results.some((r) => r.ok)
          } finally {
            if (this.engine) this.run(this.engine.published(e.ref, id ? { id, ok } : { ok }))
          }
        })
        break
      case 'delete':
        this.task(async () => {
          const event = await this.opts.signer.signEvent(e.template)
          await this.opts.pool.publish(this.writeRelays, event)
        })
        break
      case 'wake':
        if (this.timer !== undefined) this.timers.clearTimeout(this.timer)
        this.timer = undefined
        if (e.at !== null && !this.closed) {
          this.timer = this.timers.setTimeout(
            () => {
              this.timer = undefined
              if (this.engine && !this.closed) this.run(this.engine.tick())
            },
            Math.max(0, e.at - this.clock()),
          )
        }
        break
      case 'persist':
        // read lazily: a burst of marks costs one snapshot per store write, not one per mark
        this.saveState(() => e.state)
        break
      case 'changed': {
        const change: ReadStateChange = { contexts: e.contexts, remote: this.remoteDepth > 0 }
        for (const l of [...this.listeners]) {
          try {
            l(change)
          } catch {}
        }
        break
      }
      case 'rotated':
        break
    }
  }

  /**
   * Read-only: nothing leaves this window. The engine's timer is not armed; a publish cycle that
   * still starts (an input after the debounce) is answered at once, its own blob as empty and its
   * publish as done, so it neither touches the network nor retries; stale duplicates are left
   * for a device that owns its slot to delete. True when the effect was handled here.
   */
  private withhold(e: Effect): boolean {
    const engine = this.engine
    if (e.type === 'wake' || e.type === 'delete') return true
    if (e.type === 'fetch-own') {
      if (engine) this.run(engine.ownFetched(e.ref, []))
      return true
    }
    if (e.type === 'publish') {
      if (engine) this.run(engine.published(e.ref, { ok: true }))
      return true
    }
    return false
  }

  private get fetchTimeout(): number {
    return this.opts.fetchTimeout ?? 5_000
  }

  /** Runs an async effect; a failure calls `onError` (the engine must always get its answer). */
  private task(fn: () => Promise<void>, onError?: () => void): void {
    this.inFlightTasks++
    fn()
      .catch(() => onError?.())
      .finally(() => {
        this.inFlightTasks--
        this.checkSettled()
      })
  }

  private onLive(event: NostrEvent): void {
    if (this.closed || !this.engine) return
    if (this.opener.seen(event.id)) return
    this.task(async () => {
      const [blob] = await this.opener.open([event])
      if (!blob || this.closed || !this.engine) return
      this.remoteDepth++
      try {
        this.run(this.engine.receive(blob))
      } finally {
        this.remoteDepth--
      }
    })
  }

  private saveState(state: () => EngineState): void {
    this.latestState = state
    if (this.saveScheduled) return
    this.saveScheduled = true
    this.saving = this.saving.then(async () => {
      this.saveScheduled = false
      const s = this.latestState?.()
      if (s) await this.opts.store.setValue(STATE_KEY + this.pubkey, s).catch(() => {})
    })
  }

  private settled(): Promise<void> {
    return new Promise((resolve) => {
      this.settleWaiters.push(resolve)
      this.checkSettled()
    })
  }

  private checkSettled(): void {
    if (this.settleWaiters.length === 0) return
    const s = this.engine?.status()
    if (!s || (s.inFlight === null && this.inFlightTasks === 0) || this.closed) {
      for (const w of this.settleWaiters.splice(0)) w()
    }
  }
}
