import type { Filter } from 'nostr-tools'
import { GroupIndex, IndexedRecords } from '../groups/group-index'
import type { GroupRecord } from '../groups/record'
import { Checkpointer } from './checkpointer'
import { EventDatabase } from './database'
import { SqliteLists } from './lists-sqlite'
import { type Candidate, pageOf } from './query-sqlite'
import { SearchThread } from './search-thread'
import { SqliteTransaction } from './sqlite-transaction'
import type {
  Cursor,
  EventStore,
  ListEntry,
  Page,
  ReadView,
  RingEntry,
  StoredRow,
  StoreTransaction,
} from './store'

/**
 * Under concurrent load (the last batch held at least {@link BUSY_UNITS} units and committed less
 * than {@link BUSY_MS} ago) a new batch stays open {@link GATHER_MS} before its COMMIT, so the units
 * that arrive meanwhile share it: fewer COMMITs and fewer WAL pages written per event, for at most
 * that much more latency. A store that is idle, or serves one writer at a time (nothing would
 * join), commits at the end of the turn. PostgreSQL's `commit_delay` and `commit_siblings` make
 * the same trade.
 */
const GATHER_MS = 2
const BUSY_MS = 10
const BUSY_UNITS = 4

/** Units run since the last COMMIT: their group records, and what waits for the COMMIT. */
interface OpenBatch {
  /** Group records written by the batch's finished units (null: dropped). */
  readonly overlay: Map<string, GroupRecord | null>
  /** Settles once the batch's transaction committed (or rejects when COMMIT failed and it rolled back). */
  readonly committed: Promise<void>
  resolve(): void
  reject(err: unknown): void
  /** A COMMIT is due as soon as no unit runs. */
  due: boolean
  /** The last unit (by queue number) that ran in this batch. */
  last: number
  /** How many units joined the batch. */
  units: number
  /** What the batch's units asked to run right after the COMMIT (each unit's `committed` hook). */
  readonly hooks: (() => void)[]
}

/** A read waiting for the units queued before it to commit. */
interface WaitingRead {
  /** The queue number of the last unit queued before the read. */
  readonly after: number
  readonly run: () => void
}

/**
 * {@link EventStore} on one SQLite file (better-sqlite3, WAL). One process owns the file, so units
 * run one at a time in call order (one FIFO lock for every group) and group records are served from
 * memory; every call is synchronous underneath, which keeps ingest fast.
 *
 * Group commit: the units that run in one turn of the event loop share one transaction, each inside
 * its own SAVEPOINT (a unit that throws leaves nothing of itself; the others stay). The COMMIT runs
 * once the turn's units are done (`setImmediate`; under load a little later, {@link GATHER_MS}), and
 * every unit's promise resolves only after it,
 * so nothing is answered before it is durable. A failed COMMIT rolls the whole batch back and
 * rejects every unit in it.
 *
 * Reads never wait for the writers to be idle (a flood of EVENTs would starve them): a read waits
 * only for the units queued before it, and runs right after the COMMIT of the batch that holds the
 * last of them, before another transaction begins, after the units' `committed` hooks (so a live
 * subscription has heard of every row the read can see).
 *
 * @example
 * const store = new SqliteStore(':memory:', () => relayKey)
 * await store.unit('general', (tx) => tx.insert(event)) // 'saved'
 */
export class SqliteStore implements EventStore {
  /** The SQL underneath (exposed for benchmarks and tools that read the file directly). */
  readonly db: EventDatabase
  readonly groupIndex = new GroupIndex()
  /** @internal the operator's lists. */
  readonly operatorLists: SqliteLists
  /** Committed group records. */
  private readonly records = new IndexedRecords(this.groupIndex, (g: GroupRecord) => g)
  /** Cached `previous` windows, newest first, kept current by inserts and cleared by deletions. */
  private readonly rings = new Map<string, { n: number; list: RingEntry[] }>()
  /** The end of the queue of units; undefined while none runs. */
  private tail: Promise<unknown> | undefined
  private running = 0
  /** The open transaction shared by this turn's units, if any. */
  private batch: OpenBatch | undefined
  /** Units queued so far, and the last of them whose batch has committed (or rolled back). */
  private queued = 0
  private settledUpTo = 0
  /** Reads waiting for a COMMIT, in call order. */
  private waiting: WaitingRead[] = []
  /** When the last COMMIT ended (`performance.now()`). */
  private lastCommit = Number.NEGATIVE_INFINITY
  /** How many units the last committed batch held. */
  private lastUnits = 0

  private readonly tx
  /** WAL checkpoints off the writer's thread (file databases only). */
  private readonly checkpoints: Checkpointer | undefined
  /** Searches off the writer's thread (file databases only). */
  private readonly searches: SearchThread | undefined
  /** Prepared once: a unit opens and closes one savepoint. */
  private readonly savepoint
  private readonly release

