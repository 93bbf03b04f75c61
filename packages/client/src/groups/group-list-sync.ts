import { GroupKey, GroupList, type GroupListEntry, KINDS, normalizeRelayUrl } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from '../pool'
import type { Signer } from '../signers'
import type { EventStore } from '../store'
import { PrivateListCrypto } from './list-crypto'
import {
  groupKeys,
  groupTagKey,
  LIST_RACE_SECONDS,
  type ListEdit,
  listOf,
  mergeGroupTags,
  parseListOrEmpty,
  sameGroups,
} from './list-merge'

const SYNC_STATE = 'roost:groups:list-sync'

interface SyncState {
  /** The groups of the last list this device synced (a relay took it, or we merged it). */
  base: string[]
  /** Our last edit per group (recent or not yet at a relay). */
  edits: Record<string, ListEdit>
  /** Our newest list is not at any relay yet. */
  dirty: boolean
}

/** What the list sync needs from the registry. */
export interface GroupListSyncContext {
  readonly pool: Pick<RelayPool, 'subscribe' | 'publish'>
  readonly store: EventStore
  readonly signer: Signer
  readonly clock: () => number
  /** The account's relays for its 10009: fetched from `read`, published to `write`. */
  relays(): { readonly read: readonly string[]; readonly write: readonly string[] }
  /** Opens groups a list from another device added. */
  adopt(keys: readonly GroupKey[]): Promise<void>
  /** Drops groups another device removed from the list. */
  drop(keys: readonly GroupKey[]): Promise<void>
}

/**
 * The account's kind 10009 list: loaded from the store, followed on the account's relays, edited
 * losslessly (decision 9) and published after each edit. A list from another device is merged
 * three ways against the last list this device synced (decision 13, `list-merge.ts`), in the
 * public tags and in the NIP-44 private part alike. Edits and merges run one at a time.
 */
export class GroupListSync {
  private current: GroupList = GroupList.empty()
  private event: NostrEvent | undefined
  /** The decrypted private tags of `current`; `undefined` when there are none or they do not open. */
  private privateTags: string[][] | undefined
  private base = new Set<string>()
  private edits: Record<string, ListEdit> = {}
  /** `created_at` of the newest list a relay holds as far as we know (ours accepted, or received). */
  private syncedAt = 0
  /** Our newest list did not reach any relay yet (offline, or no relays): sent with the next merge. */
  private dirty = false
  private subs: { close(): void }[] = []
  private queue: Promise<unknown> = Promise.resolve()
  private me = ''
  private closed = false

  private readonly crypto: PrivateListCrypto

  constructor(private readonly ctx: GroupListSyncContext) {
    this.crypto = new PrivateListCrypto(ctx.signer, () => this.me)
  }

  /** The list as held now. */
  get list(): GroupList {
    return this.current
  }

  /** Every group listed, public entries first, then the private ones. */
  keys(): GroupKey[] {
    const out = this.current.keys()
    const seen = new Set(out.map(String))
    for (const t of this.privateTags ?? []) {
      const k = groupTagKey(t)
      if (k !== undefined && !seen.has(k)) {
        seen.add(k)
        out.push(GroupKey.parse(k))
      }
    }
    return out
  }

  /** Loads the stored list and what this device last synced. */
  async load(me: string): Promise<void> {
    this.me = me
    const [state, lists] = await Promise.all([
      this.ctx.store.getValue<SyncState>(SYNC_STATE).catch(() => undefined),
      this.ctx.store.query({ kinds: [KINDS.groupList], authors: [me], limit: 1 }),
    ])
    const stored = lists[0]
    if (stored) {
      this.event = stored
      this.current = parseListOrEmpty(stored)
      this.privateTags = await this.crypto.decrypt(this.current.content)
    }
    if (state && Array.isArray(state.base) && typeof state.edits === 'object') {
      this.base = new Set(state.base)
      this.edits = { ...state.edits }
      this.dirty = state.dirty === true
    } else this.base = this.allKeys(this.current, this.privateTags)
    if (!this.dirty && this.event) this.syncedAt = this.event.created_at
  }

  private allKeys(list: GroupList, privateTags: readonly string[][] | undefined): Set<string> {
    const out = groupKeys(list.tags)
    for (const k of groupKeys(privateTags ?? [])) out.add(k)
    return out
  }

  /** Follows the list on the account's relays (read ∪ write); again from scratch on a relay change. */
  watch(): void {
    for (const s of this.subs.splice(0)) s.close()
    if (this.closed) return
    const { read, write } = this.ctx.relays()
    const relays = [...new Set([...read, ...write])]
    const filter = { kinds: [KINDS.groupList], authors: [this.me], limit: 1 }
    this.subs = relays.map((relay) =>
      this.ctx.pool.subscribe(relay, [filter], {
        onevent: (e) => void this.receive(e),
        // connected again, and the relay holds nothing newer: send what we edited meanwhile
        oneose: () =>
          void this.serialize(async () => (this.dirty && !this.closed ? this.publish() : undefined)),
      }),
    )
  }

