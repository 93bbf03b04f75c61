import { type GroupKey, GroupList, type GroupListEntry, KINDS, normalizeRelayUrl } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from '../pool'
import type { Signer } from '../signers'
import type { EventStore } from '../store'

const LEFT = 'roost:groups:left'

/** What the list sync needs from the registry. */
export interface GroupListSyncContext {
  readonly pool: RelayPool
  readonly store: EventStore
  readonly signer: Signer
  readonly clock: () => number
  /** The account's relays for its 10009. */
  readonly relays: readonly string[]
  /** Opens groups a list from another device added. */
  adopt(keys: readonly GroupKey[]): Promise<void>
}

function safeParseList(event: NostrEvent): GroupList {
  try {
    return GroupList.parse(event)
  } catch {
    return GroupList.empty()
  }
}

/**
 * The account's kind 10009 list: loaded from the store, followed on the account's relays, edited
 * losslessly (decision 9) and published after each edit. Edits and merges run one at a time.
 */
export class GroupListSync {
  private current: GroupList = GroupList.empty()
  private event: NostrEvent | undefined
  private left: Record<string, number> = {}
  private sub: { close(): void } | undefined
  private queue: Promise<unknown> = Promise.resolve()
  private me = ''

  constructor(private readonly ctx: GroupListSyncContext) {}

  /** The list as held now. */
  get list(): GroupList {
    return this.current
  }

  /** Loads the stored list and the groups this device left. */
  async load(me: string): Promise<void> {
    this.me = me
    const [left, lists] = await Promise.all([
      this.ctx.store.getValue<Record<string, number>>(LEFT),
      this.ctx.store.query({ kinds: [KINDS.groupList], authors: [me], limit: 1 }),
    ])
    this.left = left ?? {}
    const stored = lists[0]
    if (stored) {
      this.event = stored
      this.current = this.withoutLeft(safeParseList(stored))
    }
  }

  /**
   * Drops the groups this device left. A list from another device may still name them (removals
   * cannot be seen in a union-merged replaceable list), and they must not come back here.
   */
  private withoutLeft(list: GroupList): GroupList {
    let out = list
    for (const key of list.keys()) if (this.left[key.toString()] !== undefined) out = out.remove(key)
    return out
  }

  /** Follows the list on the account's relays. */
  watch(): void {
    if (this.ctx.relays.length === 0) return
    const filter = { kinds: [KINDS.groupList], authors: [this.me], limit: 1 }
    const subs = this.ctx.relays.map((relay) =>
      this.ctx.pool.subscribe(relay, [filter], { onevent: (e) => void this.receive(e) }),
    )
    this.sub = {
      close: () => {
        for (const s of subs) s.close()
      },
    }
  }

  /** A list from a relay: if newer than ours, union-merge it and open the groups it adds. */
  receive(event: NostrEvent): Promise<unknown> {
    return this.serialize(async () => {
      if (event.kind !== KINDS.groupList || event.pubkey !== this.me) return
      if (this.event && (event.created_at < this.event.created_at || event.id === this.event.id)) return
      const incoming = this.withoutLeft(safeParseList(event))
      const merged = this.current.merge(incoming)
      const localOnly = merged.keys().some((k) => !incoming.has(k))
      this.event = event
      await this.ctx.store.add(event)
      this.current = merged
      await this.ctx.adopt(merged.keys())
      // The other device did not know some of ours: publish the union so no device loses them.
      if (localOnly) await this.publish()
    })
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
    await this.ctx.store.add(event)
    if (this.ctx.relays.length) await this.ctx.pool.publish([...this.ctx.relays], event)
  }

  /** Records that this device left a group at `at` (or rejoined it: `undefined`). */
  async markLeft(key: string, at: number | undefined): Promise<void> {
    if (at === undefined) delete this.left[key]
    else this.left[key] = at
    await this.ctx.store.setValue(LEFT, this.left)
  }

  /** Lists a group (or renames its entry) and publishes the list when it changed. */
  upsert(key: GroupKey, name: string | undefined): Promise<void> {
    return this.serialize(async () => {
      const entry: GroupListEntry = { id: key.id.value, relay: key.relay }
      if (name) entry.name = name
      const already = this.current.entries.find(
        (e) => e.id === entry.id && normalizeRelayUrl(e.relay) === key.relay,
      )
      if (already && (already.name ?? '') === (entry.name ?? '')) return
      this.current = this.current.upsert(entry)
      await this.publish()
    })
  }

  /** Removes a group's entry and publishes the list. */
  remove(key: GroupKey): Promise<void> {
    return this.serialize(async () => {
      this.current = this.current.remove(key)
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
    this.sub?.close()
    await this.queue.catch(() => {})
  }
}
