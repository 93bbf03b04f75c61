/**
 * One read-state installation per browser profile (NIP-RS, decision 15). Every tab of the app
 * opens the same IndexedDB, so each would load the same `client_id` and slot, publish different
 * blobs there and take the other for a clone, rotating again and again. Instead the tabs of one
 * account elect a leader with Web Locks: the leader runs the read-state sync, the others follow
 * over a BroadcastChannel (their marks go to the leader, the merged state comes back), and when
 * the leader's tab closes its lock passes to a follower, which starts the sync from the same
 * store, so the same ids. Without Web Locks or BroadcastChannel each tab is its own leader.
 */
import type { ReadStateRelays } from '@roost/client'
import { type Contexts, effective, mergeContexts, type ParentResolver } from '@roost/read-state'

/** What the leader runs (the app's `ReadStateSwitch`). */
export interface LeaderReadState {
  readonly ready: Promise<void>
  readonly isLocalOnly: boolean
  readonly contexts: Contexts
  frontier(context: string): number
  markRead(context: string, timestamp: number): void
  subscribe(listener: () => void): () => void
  flush(): Promise<void>
  setLocalOnly(localOnly: boolean): Promise<void>
  setRelays(relays: ReadStateRelays): Promise<void>
  close(): Promise<void>
}

/** The part of `navigator.locks` used here. */
export interface TabLocks {
  request(
    name: string,
    options: { ifAvailable?: boolean },
    callback: (lock: unknown) => Promise<void> | void,
  ): Promise<unknown>
}

/** The part of `BroadcastChannel` used here. */
export interface TabChannel {
  postMessage(message: unknown): void
  onmessage: ((event: { data: unknown }) => void) | null
  close(): void
}

type Message =
  | { type: 'hello' }
  | { type: 'state'; contexts: Contexts; localOnly: boolean }
  | { type: 'mark'; context: string; timestamp: number }
  | { type: 'flush' }
  | { type: 'local-only'; localOnly: boolean }
  | { type: 'relays'; relays: ReadStateRelays }

export interface TabReadStateOptions {
  /** Lock and channel name: one per account. */
  name: string
  /** Starts the read-state sync (called once, when this tab becomes the leader). */
  lead: () => LeaderReadState
  parentOf?: ParentResolver
  /** Default `navigator.locks` and `BroadcastChannel`; absent ones make this tab its own leader. */
  locks?: TabLocks
  channel?: () => TabChannel
  /** How long a follower waits for the leader's state before `ready` resolves anyway (ms). */
  readyTimeout?: number
}

/** The app's read state, shared by the tabs of one browser profile through a leader. */
export class TabReadState {
  readonly ready: Promise<void>
  private leader: LeaderReadState | undefined
  private offLeader: (() => void) | undefined
  private channel: TabChannel | undefined
  private release: (() => void) | undefined
  private readonly listeners = new Set<() => void>()
  /** A follower's view: the leader's merged state, and marks made here it may not have yet. */
  private remote: Contexts = {}
  private own: Record<string, number> = {}
  private merged: Contexts = {}
  private localOnly: boolean
  private relays: ReadStateRelays | undefined
  private closed = false
  private resolveReady!: () => void

