import {
  GroupKey,
  type GroupList,
  GroupMetadata,
  type GroupMetadataFields,
  GroupReference,
  KINDS,
  type Membership,
  membershipAfterReply,
  RelayUrlCache,
} from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { ClosedError, UnknownGroupError } from '../errors'
import { groupSubscriptionId, type RelayPool } from '../pool'
import { parseRelays, type RelaysOption, type UserRelays } from '../relays'
import type { Signer } from '../signers'
import type { EventStore } from '../store'
import { ForkWatch } from './fork-watch'
import type { Group } from './group'
import type { GroupContext } from './group-context'
import { GroupCore } from './group-core'
import { GroupListSync } from './group-list-sync'
import { publishError } from './publish-errors'
import { RelayKeys } from './relay-keys'
import { type SearchHit, type SearchOptions, searchGroups } from './search'
import type { ReadStateSource } from './types'

export interface GroupsRegistryOptions {
  pool: RelayPool
  store: EventStore
  signer: Signer
  /** The account's relays for its own 10009: one list, or NIP-65 `{ read, write }`. */
  relays?: RelaysOption
  readState?: ReadStateSource
  /** Unix seconds (default the system clock). */
  clock?: () => number
  /** Newest timeline events loaded per group from the store on start (default 50; older ones page in with loadOlder). */
  initialLimit?: number
  /** Publish deadline in ms (default the pool's). */
  publishTimeout?: number
}

const MEMBERSHIP = 'roost:groups:membership'

/**
 * The account's NIP-29 groups: one {@link Group} per `GroupKey` (the same id on two relays is two
 * groups), loaded from the local store first and then kept live with one standing REQ per group,
 * routed by subscription id. It owns the account's kind 10009 list: join upserts an entry, leave
 * removes one, a newer list from another device is union-merged, and every edit is lossless.
 *
 * @example
 * const { groups } = createRoost({ signer, relays: ['wss://relay.example.com'] })
 * await groups.ready                       // every listed group and its cached timeline
 * const group = await groups.join('naddr1…?invite=abc')
 * group.snapshot().membership              // { status: 'pending', since } or { status: 'member' }
 * await groups.leave(group.key)
 */
export class GroupsRegistry {
  /** Resolves once the stored list, relay keys and every group's cached timeline are loaded. */
  readonly ready: Promise<void>
  /** Each group's core by key string: the registry drives it, a UI holds its `group`. */
  private readonly index = new Map<string, GroupCore>()
  private ordered: readonly Group[] = Object.freeze([])
  /** subscription id → group key string */
  private readonly routes = new Map<string, string>()
  private readonly subs = new Map<string, { close(): void }>()
  private readonly relayKeys: RelayKeys
  private readonly lists: GroupListSync
  private memberships: Record<string, Membership> = {}
  private context: GroupContext | undefined
  private membershipTimer: ReturnType<typeof setTimeout> | undefined
  private readonly listeners = new Set<() => void>()
  private me = ''
  private closed = false
  private readonly clock: () => number
  private relays: UserRelays
  /** Relay URLs this registry normalized, so each is parsed once. */
  private readonly urls = new RelayUrlCache()

  constructor(private readonly opts: GroupsRegistryOptions) {
    this.clock = opts.clock ?? (() => Math.floor(Date.now() / 1000))
    this.relayKeys = new RelayKeys(opts.store, opts.pool, this.urls, (relay) => {
      for (const g of this.index.values()) if (g.key.relay === relay) g.relayKeyChanged()
    })
    this.relays = parseRelays(opts.relays)
    this.lists = new GroupListSync({
      pool: opts.pool,
      store: opts.store,
      signer: opts.signer,
      clock: this.clock,
      relays: () => this.relays,
      adopt: (keys) => this.adopt(keys),
      drop: (keys) => this.dropAll(keys),
    })
    this.ready = this.load()
  }

  // ── reading ────────────────────────────────────────────────────────────────────────────────

  /** Every group, in list order; the same array until one is added or removed. */
  groups(): readonly Group[] {
    return this.ordered
  }

