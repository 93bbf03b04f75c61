import {
  GroupKey,
  type GroupList,
  type GroupMetadata,
  type GroupMetadataFields,
  GroupReference,
  RelayUrlCache,
} from '@roost/nip29'
import { ClosedError, UnknownGroupError } from '../errors'
import type { RelayPool } from '../pool'
import { parseRelays, type RelaysOption, type UserRelays } from '../relays'
import type { Signer } from '../signers'
import type { EventStore } from '../store'
import { browseRelay } from './browse'
import { ForkWatch } from './fork-watch'
import type { Group } from './group'
import { GroupIndex } from './group-index'
import { GroupListSync } from './group-list-sync'
import { createGroup, type JoinContext, joinGroup, leaveGroup } from './join'
import { RelayKeys } from './relay-keys'
import { type SearchHit, type SearchOptions, searchGroups } from './search'
import type { ReadStateSource } from './types'

/** What a {@link GroupsRegistry} is built from; `createRoost` builds one and passes these. */
export interface GroupsRegistryOptions {
  /** The connections to the groups' relays. */
  pool: RelayPool
  /** Where the groups' events are kept across restarts. */
  store: EventStore
  /** The account that reads and writes. */
  signer: Signer
  /** The account's relays for its own 10009: one list, or NIP-65 `{ read, write }`. */
  relays?: RelaysOption
  /** Where read marks come from (the NIP-RS sync); without it, unread counts are 0. */
  readState?: ReadStateSource
  /** Unix seconds (default the system clock). */
  clock?: () => number
  /** Newest timeline events loaded per group from the store on start (default 50; older ones page in with loadOlder). */
  initialLimit?: number
  /** Publish deadline in ms (default the pool's). */
  publishTimeout?: number
}