  constructor(
    private readonly opts: TabReadStateOptions,
    localOnly: boolean,
  ) {
    this.localOnly = localOnly
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve
    })
    const locks = opts.locks ?? (typeof navigator !== 'undefined' ? navigator.locks : undefined)
    const channel =
      opts.channel ??
      (typeof BroadcastChannel !== 'undefined'
        ? () => new BroadcastChannel(opts.name) as unknown as TabChannel
        : undefined)
    if (!locks || !channel) {
      this.becomeLeader()
      return
    }
    this.channel = channel()
    this.channel.onmessage = (e) => this.receive(e.data as Message)
    const held = new Promise<void>((resolve) => {
      this.release = resolve
    })
    const hold = (lock: unknown) => {
      if (!lock || this.closed) return undefined
      this.becomeLeader()
      return held
    }
    void locks
      .request(opts.name, { ifAvailable: true }, hold)
      .then(() => {
        if (this.leader || this.closed) return
        // Another tab leads: follow it, and queue to take over when its tab closes.
        this.post({ type: 'hello' })
        setTimeout(() => this.resolveReady(), opts.readyTimeout ?? 3000)
        void locks.request(opts.name, {}, hold).catch(() => undefined)
      })
      .catch(() => this.becomeLeader())
  }

  /** True while this tab runs the sync. */
  get isLeader(): boolean {
    return this.leader !== undefined
  }

  get isLocalOnly(): boolean {
    return this.leader?.isLocalOnly ?? this.localOnly
  }

  get contexts(): Contexts {
    return this.leader ? this.leader.contexts : this.merged
  }

  frontier(context: string): number {
    if (this.leader) return this.leader.frontier(context)
    return effective(context, this.merged, this.opts.parentOf) ?? 0
  }

  markRead(context: string, timestamp: number): void {
    if (this.closed) return
    if (this.leader) {
      this.leader.markRead(context, timestamp)
      return
    }
    if ((this.own[context] ?? 0) >= timestamp) return
    this.own[context] = timestamp
    this.remerge()
    this.post({ type: 'mark', context, timestamp })
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  flush(): Promise<void> {
    if (this.leader) return this.leader.flush()
    this.post({ type: 'flush' })
    return Promise.resolve()
  }

  setLocalOnly(localOnly: boolean): Promise<void> {
    this.localOnly = localOnly
    if (this.leader) return this.leader.setLocalOnly(localOnly)
    this.post({ type: 'local-only', localOnly })
    return Promise.resolve()
  }

  setRelays(relays: ReadStateRelays): Promise<void> {
    this.relays = relays
    if (this.leader) return this.leader.setRelays(relays)
    this.post({ type: 'relays', relays })
    return Promise.resolve()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.offLeader?.()
    try {
      await this.leader?.close()
    } finally {
      this.release?.()
      this.channel?.close()
      this.resolveReady()
    }
  }

  private becomeLeader(): void {
    if (this.leader || this.closed) return
    const leader = this.opts.lead()
    this.leader = leader
    if (leader.isLocalOnly !== this.localOnly) void leader.setLocalOnly(this.localOnly)
    if (this.relays) void leader.setRelays(this.relays)
    // Marks made while following, which the old leader may not have published.
    for (const [context, timestamp] of Object.entries(this.own)) leader.markRead(context, timestamp)
    this.own = {}
    this.offLeader = leader.subscribe(() => {
      this.broadcastState()
      this.emit()
    })
    void leader.ready.then(() => {
      this.resolveReady()
      this.broadcastState()
      this.emit()
    })
  }

  private receive(msg: Message): void {
    if (this.closed || typeof msg !== 'object' || msg === null) return
    const leader = this.leader
    switch (msg.type) {
      case 'hello':
        if (leader) this.broadcastState()
        break
      case 'state':
        if (leader) break
        this.remote = msg.contexts
        this.localOnly = msg.localOnly
        // Marks the leader now holds need not be kept here.
        for (const [c, ts] of Object.entries(this.own)) if ((this.remote[c] ?? 0) >= ts) delete this.own[c]
        this.remerge()
        this.resolveReady()
        break
      case 'mark':
        try {
          leader?.markRead(msg.context, msg.timestamp)
        } catch {
          // a bad context from another tab: nothing to mark
        }
        break
      case 'flush':
        void leader?.flush()
        break
      case 'local-only':
        this.localOnly = msg.localOnly
        if (leader) void leader.setLocalOnly(msg.localOnly)
        break
      case 'relays':
        this.relays = msg.relays
        if (leader) void leader.setRelays(msg.relays)
        break
    }
  }

  private broadcastState(): void {
    if (!this.leader) return
    this.post({ type: 'state', contexts: { ...this.leader.contexts }, localOnly: this.leader.isLocalOnly })
  }

  private remerge(): void {
    this.merged = mergeContexts(this.remote, this.own)
    this.emit()
  }

  private post(msg: Message): void {
    try {
      this.channel?.postMessage(msg)
    } catch {
      // a closed channel (the tab is going away)
    }
  }

  private emit(): void {
    for (const l of this.listeners) l()
  }
}