  /** The group for a key (a `GroupKey` or its string), if held. */
  group(key: GroupKey | string): Group | undefined {
    if (typeof key !== 'string') return this.index.get(key.toString())?.group
    // a key string as snapshots spell it is found as is; any other spelling is parsed
    return (this.index.get(key) ?? this.index.get(GroupKey.parse(key).toString()))?.group
  }

  /** The account's current group list (10009). */
  groupList(): GroupList {
    return this.lists.list
  }

  /** Called whenever the set of groups changes; returns the unsubscribe function. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** The relay key in use for a relay (NIP-11 `self ?? pubkey`, naddr pubkey, or pinned). */
  relayKey(relay: string): string | undefined {
    return this.relayKeys.get(relay)
  }

  /**
   * The parent of a read-state context (NIP-RS): `thread:<root>` and `msg:<id>` → the key string
   * of the group holding that event (decision 15). Pass it as ReadStateSync's `parentOf`.
   */
  readonly parentOf = (ctx: string): string | undefined => {
    for (const g of this.index.values()) {
      const parent = g.reads.contextParent(ctx)
      if (parent !== undefined) return parent
    }
    return undefined
  }

  /** The subscription id that routes to a group (`grp-<8 hex>`). */
  subscriptionId(key: GroupKey | string): string | undefined {
    const k = key.toString()
    for (const [id, v] of this.routes) if (v === k) return id
    return undefined
  }

  private notify(): void {
    this.ordered = Object.freeze([...this.index.values()].map((core) => core.group))
    for (const l of [...this.listeners]) l()
  }

  // ── start ──────────────────────────────────────────────────────────────────────────────────

  private async load(): Promise<void> {
    const { store, signer } = this.opts
    this.me = await signer.getPublicKey()
    const [, , memberships] = await Promise.all([
      this.relayKeys.load(),
      this.lists.load(this.me),
      store.getValue<Record<string, Membership>>(MEMBERSHIP),
    ])
    this.memberships = memberships ?? {}
    // Every group's first page in one read (a cold start's main cost), then each group's state.
    const listed = this.lists.keys()
    const forks = listed.map((k) => k.toString())
    const [pages, states] = await Promise.all([
      store.newestPerFork(forks, this.opts.initialLimit ?? 50),
      store.statePerFork(forks),
    ])
    for (const key of listed) {
      const fork = key.toString()
      if (!this.index.has(fork))
        this.fillGroup(this.createGroup(key), states.get(fork) ?? [], pages.get(fork) ?? [])
    }
    this.notify()
    if (this.closed) return
    // Each group's subscription (and its relay's NIP-11 request) starts on the next task, so what
    // the cache holds is shown first; a group joined or dropped meanwhile is left to that path.
    const opening = [...this.index.values()]
    setTimeout(() => {
      if (this.closed) return
      for (const group of opening) if (this.index.get(group.key.toString()) === group) void this.open(group)
    }, 0)
    this.lists.watch()
  }

  /** Groups a list from another device names that we do not hold yet: added and opened. */
  private async adopt(keys: readonly GroupKey[]): Promise<void> {
    const added = keys.filter((k) => !this.index.has(k.toString()))
    for (const key of added) await this.addGroup(key, { fromStore: false })
    if (added.length) this.notify()
    for (const key of added) {
      const g = this.index.get(key.toString())
      if (g) void this.open(g)
    }
  }

  /** Creates the Group entity and loads its cached state and newest timeline from the store. */
  private async addGroup(key: GroupKey, opts: { fromStore: boolean; relayKey?: string }): Promise<GroupCore> {
    const existing = this.index.get(key.toString())
    if (existing) return existing
    if (opts.relayKey) this.relayKeys.hint(key.relay, opts.relayKey)
    const group = this.createGroup(key)
    const { store } = this.opts
    const fork = key.toString()
    const limit = this.opts.initialLimit ?? 50
    // The first snapshot needs the state that renders (39000–39003), the newest page, and the
    // membership, which the last session remembered (its 9000 may be far older than the page).
    const [state, timeline] = await Promise.all([
      Promise.all(
        [KINDS.metadata, KINDS.admins, KINDS.members, KINDS.roles].map((k) =>
          store.getState(key.relay, k, key.id.value),
        ),
      ),
      store.query({ fork, limit }),
    ])
    this.fillGroup(group, state, timeline)
    return group
  }