/**
 * The account's NIP-29 groups: one {@link Group} per `GroupKey` (the same id on two relays is two
 * groups), loaded from the local store first and then kept live with one standing REQ per group,
 * routed by subscription id. It owns the account's kind 10009 list: join upserts an entry, leave
 * removes one, a newer list from another device is merged, and every edit is lossless. The parts:
 * `group-index.ts` (the groups held, filled from the store), `subscriptions.ts` (REQs and
 * routing), `join.ts` (join, leave, create), `group-list-sync.ts` (the 10009), `relay-keys.ts`.
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
  private readonly index: GroupIndex
  private readonly relayKeys: RelayKeys
  private readonly lists: GroupListSync
  private readonly access: JoinContext
  private readonly clock: () => number
  private relays: UserRelays
  /** Relay URLs this registry normalized, so each is parsed once. */
  private readonly urls = new RelayUrlCache()
  /** Called whenever the set of groups changes; returns the unsubscribe function. */
  readonly subscribe: (listener: () => void) => () => void

  /** @internal The registry is made by `createRoost`: use `roost.groups`. */
  constructor(private readonly opts: GroupsRegistryOptions) {
    this.clock = opts.clock ?? (() => Math.floor(Date.now() / 1000))
    this.relayKeys = new RelayKeys(opts.store, opts.pool, this.urls, (relay) => {
      for (const g of this.index.all()) if (g.key.relay === relay) g.relayKeyChanged()
    })
    this.index = new GroupIndex({ ...opts, clock: this.clock, relayKeys: this.relayKeys })
    this.subscribe = this.index.subscribe
    this.relays = parseRelays(opts.relays)
    this.lists = new GroupListSync({
      pool: opts.pool,
      store: opts.store,
      signer: opts.signer,
      clock: this.clock,
      relays: () => this.relays,
      adopt: (keys) => this.index.adopt(keys),
      drop: async (keys) => {
        for (const key of keys) await this.index.forget(key)
      },
    })
    const { pool, signer, publishTimeout } = opts
    const { clock, relayKeys, index, lists } = this
    this.access = { pool, signer, clock, publishTimeout, relayKeys, index, lists }
    this.ready = this.load()
  }

  private async load(): Promise<void> {
    const me = await this.opts.signer.getPublicKey()
    this.index.me = me
    await Promise.all([this.relayKeys.load(), this.lists.load(me), this.index.memberships.load()])
    await this.index.load(this.lists.keys())
    if (!this.index.closed) this.lists.watch()
  }

  // ── reading ────────────────────────────────────────────────────────────────────────────────

  /** Every group, in list order; the same array until one is added or removed. */
  groups(): readonly Group[] {
    return this.index.groups()
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

  /** The relay key in use for a relay (NIP-11 `self ?? pubkey`, naddr pubkey, or pinned). */
  relayKey(relay: string): string | undefined {
    return this.relayKeys.get(relay)
  }

  /**
   * The parent of a read-state context (NIP-RS): `thread:<root>` and `msg:<id>` → the key string
   * of the group holding that event (decision 15). Pass it as ReadStateSync's `parentOf`.
   */
  readonly parentOf = (ctx: string): string | undefined => {
    for (const g of this.index.all()) {
      const parent = g.reads.contextParent(ctx)
      if (parent !== undefined) return parent
    }
    return undefined
  }

  /** The subscription id that routes to a group (`grp-<8 hex>`). */
  subscriptionId(key: GroupKey | string): string | undefined {
    return this.index.subscriptions.id(key)
  }

  /** The account's relays in use (normalized). */
  accountRelays(): UserRelays {
    return this.relays
  }

  // ── join, leave, create (join.ts) ──────────────────────────────────────────────────────────

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
    if (this.index.closed) throw new ClosedError('GroupsRegistry')
    const ref = typeof reference === 'string' ? GroupReference.parse(reference) : reference
    return (await joinGroup(this.access, ref, opts.code)).group
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
    await leaveGroup(this.access, group)
  }

  /**
   * Drops a group on this device and from the 10009 without asking the relay: for a group that no
   * longer exists (deleted with a 9008), where a 9022 would only be refused.
   * @example await club.admin.deleteGroup(); await roost.groups.remove(club.key)
   */
  async remove(keyish: GroupKey | string): Promise<void> {
    await this.ready
    const key = typeof keyish === 'string' ? GroupKey.parse(keyish) : keyish
    if (!this.index.get(key.toString())) throw new UnknownGroupError(key.toString())
    await this.index.forget(key)
    await this.lists.remove(key)
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
    const key = await createGroup(this.access, relay, fields)
    return this.join(key.toString())
  }

  // ── relays, forks, browsing, search ────────────────────────────────────────────────────────

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
    if (this.index.closed) return
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

  /**
   * Lists a relay's public groups (relay browsing): its 39000s signed by the relay key, newest
   * first, parsed; malformed ones are skipped. Without a NIP-11 key, the author of the first 39000
   * seen is pinned as the relay key and only its groups are listed (their snapshots say
   * `unverified`). Closed or private groups may be left out by the relay.
   *
   * @example
   * for (const meta of await roost.groups.browse('wss://groups.example.com')) console.log(meta.id, meta.name)
   */
  browse(relay: string, opts: { limit?: number; timeout?: number } = {}): Promise<GroupMetadata[]> {
    return browseRelay({ pool: this.opts.pool, relayKeys: this.relayKeys }, this.urls.normalize(relay), opts)
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
    return searchGroups({ store: this.opts.store, pool: this.opts.pool }, this.index.all(), text, opts)
  }

  /**
   * Resolves when the work queued so far is done: merges of lists from other devices, publishes of
   * ours, and every group's received events written to the store (in 16 ms batches). Useful before
   * shutting down or reading the store directly, and in tests.
   */
  async idle(): Promise<void> {
    await this.ready
    await Promise.all([this.lists.idle(), ...this.index.all().map((g) => g.flushStore())])
  }

  /** Writes what is pending, closes every subscription. The pool is not closed here. */
  async close(): Promise<void> {
    this.index.closed = true
    await this.ready.catch(() => {})
    await this.index.close()
    await this.lists.close()
  }
}
