import type { Filter, NostrEvent } from 'nostr-tools'
import type { GroupRecord } from '../groups/record'
import type { EventDatabase } from './database'
import type { SqliteLists } from './lists-sqlite'
import type { InsertResult, ListName, RingEntry, StoredRow, StoreTransaction } from './store'

/** What a transaction needs of its store (`SqliteStore`): the SQL, committed records, the `previous` windows. */
export interface TransactionHost {
  readonly db: EventDatabase
  committed(id: string): GroupRecord | undefined
  ringOf(groupId: string, n: number): RingEntry[]
  pushRing(groupId: string, entry: RingEntry): void
  dropRings(): void
  /** The operator's lists (NIP-86). */
  readonly operatorLists: SqliteLists
}

/** The open transaction of one `SqliteStore.unit`. */
export class SqliteTransaction implements StoreTransaction {
  /** Group records written by this unit (null: dropped), applied to the store on commit. */
  readonly overlay = new Map<string, GroupRecord | null>()
  constructor(
    private readonly store: TransactionHost,
    /** Records written by earlier units of the same (uncommitted) batch. */
    private readonly batched: ReadonlyMap<string, GroupRecord | null>,
  ) {}

  private get db(): EventDatabase {
    return this.store.db
  }
  async get(id: string): Promise<StoredRow | undefined> {
    return this.db.get(id)
  }
  async query(filter: Filter, limit: number, offset = 0): Promise<StoredRow[]> {
    return this.db.query(filter, limit, offset)
  }
  async group(id: string): Promise<GroupRecord | undefined> {
    const mine = this.overlay.has(id) ? this.overlay.get(id) : this.batched.get(id)
    if (mine !== undefined) return mine ?? undefined
    return this.store.committed(id)
  }
  async deletedByAuthor(pubkey: string, id: string): Promise<boolean> {
    return this.db.deletedByAuthor(pubkey, id)
  }
  async wasDeleted(id: string): Promise<boolean> {
    return this.db.wasDeleted(id)
  }
  async insert(event: NostrEvent): Promise<InsertResult> {
    const r = this.db.insert(event)
    if (r === 'saved') {
      const gid = event.tags.find((t) => t[0] === 'h')?.[1]
      if (gid !== undefined) this.store.pushRing(gid, { id: event.id, pubkey: event.pubkey })
    }
    return r
  }
  async announce(): Promise<void> {
    // One process: the engine broadcasts what the unit returns.
  }
  async deleteIds(ids: readonly string[]): Promise<number> {
    const n = this.db.deleteIds(ids)
    if (n > 0) this.store.dropRings()
    return n
  }
  async deleteGroupEvents(groupId: string, keepId: string): Promise<string[]> {
    const ids = this.db.deleteGroupEvents(groupId, keepId)
    this.store.dropRings()
    return ids
  }
  async rememberDeleted(ids: readonly string[], at: number): Promise<void> {
    this.db.rememberDeleted(ids, at)
  }
  async latest(kind: number, pubkey: string, d: string): Promise<StoredRow | undefined> {
    return this.db.latest(kind, pubkey, d)
  }
  async ring(groupId: string, n: number): Promise<RingEntry[]> {
    return this.store.ringOf(groupId, n)
  }
  async saveGroup(g: GroupRecord): Promise<void> {
    this.db.saveGroup(g)
    this.overlay.set(g.id, g)
  }
  async dropGroup(id: string): Promise<void> {
    this.db.dropGroup(id)
    this.overlay.set(id, null)
  }
  async putListed(list: ListName, value: string, note: string): Promise<void> {
    this.store.operatorLists.put(list, value, note, Math.floor(Date.now() / 1000))
  }
  async dropListed(list: ListName, value: string): Promise<boolean> {
    return this.store.operatorLists.drop(list, value)
  }
}