  /** The group for a key, indexed (its cached state and timeline come with `fillGroup`). */
  private createGroup(key: GroupKey): GroupCore {
    const group = new GroupCore(key, this.groupContext())
    this.index.set(key.toString(), group)
    return group
  }

  /** What every group needs from the registry: one object for all of them (per account key). */
  private groupContext(): GroupContext {
    if (this.context?.me === this.me) return this.context
    this.context = {
      pool: this.opts.pool,
      store: this.opts.store,
      signer: this.opts.signer,
      me: this.me,
      clock: this.clock,
      readState: this.opts.readState,
      publishTimeout: this.opts.publishTimeout,
      relayKey: (relay) => this.relayKeys.known(relay),
      pinRelayKey: (relay, pubkey) => this.relayKeys.pin(relay, pubkey),
      relayKeyPinned: (relay) => this.relayKeys.isPinned(relay),
      onMembership: (k, m) => this.rememberMembership(k, m),
    }
    return this.context
  }

  /** Folds a group's cached state and newest page in, and the membership the last session folded. */
  private fillGroup(
    group: GroupCore,
    state: readonly (NostrEvent | undefined)[],
    page: readonly NostrEvent[],
  ): void {
    for (const e of state) if (e) group.ingest(e, { fromStore: true })
    group.ingestStored(page)
    const remembered = this.memberships[group.key.toString()]
    if (remembered) group.rememberMembership(remembered)
  }

  private rememberMembership(key: string, membership: Membership): void {
    if (!this.index.has(key)) return
    this.memberships[key] = membership
    this.membershipTimer ??= setTimeout(() => {
      this.membershipTimer = undefined
      void this.opts.store.setValue(MEMBERSHIP, this.memberships).catch(() => {})
    }, 50)
  }

  private async saveMemberships(): Promise<void> {
    if (this.membershipTimer) clearTimeout(this.membershipTimer)
    this.membershipTimer = undefined
    await this.opts.store.setValue(MEMBERSHIP, this.memberships).catch(() => {})
  }

  /** One standing REQ (timeline + state, one id), plus a one-shot membership and state fetch. */
  private async open(group: GroupCore): Promise<void> {
    const { pool } = this.opts
    const key = group.key
    const relayKey = await this.relayKeys.resolve(key.relay)
    if (this.closed || this.index.get(key.toString()) !== group) return
    const subId = this.routeFor(key)
    this.subs.get(subId)?.close()
    group.resubscribed()
    const openedAsMember = group.snapshot().membership.status === 'member'
    const filters = [key.id.timelineFilter(100), ...key.id.stateFilters(relayKey)]
    const sub = pool.subscribe(
      key.relay,
      filters,
      {
        onevent: (e) => this.route(subId, e),
        oneose: () => this.routeGroup(subId)?.eose(),
        onclosed: (reason) => {
          if (this.subs.get(subId) === sub) this.subs.delete(subId)
          const refused = this.routeGroup(subId)
          refused?.refuse(reason)
          // A private group refuses a REQ sent before we were a member. When our join was
          // accepted while that refusal was on its way, ask again, once: the new REQ goes out
          // as a member, so its own refusal (if any) does not loop.
          if (
            refused &&
            !openedAsMember &&
            refused.snapshot().membership.status === 'member' &&
            !this.closed
          ) {
            void this.open(refused).catch(() => {})
          }
        },
      },
      { id: subId },
    )
    this.subs.set(subId, sub)
    const once = await pool.fetch(
      [key.relay],
      [key.id.membershipFilter(this.me), ...key.id.stateFilters(relayKey)],
    )
    for (const e of once) this.route(subId, e)
  }