  constructor(path: string, relayKey: () => string) {
    this.db = new EventDatabase(path, relayKey)
    this.operatorLists = new SqliteLists(this.db.sql)
    this.tx = {
      begin: this.db.sql.prepare('BEGIN IMMEDIATE'),
      commit: this.db.sql.prepare('COMMIT'),
      rollback: this.db.sql.prepare('ROLLBACK'),
    }
    this.savepoint = this.db.sql.prepare('SAVEPOINT unit')
    this.release = this.db.sql.prepare('RELEASE unit')
    this.checkpoints = path === ':memory:' || path === '' ? undefined : new Checkpointer(this.db.sql, path)
    this.searches = path === ':memory:' || path === '' ? undefined : new SearchThread(path)
    for (const g of this.db.loadGroups()) this.records.set(g.id, g)
  }

  unit<T>(
    _groupId: string | undefined,
    fn: (tx: StoreTransaction) => Promise<T>,
    committed?: (value: T) => void,
  ): Promise<T> {
    const number = ++this.queued
    const run = async (): Promise<{ out: T; committed: Promise<void> }> => {
      const sql = this.db.sql
      let batch: OpenBatch
      try {
        batch = this.openBatch()
      } catch (err) {
        // No transaction began (and none is open): this unit is over, and so are those before it.
        this.settledUpTo = Math.max(this.settledUpTo, number)
        this.runWaiting()
        throw err
      }
      batch.last = number
      batch.units++
      this.running++
      try {
        const tx = new SqliteTransaction(this, batch.overlay)
        this.savepoint.run()
        try {
          const out = await fn(tx)
          this.release.run()
          for (const [id, g] of tx.overlay) batch.overlay.set(id, g)
          if (committed) batch.hooks.push(() => committed(out))
          return { out, committed: batch.committed }
        } catch (err) {
          if (sql.inTransaction) {
            sql.exec('ROLLBACK TO unit')
            sql.exec('RELEASE unit')
          }
          this.rings.clear()
          throw err
        }
      } finally {
        this.running--
        if (this.running === 0 && batch.due) this.commit()
      }
    }
    const next = (this.tail ?? Promise.resolve()).then(run, run)
    const settled = next.then(
      () => undefined,
      () => undefined,
    )
    this.tail = settled
    settled.then(() => {
      if (this.tail === settled) this.tail = undefined
    })
    return next.then(async ({ out, committed }) => {
      await committed
      return out
    })
  }

  /** The batch this unit joins: the open one, or a new transaction whose COMMIT ends this turn. */
  private openBatch(): OpenBatch {
    if (this.batch) return this.batch
    let resolve!: () => void
    let reject!: (err: unknown) => void
    const committed = new Promise<void>((res, rej) => {
      resolve = res
      reject = rej
    })
    committed.catch(() => {}) // each unit's caller hears of a failed COMMIT through its own promise
    const batch: OpenBatch = {
      overlay: new Map(),
      committed,
      resolve,
      reject,
      due: false,
      last: 0,
      units: 0,
      hooks: [],
    }
    this.tx.begin.run()
    this.batch = batch
    const due = () => {
      batch.due = true
      if (this.running === 0) this.commit()
    }
    const busy = this.lastUnits >= BUSY_UNITS && performance.now() - this.lastCommit < BUSY_MS
    if (busy) setTimeout(due, GATHER_MS)
    else setImmediate(due)
    return batch
  }

  /**
   * Commits the open batch, publishes its group records and runs its units' `committed` hooks; on
   * failure rolls it all back. Then, before any other transaction can begin, runs the reads that
   * waited for this batch.
   */
  private commit(): void {
    const batch = this.batch
    if (!batch) return
    this.batch = undefined
    let failure: { err: unknown } | undefined
    try {
      this.tx.commit.run()
    } catch (err) {
      if (this.db.sql.inTransaction) this.tx.rollback.run()
      this.rings.clear()
      failure = { err }
    }
    this.settledUpTo = Math.max(this.settledUpTo, batch.last)
    if (failure) batch.reject(failure.err)
    else {
      this.checkpoints?.committed()
      this.lastCommit = performance.now()
      this.lastUnits = batch.units
      for (const [id, g] of batch.overlay) {
        if (g) this.records.set(id, g)
        else this.records.delete(id)
      }
      for (const hook of batch.hooks) {
        try {
          hook()
        } catch {
          // A hook's failure is its caller's; the batch is committed either way.
        }
      }
      batch.resolve()
    }
    this.runWaiting()
  }