  /**
   * A list from a relay. One older than the list we hold is stale and ignored; otherwise it is
   * merged three ways, the groups it adds are opened, the ones it removes are dropped, and when
   * the merge kept something it lacked, the merged list is published.
   */
  receive(event: NostrEvent): Promise<unknown> {
    return this.serialize(async () => {
      if (event.kind !== KINDS.groupList || event.pubkey !== this.me || this.closed) return
      if (event.id === this.event?.id) {
        // our own list, back from a relay
        if (this.dirty) await this.confirmed(event.created_at)
        return
      }
      if (event.created_at < this.syncedAt) {
        if (this.dirty) await this.publish() // a relay that missed our edits: send them again
        return
      }
      const remote = parseListOrEmpty(event)
      const edits = this.liveEdits()
      const tags = mergeGroupTags(this.base, this.current.tags, remote.tags, remote.createdAt, edits, {
        relayTags: true,
      })
      const remotePrivate = await this.crypto.decrypt(remote.content)
      let content = remote.content
      let privateTags = remotePrivate
      if (remotePrivate !== undefined || (remote.content === '' && this.privateTags !== undefined)) {
        const merged = mergeGroupTags(
          this.base,
          this.privateTags ?? [],
          remotePrivate ?? [],
          remote.createdAt,
          edits,
        )
        if (!sameGroups(merged, remotePrivate ?? []))
          content = await this.crypto.encrypt(merged, remote.content)
        privateTags = merged
      }
      const before = new Set(this.keys().map(String))
      const merged = listOf(tags, content, remote.createdAt)
      if (!this.event || event.created_at >= this.event.created_at) this.event = event
      this.syncedAt = Math.max(this.syncedAt, event.created_at)
      await this.ctx.store.add(event)
      this.current = merged
      this.privateTags = privateTags
      this.base = this.allKeys(merged, privateTags)
      await this.saveState()
      const after = this.keys()
      const gone = [...before].filter((k) => !this.base.has(k)).map((k) => GroupKey.parse(k))
      if (gone.length) await this.ctx.drop(gone)
      await this.ctx.adopt(after)
      // We kept what the other device's list lacks: publish the merge so every device has it.
      if (this.dirty || !sameGroups(tags, remote.tags as string[][]) || content !== remote.content)
        await this.publish()
    })
  }

  /** Our edits that can still matter: not yet at a relay, or within the race window. */
  private liveEdits(): Record<string, ListEdit> {
    const horizon = this.ctx.clock() - 2 * LIST_RACE_SECONDS
    this.edits = Object.fromEntries(
      Object.entries(this.edits).filter(([, e]) => !e.synced || e.at >= horizon),
    )
    return this.edits
  }

  /** A relay holds our list created at `createdAt`: it and the edits it carries are synced. */
  private async confirmed(createdAt: number): Promise<void> {
    this.dirty = false
    this.syncedAt = Math.max(this.syncedAt, createdAt)
    this.base = this.allKeys(this.current, this.privateTags)
    // the race window runs from when the edit reached a relay, not from when it was made offline
    for (const [k, e] of Object.entries(this.edits))
      if (!e.synced) this.edits[k] = { op: e.op, at: Math.max(e.at, createdAt), synced: true }
    await this.saveState()
  }

  private saveState(): Promise<void> {
    const state: SyncState = { base: [...this.base], edits: this.liveEdits(), dirty: this.dirty }
    return this.ctx.store.setValue(SYNC_STATE, state).catch(() => {})
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => {})
    return run
  }

  /** Signs and publishes the list (best effort); it is stored locally even when publishing fails. */
  private async publish(): Promise<void> {
    const createdAt = Math.max(this.ctx.clock(), (this.event?.created_at ?? 0) + 1)
    const event = await this.ctx.signer.signEvent(this.current.toTemplate(createdAt))
    this.event = event
    this.dirty = true
    await this.ctx.store.add(event)
    await this.saveState()
    const { write } = this.ctx.relays()
    if (write.length === 0) return
    const results = await this.ctx.pool.publish([...write], event)
    if (results.some((r) => r.ok) && this.event === event) await this.confirmed(event.created_at)
  }

  /** Sends the list we hold to relays that were just added. */
  async republish(relays: readonly string[]): Promise<void> {
    await this.queue
    if (this.event && relays.length) await this.ctx.pool.publish([...relays], this.event)
  }

  /** Lists a group (or renames its entry) and publishes the list when it changed. */
  upsert(key: GroupKey, name: string | undefined): Promise<void> {
    return this.serialize(async () => {
      const k = key.toString()
      const already = this.current.entries.find(
        (e) => e.id === key.id.value && normalizeRelayUrl(e.relay) === key.relay,
      )
      const isPrivate = !already && this.privateTags?.some((t) => groupTagKey(t) === k)
      if (isPrivate || (already && (!name || (already.name ?? '') === name))) return
      if (!already) this.edits[k] = { op: 'add', at: this.ctx.clock(), synced: false }
      const entry: GroupListEntry = { id: key.id.value, relay: key.relay }
      if (name) entry.name = name
      this.current = this.current.upsert(entry)
      await this.publish()
    })
  }

  /** Removes a group's entries (public and private) and publishes the list. */
  remove(key: GroupKey): Promise<void> {
    return this.serialize(async () => {
      const k = key.toString()
      this.edits[k] = { op: 'remove', at: this.ctx.clock(), synced: false }
      let list = this.current.remove(key)
      if (this.privateTags?.some((t) => groupTagKey(t) === k)) {
        const rest = this.privateTags.filter((t) => groupTagKey(t) !== k)
        const content = await this.crypto.encrypt(rest, '')
        if (content !== '') {
          this.privateTags = rest
          list = listOf(
            list.tags.map((t) => [...t]),
            content,
            list.createdAt,
          )
        }
      }
      this.current = list
      await this.publish()
    })
  }

  /** Resolves when the list work queued so far is done. */
  async idle(): Promise<void> {
    let seen: Promise<unknown> | undefined
    while (seen !== this.queue) {
      seen = this.queue
      await seen
    }
  }

  /** Stops following the list and waits for queued work. */
  async close(): Promise<void> {
    this.closed = true
    for (const s of this.subs.splice(0)) s.close()
    await this.queue.catch(() => {})
  }
}