  /** The route id for a key: `grp-<8 hex>`, salted on the rare collision. */
  private routeFor(key: GroupKey): string {
    const k = key.toString()
    for (let salt = 0; ; salt++) {
      const id = groupSubscriptionId(k, salt)
      const taken = this.routes.get(id)
      if (taken === undefined || taken === k) {
        this.routes.set(id, k)
        return id
      }
    }
  }

  private routeGroup(subId: string): GroupCore | undefined {
    const k = this.routes.get(subId)
    return k === undefined ? undefined : this.index.get(k)
  }

  /** Routing by subscription id: the event goes to the group the id was issued for. */
  private route(subId: string, event: NostrEvent): void {
    this.routeGroup(subId)?.ingest(event)
  }

  // ── join, leave, create ────────────────────────────────────────────────────────────────────

  /**
   * Joins a group from an `naddr1…[?invite=code]` or group code: learns the relay key, fetches
   * the 39000 (a hidden group may not answer: we go on without it), subscribes, sends the 9021
   * (with the invite code) and waits for the relay's OK. The group is listed and published in
   * the 10009 whatever the relay says, with its access state in `membership`: `member`
   * (`duplicate:` or an immediate 9000), `pending` (OK, waiting for a 9000) or `refused` (the
   * relay's text). Throws only when the relay could not be reached or did not answer.
   * Joining a group already held re-sends the request (a retry, e.g. with `opts.code`).
   *
   * @example
   * const group = await roost.groups.join('naddr1…?invite=7f3a')
   * if (group.membership.status === 'refused') show(group.membership.reason)
   */
  async join(reference: GroupReference | string, opts: { code?: string } = {}): Promise<Group> {
    await this.ready
    if (this.closed) throw new ClosedError('GroupsRegistry')
    const ref = typeof reference === 'string' ? GroupReference.parse(reference) : reference
    const key = ref.key()
    const { pool, signer } = this.opts
    const relayKey = await this.relayKeys.resolve(key.relay, ref.relayKey)
    const group = await this.addGroup(key, { fromStore: false, relayKey })
    this.notify()
    const meta = await pool.fetch(
      [key.relay],
      [
        {
          kinds: [KINDS.metadata],
          '#d': [key.id.value],
          ...(relayKey ? { authors: [relayKey] } : {}),
          limit: 1,
        },
      ],
    )
    group.ingestMany(meta)
    const subId = this.subscriptionId(key)
    if (!subId || !this.subs.has(subId)) await this.open(group)
    const now = this.clock()
    const request = await signer.signEvent(
      key.id.joinRequest({ code: opts.code ?? ref.invite, createdAt: now }),
    )
    const [result] = await pool.publish([key.relay], request, { timeout: this.opts.publishTimeout })
    const membership = membershipAfterReply(
      KINDS.joinRequest,
      { ok: result!.ok, message: result!.message },
      now,
    )
    const answered = !result!.timedOut && result!.failure !== 'unreachable'
    if (result!.ok) group.ingest(request) // the relay's ring holds it: keep the window in step
    if (answered && membership) group.setLocalMembership(membership, now)
    await this.lists.upsert(key, group.state.metadata?.name)
    if (!answered) throw publishError(result!, this.opts.publishTimeout ?? pool.publishTimeout)
    // A private group refuses the REQ before we are a member: ask again now that we asked to join.
    if (result!.ok || result!.message.startsWith('duplicate:')) {
      if (group.subscription.refused !== undefined) await this.open(group)
    }
    return group.group
  }

  /**
   * Leaves a group: sends the 9022; on OK (or when we were not a member anyway) wipes the
   * group's cache, drops it, removes it from the 10009 and publishes the list. A member whose
   * leave the relay refuses or does not answer keeps the group, and the error is thrown.
   *
   * @example
   * await roost.groups.leave("wss://groups.example.com'general")
   */
  async leave(keyish: GroupKey | string): Promise<void> {
    await this.ready
    const key = typeof keyish === 'string' ? GroupKey.parse(keyish) : keyish
    const group = this.index.get(key.toString())
    if (!group) throw new UnknownGroupError(key.toString())
    const { pool, signer } = this.opts
    const wasMember = group.snapshot().membership.status === 'member'
    const now = this.clock()
    const request = await signer.signEvent(key.id.leaveRequest({ createdAt: now }))
    const [result] = await pool.publish([key.relay], request, { timeout: this.opts.publishTimeout })
    if (!result!.ok && wasMember) throw publishError(result!, this.opts.publishTimeout ?? pool.publishTimeout)
    await this.forget(key)
    await this.lists.remove(key)
  }