  /** Runs the waiting reads whose units have all committed, in call order. */
  private runWaiting(): void {
    if (this.waiting.length === 0) return
    const ready = this.waiting.filter((w) => w.after <= this.settledUpTo)
    if (ready.length === 0) return
    this.waiting = this.waiting.filter((w) => w.after > this.settledUpTo)
    for (const w of ready) w.run()
  }

  /**
   * Runs a read now when every unit queued so far has committed, else right after the COMMIT of the
   * batch holding the last unit queued before it (it never sees uncommitted rows, and never waits
   * for units queued after it).
   */
  private read<T>(fn: () => T): Promise<T> {
    if (this.settledUpTo === this.queued && this.batch === undefined) {
      try {
        return Promise.resolve(fn())
      } catch (err) {
        return Promise.reject(err)
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        after: this.queued,
        run: () => {
          try {
            resolve(fn())
          } catch (err) {
            reject(err)
          }
        },
      })
    })
  }

  /**
   * Resolves once no unit is queued or running and no batch is open, and what a commit set off
   * (answers, live broadcasts) has run: a read that follows sees the committed rows, and a
   * subscription it serves has already had those rows' live copies held back for deduplication.
   */
  private async idle(): Promise<void> {
    while (this.tail !== undefined || this.batch !== undefined || this.running > 0) {
      if (this.tail !== undefined) await this.tail
      else if (this.batch !== undefined) await this.batch.committed.catch(() => {})
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  get(id: string): Promise<StoredRow | undefined> {
    return this.read(() => this.db.get(id))
  }
  query(filter: Filter, limit: number, offset = 0): Promise<StoredRow[]> {
    return this.read(() => this.db.query(filter, limit, offset))
  }
  page(
    filter: Filter,
    limit: number,
    opts: { view?: ReadView; after?: Cursor; window: number },
  ): Promise<Page> {
    const thread = this.searches
    if (filter.search === undefined || !thread?.usable)
      return this.read(() => this.db.page(filter, limit, opts))
    // Sent once the units queued before it committed: the thread's statement sees their rows.
    return this.read(async () => {
      const q = this.db.pageSql(filter, limit, opts)
      if (!q) return { rows: [], next: undefined, scanned: 0 }
      try {
        return pageOf(await thread.all<Candidate>(q.sql, q.params), limit, q.window)
      } catch (err) {
        if (thread.usable) throw err
        return this.db.page(filter, limit, opts)
      }
    }).then((page) => page)
  }
  countable(filter: Filter, opts: { view?: ReadView; maxScan: number }): Promise<number[] | undefined> {
    return this.read(() => this.db.countable(filter, opts.view, opts.maxScan))
  }
  group(id: string): Promise<GroupRecord | undefined> {
    return Promise.resolve(this.records.get(id))
  }
  peekGroup(id: string): GroupRecord | undefined {
    return this.records.get(id)
  }
  wasDeleted(id: string): Promise<boolean> {
    return this.read(() => this.db.wasDeleted(id))
  }
  getMeta(key: string): Promise<string | undefined> {
    return this.read(() => this.db.getMeta(key))
  }
  setMeta(key: string, value: string): Promise<void> {
    return this.read(() => this.db.setMeta(key, value))
  }
  claimMeta(key: string, value: string): Promise<string> {
    return this.read(() => {
      const kept = this.db.getMeta(key)
      if (kept !== undefined) return kept
      this.db.setMeta(key, value)
      return value
    })
  }
  exclusive<T>(_name: string, fn: () => Promise<T>): Promise<T> {
    // One process owns the file: nobody else can run the same work.
    return fn()
  }
  onRemote(): void {
    // One process owns the file: there are no other writers to hear from.
  }
  lists(): Promise<ListEntry[]> {
    return this.read(() => this.operatorLists.all())
  }
  onListsChanged(): void {
    // One process owns the file: only this process changes the lists.
  }
  async close(): Promise<void> {
    await this.idle()
    await this.searches?.close()
    await this.checkpoints?.close()
    this.db.close()
  }

  /** @internal the committed record, for the transaction's overlay. */
  committed(id: string): GroupRecord | undefined {
    return this.records.get(id)
  }

  /** @internal */
  ringOf(groupId: string, n: number): RingEntry[] {
    const cached = this.rings.get(groupId)
    if (cached && cached.n === n) return cached.list
    const list = this.db.ring(groupId, n)
    this.rings.set(groupId, { n, list })
    return list
  }

  /** @internal an event of `groupId` was stored: it is the newest of the window. */
  pushRing(groupId: string, entry: RingEntry): void {
    const cached = this.rings.get(groupId)
    if (!cached) return
    cached.list.unshift(entry)
    if (cached.list.length > cached.n) cached.list.length = cached.n
  }

  /** @internal events were deleted: windows are rebuilt from the database when next needed. */
  dropRings(): void {
    this.rings.clear()
  }
}
