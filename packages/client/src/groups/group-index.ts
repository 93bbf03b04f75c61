import { type GroupKey, KINDS, type Membership } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from '../pool'
import type { Signer } from '../signers'
import type { EventStore } from '../store'
import type { Group } from './group'
import type { GroupContext } from './group-context'
import { GroupCore } from './group-core'
import { MembershipMemory } from './membership-memory'
import type { RelayKeys } from './relay-keys'
import { GroupSubscriptions } from './subscriptions'
import type { ReadStateSource } from './types'

/** What the index needs from the registry. */
export interface GroupIndexOptions {
  readonly pool: RelayPool
  readonly store: EventStore
  readonly signer: Signer
  readonly readState?: ReadStateSource
  readonly clock: () => number
  readonly publishTimeout?: number
  /** Newest timeline events loaded per group from the store (default 50). */
  readonly initialLimit?: number
  readonly relayKeys: RelayKeys
}

/**
 * The groups a registry holds, by key string: each made with the context every group shares,
 * filled from the store (its state, its newest page and the membership the last session folded),
 * subscribed (`subscriptions.ts`), and dropped with its cache. Keeps the list a UI reads (the same
 * array until a group comes or goes) and tells its listeners when it changes.
 */
export class GroupIndex {
  private readonly cores = new Map<string, GroupCore>()
  private ordered: readonly Group[] = Object.freeze([])
  private readonly listeners = new Set<() => void>()
  private context: GroupContext | undefined
  readonly memberships: MembershipMemory
  readonly subscriptions: GroupSubscriptions
  /** Our pubkey, once the signer told it. */
  me = ''
  closed = false

  constructor(private readonly opts: GroupIndexOptions) {
    this.memberships = new MembershipMemory(opts.store)
    this.subscriptions = new GroupSubscriptions({
      pool: opts.pool,
      store: opts.store,
      me: () => this.me,
      relayKey: (relay) => opts.relayKeys.resolve(relay),
      core: (key) => this.cores.get(key),
      closed: () => this.closed,
    })
  }

  /** Every group, in list order. */
  groups(): readonly Group[] {
    return this.ordered
  }
  get(key: string): GroupCore | undefined {
    return this.cores.get(key)
  }
  all(): GroupCore[] {
    return [...this.cores.values()]
  }

  /** Called whenever the set of groups changes; returns the unsubscribe function. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** The set of groups changed: a new list, and every listener told. */
  notify(): void {
    this.ordered = Object.freeze(this.all().map((core) => core.group))
    for (const l of [...this.listeners]) l()
  }

  /**
   * The listed groups at start: every group's first page in one read (a cold start's main cost)
   * and each group's state, then their subscriptions on the next task, so that what the cache
   * holds is shown first.
   */
  async load(listed: readonly GroupKey[]): Promise<void> {
    const { store } = this.opts
    const forks = listed.map((k) => k.toString())
    const [pages, states] = await Promise.all([
      store.newestPerFork(forks, this.opts.initialLimit ?? 50),
      store.statePerFork(forks),
    ])
    for (const key of listed) {
      const fork = key.toString()
      if (!this.cores.has(fork)) this.fill(this.make(key), states.get(fork) ?? [], pages.get(fork) ?? [])
    }
    this.notify()
    if (this.closed) return
    // A group joined or dropped meanwhile is left to that path.
    const opening = this.all()
    setTimeout(() => {
      if (this.closed) return
      for (const group of opening) if (this.cores.get(group.key.toString()) === group) void this.open(group)
    }, 0)
  }

  /** Groups a list from another device names that we do not hold yet: added and opened. */
  async adopt(keys: readonly GroupKey[]): Promise<void> {
    const added = keys.filter((k) => !this.cores.has(k.toString()))
    for (const key of added) await this.add(key)
    if (added.length) this.notify()
    for (const key of added) {
      const g = this.cores.get(key.toString())
      if (g) void this.open(g)
    }
  }

  /** The group for a key, made and filled from the store unless held (`relayKey`: an naddr's hint). */
  async add(key: GroupKey, relayKey?: string): Promise<GroupCore> {
    const existing = this.cores.get(key.toString())
    if (existing) return existing
    if (relayKey) this.opts.relayKeys.hint(key.relay, relayKey)
    const group = this.make(key)
    const { store } = this.opts
    // The first snapshot needs the state that renders (39000–39003), the newest page, and the
    // membership, which the last session remembered (its 9000 may be far older than the page).
    const [state, timeline] = await Promise.all([
      Promise.all(
        [KINDS.metadata, KINDS.admins, KINDS.members, KINDS.roles].map((k) =>
          store.getState(key.relay, k, key.id.value),
        ),
      ),
      store.query({ fork: key.toString(), limit: this.opts.initialLimit ?? 50 }),
    ])
    this.fill(group, state, timeline)
    return group
  }

  /** Opens (or reopens) a group's standing subscription. */
  open(group: GroupCore): Promise<void> {
    return this.subscriptions.open(group)
  }

  /** Drops a group here: its subscription, its core, its cache and its remembered membership. */
  async forget(key: GroupKey): Promise<void> {
    const group = this.cores.get(key.toString())
    if (!group) return
    this.subscriptions.drop(key)
    await group.flushStore()
    group.discard()
    this.cores.delete(key.toString())
    this.notify()
    await this.opts.store.deleteFork(key.toString())
    await this.memberships.forget(key.toString())
  }

  /** Closes every subscription and group, writing what is pending. */
  async close(): Promise<void> {
    this.closed = true
    this.subscriptions.close()
    await Promise.all(this.all().map((g) => g.close()))
    await this.memberships.flush()
  }

  private make(key: GroupKey): GroupCore {
    const group = new GroupCore(key, this.groupContext())
    this.cores.set(key.toString(), group)
    return group
  }

  /** What every group needs from the registry: one object for all of them (per account key). */
  private groupContext(): GroupContext {
    if (this.context?.me === this.me) return this.context
    const { relayKeys } = this.opts
    this.context = {
      pool: this.opts.pool,
      store: this.opts.store,
      signer: this.opts.signer,
      me: this.me,
      clock: this.opts.clock,
      readState: this.opts.readState,
      publishTimeout: this.opts.publishTimeout,
      relayKey: (relay) => relayKeys.known(relay),
      pinRelayKey: (relay, pubkey) => relayKeys.pin(relay, pubkey),
      relayKeyPinned: (relay) => relayKeys.isPinned(relay),
      onMembership: (k, m) => this.remember(k, m),
    }
    return this.context
  }

  /** Folds a group's cached state and newest page in, and the membership the last session folded. */
  private fill(
    group: GroupCore,
    state: readonly (NostrEvent | undefined)[],
    page: readonly NostrEvent[],
  ): void {
    for (const e of state) if (e) group.ingest(e, { fromStore: true })
    group.ingestStored(page)
    const remembered = this.memberships.get(group.key.toString())
    if (remembered) group.rememberMembership(remembered)
  }

  private remember(key: string, membership: Membership): void {
    if (this.cores.has(key)) this.memberships.remember(key, membership)
  }
}