  /**
   * Drops a group on this device and from the 10009 without asking the relay: for a group that no
   * longer exists (deleted with a 9008), where a 9022 would only be refused.
   * @example await club.deleteGroup(); await roost.groups.remove(club.key)
   */
  async remove(keyish: GroupKey | string): Promise<void> {
    await this.ready
    const key = typeof keyish === 'string' ? GroupKey.parse(keyish) : keyish
    if (!this.index.has(key.toString())) throw new UnknownGroupError(key.toString())
    await this.forget(key)
    await this.lists.remove(key)
  }

  /** Drops a group here: its subscription, its entity and its cache (the list is edited apart). */
  private async forget(key: GroupKey): Promise<void> {
    const group = this.index.get(key.toString())
    if (!group) return
    const subId = this.subscriptionId(key)
    if (subId) {
      this.subs.get(subId)?.close()
      this.subs.delete(subId)
      this.routes.delete(subId)
    }
    await group.flushStore()
    group.discard()
    this.index.delete(key.toString())
    this.notify()
    await this.opts.store.deleteFork(key.toString())
    delete this.memberships[key.toString()]
    await this.saveMemberships()
  }

  /** Groups another device removed from the list (decision 13): dropped here too. */
  private async dropAll(keys: readonly GroupKey[]): Promise<void> {
    for (const key of keys) await this.forget(key)
  }

  /**
   * Switches the account's relays (Settings, or a NIP-65 list once known): the 10009 is followed
   * on the new read ∪ write relays at once, and the list we hold is published to write relays that
   * were not used before (resolves once that is done). Throws `InvalidRelaysError` for anything but
   * `string[]` or `{ read, write }`.
   *
   * @example
   * roost.groups.setRelays({ read: ['wss://in.example'], write: ['wss://out.example'] })
   */
  async setRelays(relays: RelaysOption): Promise<void> {
    const next = parseRelays(relays)
    const before = new Set(this.relays.write)
    this.relays = next
    await this.ready.catch(() => {})
    if (this.closed) return
    this.lists.watch()
    const added = next.write.filter((r) => !before.has(r))
    if (added.length) await this.lists.republish(added).catch(() => {})
  }

  /**
   * Watches the admins' kind 10009 lists for the same group id on other relays (fork and
   * migration detection), on the account's relays and the group's own. Close it when done.
   * @throws {UnknownGroupError} when the registry does not hold the group.
   * @example const watch = roost.groups.watchForks(group.key); watch.subscribe(showBanner)
   */
  watchForks(keyish: GroupKey | string): ForkWatch {
    const group = this.group(keyish)
    if (!group) throw new UnknownGroupError(String(keyish))
    return new ForkWatch({
      pool: this.opts.pool,
      group,
      relays: () => [...this.relays.read, ...this.relays.write],
    })
  }

  /** The account's relays in use (normalized). */
  accountRelays(): UserRelays {
    return this.relays
  }

  /**
   * Creates a group where the relay allows it: 9007 (a random `[a-z0-9]` id unless given), then
   * a 9002 with the full metadata (relays disagree on creation defaults), then joins it.
   *
   * @example
   * const group = await roost.groups.create('wss://groups.example.com', { name: 'Book club', closed: true })
   */
  async create(relay: string, fields: GroupMetadataFields & { id?: string } = {}): Promise<Group> {
    await this.ready
    const { id: wanted, ...metadata } = fields
    const id = wanted ?? randomId()
    const key = new GroupKey(relay, id)
    const { pool, signer } = this.opts
    const timeout = this.opts.publishTimeout ?? pool.publishTimeout
    const create = await signer.signEvent(key.id.createGroup({ createdAt: this.clock() }))
    const [created] = await pool.publish([key.relay], create, { timeout })
    if (!created!.ok) throw publishError(created!, timeout)
    const relayKey = await this.relayKeys.resolve(key.relay)
    const group = await this.addGroup(key, { fromStore: false, relayKey })
    this.notify()
    await this.open(group)
    // The 9002 goes through the group so that it carries fresh `previous` references.
    await group.refreshWindow()
    await group.group.admin.editMetadata({
      private: false,
      closed: false,
      restricted: false,
      hidden: false,
      ...metadata,
    })
    return this.join(key.toString())
  }

  /**
   * Lists a relay's public groups (relay browsing): its 39000s signed by the relay key, newest
   * first, parsed; malformed ones are skipped. Without a NIP-11 key, the author of the first 39000
   * seen is pinned as the relay key and only its groups are listed (their snapshots say `unverified`). Closed or private groups may be left out by the relay.
   *
   * @example
   * for (const meta of await roost.groups.browse('wss://groups.example.com')) console.log(meta.id, meta.name)
   */
  async browse(relay: string, opts: { limit?: number; timeout?: number } = {}): Promise<GroupMetadata[]> {
    const url = this.urls.normalize(relay)
    let key = await this.relayKeys.resolve(url)
    const events = await this.opts.pool.fetch(
      [url],
      [{ kinds: [KINDS.metadata], limit: opts.limit ?? 200, ...(key ? { authors: [key] } : {}) }],
      { timeout: opts.timeout },
    )
    if (!key) {
      // No NIP-11 key: pin the author of the first 39000 seen (decision 3), and list only its groups.
      const first = events.find((e) => e.kind === KINDS.metadata)
      if (!first) return []
      this.relayKeys.pin(url, first.pubkey)
      key = this.relayKeys.get(url)
    }
    const out: GroupMetadata[] = []
    const seen = new Set<string>()
    for (const e of [...events].sort((a, b) => b.created_at - a.created_at)) {
      if (e.pubkey !== key) continue
      try {
        const meta = GroupMetadata.parse(e)
        if (seen.has(meta.id)) continue
        seen.add(meta.id)
        out.push(meta)
      } catch {}
    }
    return out
  }

  /**
   * Searches the messages of every group of the account (see `Group.search`): the local cache,
   * and each group relay whose NIP-11 lists NIP-50; merged, de-duplicated, newest first, each hit
   * naming its group.
   *
   * @example
   * for (const hit of await roost.groups.search('release notes')) console.log(hit.group, hit.event.content)
   */
  search(text: string, opts?: SearchOptions): Promise<SearchHit[]> {
    return searchGroups(
      { store: this.opts.store, pool: this.opts.pool },
      [...this.index.values()],
      text,
      opts,
    )
  }

  /**
   * Resolves when the work queued so far is done: merges of lists from other devices, publishes of
   * ours, and every group's received events written to the store (in 16 ms batches). Useful before
   * shutting down or reading the store directly, and in tests.
   */
  async idle(): Promise<void> {
    await this.ready
    await Promise.all([this.lists.idle(), ...[...this.index.values()].map((g) => g.flushStore())])
  }

  /** Writes what is pending, closes every subscription. The pool is not closed here. */
  async close(): Promise<void> {
    this.closed = true
    await this.ready.catch(() => {})
    for (const s of this.subs.values()) s.close()
    this.subs.clear()
    await Promise.all([...this.index.values()].map((g) => g.close()))
    await this.lists.close()
    if (this.membershipTimer) await this.saveMemberships()
  }
}

/** 12 random characters from `[a-z0-9]`, the portable group id alphabet. */
function randomId(length = 12): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
  const bytes = new Uint8Array(length)
  globalThis.crypto.getRandomValues(bytes)
  let out = ''
  for (const b of bytes) out += alphabet[b % alphabet.length]
  return out
}
