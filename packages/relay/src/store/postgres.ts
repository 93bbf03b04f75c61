import { randomBytes } from 'node:crypto'
import type { Filter, NostrEvent } from 'nostr-tools'
import pg from 'pg'
import { GroupIndex, IndexedRecords } from '../groups/group-index'
import { groupOf } from '../groups/intake'
import type { GroupRecord } from '../groups/record'
import { groupColumn, isAddressable, isReplaceable } from './database'
import { allLists, dropListed, putListed } from './lists-pg'
import { migrate } from './migrate'
import { type BatchSql, literal, PgBatcher } from './pg-batch'
import { Delivered, FanoutListener, SAMPLE_MS } from './pg-fanout'
import { countableRows, pageRows, pgText, plain, prepared, queryRows, ROW_COLUMNS } from './query-postgres'
import {
  type Cursor,
  type EventStore,
  type InsertResult,
  type ListEntry,
  type ListName,
  type Page,
  type ReadView,
  RING_WINDOW,
  type RingEntry,
  type StoredRow,
  type StoreTransaction,
} from './store'

export { pgText } from './query-postgres'

/** The NOTIFY channel every relay process on one database listens on. */
export const FANOUT_CHANNEL = 'roost_events'
/** Payloads above this many bytes go through the `fanout` table (NOTIFY takes at most 8,000). */
const NOTIFY_MAX = 7000
/** Tag values longer than this are not indexed (as on SQLite). */
const MAX_INDEXED_VALUE = 512
/** How many recently deleted ids are remembered (rule 14). */
const DELETED_KEEP = 1024

/** What both the pool and one checked-out client offer: a parameterized query. */
type Q = Pick<pg.Pool, 'query'>

/** int8 (`created_at`, `seq`, versions) read as numbers: every value the relay keeps is a safe integer. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

async function rows<T>(q: Q, text: string, params: unknown[] = []): Promise<T[]> {
  return (await q.query(text, params)).rows as T[]
}

/** What one unit tells the other processes: the events it committed and the group records it wrote. */
interface Fanout {
  /** The process that committed it (a process skips its own). */
  o: string
  /** Committed and ephemeral events, in the order the unit produced them. */
  e?: NostrEvent[]
  /** Group ids written, with their new version (-1: dropped). */
  g?: Record<string, number>
  /** The payload was too large: read it from `fanout` at this seq. */
  f?: number
  /** The operator's lists changed: read them again. */
  l?: 1
}

/** Options of {@link PostgresStore.open}. */
export interface PostgresStoreOptions {
  /** Connections in the pool; 10 by default. */
  max?: number
  /** Where errors of the fan-out listener are reported. */
  log?: (line: string) => void
}

const ignore = () => {}

/** The advisory lock key of a group (a 64-bit hash computed by the server). */
const groupKey = (id: string) => `g:${pgText(id)}`

/**
 * {@link EventStore} on PostgreSQL (15+), shared by any number of relay processes.
 *
 * - Group commit ({@link PgBatcher}): the units of one process run in call order, those of one turn
 *   of the event loop (or of a short window under load) in one transaction, each in its own
 *   savepoint and answered only after the COMMIT. A unit first takes its group's advisory lock
 *   (held until its batch commits); every other group whose record it reads is locked as it is
 *   read, and a deadlock between units is retried.
 * - Replaceable and addressable inserts lock their address, so two processes never keep two versions.
 * - Before committing, a batch NOTIFYs the events its units stored (and relayed, when ephemeral) and the group
 *   records it wrote; every other process refreshes those records and hands the events to its live
 *   subscriptions, in commit order.
 *
 * @example
 * const store = await PostgresStore.open('postgres://relay@db/roost', () => relayKey)
 * await store.unit('general', (tx) => tx.insert(event)) // 'saved'
 */
export class PostgresStore implements EventStore {
  /** The last committed record of each group this process knows, with its version. */
  readonly groupIndex = new GroupIndex()
  private readonly records = new IndexedRecords(this.groupIndex, (r: { g: GroupRecord; v: number }) => r.g)
  private readonly listeners: ((event: NostrEvent) => void)[] = []
  private readonly listListeners: (() => void)[] = []
  /** This process's mark on its notifications. */
  private readonly origin = randomBytes(9).toString('base64')
  /** How this process's notifications begin (see {@link PostgresStore.notices}). */
  private readonly mine = `{"o":${JSON.stringify(this.origin)},`
  /** Runs the units, a batch per transaction. */
  private readonly batcher: PgBatcher
  private readonly running = new Set<Promise<unknown>>()
  /** Notifications are handled one after another, in the order they arrive. */
  private inbox: Promise<void> = Promise.resolve()
  private closed = false
  private sweep: NodeJS.Timeout | undefined
  /** The connection that LISTENs (outside the pool), replaced when it drops. */
  private readonly listener: FanoutListener
  /** What was handed to this process's subscriptions lately, and where a catch-up starts. */
  private readonly delivered: Delivered
  private sampler: NodeJS.Timeout | undefined
  /** A catch-up is queued or running: the catch-up floor stays where it is. */
  private catchingUp = false

  private constructor(
    readonly pool: pg.Pool,
    url: string,
    private readonly relayKey: () => string,
    private readonly log: (line: string) => void,
  ) {
    this.listener = new FanoutListener(
      { connectionString: url, application_name: 'roost-relay', types },
      FANOUT_CHANNEL,
      { heard: (payload) => this.heard(payload), resuming: (listening) => this.resuming(listening) },
      log,
    )
    this.delivered = new Delivered(pool)
    this.batcher = new PgBatcher(pool, FANOUT_CHANNEL, batchSql)
  }

  /** Connects, applies pending migrations, starts listening, then loads the group records. */
  static async open(
    url: string,
    relayKey: () => string,
    opts: PostgresStoreOptions = {},
  ): Promise<PostgresStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.max ?? 10,
      application_name: 'roost-relay',
      types,
    })
    // A pooled connection that dies while idle (a database restart) is dropped and replaced.
    pool.on('error', () => {})
    try {
      await migrate(pool)
      const store = new PostgresStore(pool, url, relayKey, opts.log ?? (() => {}))
      try {
        await store.listener.start()
        await store.delivered.sample(() => true)
        await store.loadGroups()
      } catch (err) {
        await store.listener.close()
        throw err
      }
      store.sampler = setInterval(() => store.sample(), SAMPLE_MS)
      store.sampler.unref()
      store.sweep = setInterval(() => {
        pool.query("DELETE FROM fanout WHERE at < now() - interval '5 minutes'").catch(() => {})
      }, 60_000)
      store.sweep.unref()
      return store
    } catch (err) {
      await pool.end()
      throw err
    }
  }

  unit<T>(
    groupId: string | undefined,
    fn: (tx: StoreTransaction) => Promise<T>,
    committed?: (value: T) => void,
    about?: Pick<NostrEvent, 'id' | 'pubkey'>,
  ): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the store is closed'))
    const probing =
      about && !about.id.includes('\u0000') && !about.pubkey.includes('\u0000') ? about : undefined
    const next = new Promise<T>((resolve, reject) => {
      let tx: PgTransaction | undefined
      let value: T
      this.batcher.push({
        groupId,
        lockKey: groupId === undefined ? undefined : groupKey(groupId),
        ...(probing && { about: { id: probing.id, pubkey: probing.pubkey } }),
        run: async (q, shared, probed, defer) => {
          tx = new PgTransaction(
            q,
            this.relayKey(),
            shared as Shared,
            probing && probed && answers(probing, probed),
            defer,
          )
          if (groupId !== undefined) tx.held(groupId)
          value = await fn(tx)
          const notices = await this.notices(tx.q, tx)
          tx.share()
          const deferred = tx.deferred()
          return { notices, ...(deferred && { deferred }), ...(tx.stale && { stale: true }) }
        },
        committed: () => {
          if (tx) this.committed(tx)
          try {
            committed?.(value)
          } catch {
            // A hook's failure is its caller's; the unit is committed either way.
          }
          resolve(value)
        },
        failed: reject,
      })
    })
    this.running.add(next)
    const done = () => this.running.delete(next)
    next.then(done, done)
    return next
  }

  /**
   * What the unit tells the other processes (sent by its batch right before the COMMIT, so they
   * hear it in commit order); a payload too large for NOTIFY is stored in `fanout` within the unit.
   */
  private async notices(q: Q, tx: PgTransaction): Promise<string[]> {
    if (tx.events.length === 0 && tx.versions.size === 0 && !tx.listsChanged) return []
    const msg: Fanout = { o: this.origin }
    if (tx.events.length > 0) msg.e = tx.events
    if (tx.versions.size > 0) msg.g = Object.fromEntries(tx.versions)
    if (tx.listsChanged) msg.l = 1
    const payload = JSON.stringify(msg)
    if (Buffer.byteLength(payload) <= NOTIFY_MAX) return [payload]
    const [row] = await rows<{ seq: number }>(q, 'INSERT INTO fanout (payload) VALUES ($1) RETURNING seq', [
      payload,
    ])
    return [JSON.stringify({ o: this.origin, f: row?.seq })]
  }

  /** A unit committed: its records become this process's view (its events went out at its commit). */
  private committed(tx: PgTransaction): void {
    for (const event of tx.events) this.delivered.first(event.id)
    for (const [id, entry] of tx.overlay) {
      const known = this.records.get(id)
      if (entry.g === null) {
        if (!known || known.v <= entry.v) this.records.delete(id)
      } else if (!known || known.v < entry.v) this.records.set(id, { g: entry.g, v: entry.v })
    }
  }

  private heard(payload: string): void {
    // This process's own notifications (most of them, on a busy relay) are skipped unparsed.
    if (payload.startsWith(this.mine)) return
    this.inbox = this.inbox
      .then(() => this.receive(payload))
      .catch((err) => this.log(`fan-out: ${(err as Error).message}`))
  }

  private async receive(payload: string): Promise<void> {
    let msg = JSON.parse(payload) as Fanout
    if (msg.o === this.origin || this.closed) return
    if (msg.f !== undefined) {
      const [row] = await rows<{ payload: string }>(this.pool, 'SELECT payload FROM fanout WHERE seq = $1', [
        msg.f,
      ])
      if (!row) return
      msg = JSON.parse(row.payload) as Fanout
    }
    const stale = Object.entries(msg.g ?? {})
      .filter(([id, v]) => v < 0 || (this.records.get(id)?.v ?? 0) < v)
      .map(([id]) => id)
    if (stale.length > 0) await this.loadGroups(stale)
    if (msg.l) this.listsChanged()
    this.deliver(msg.e ?? [])
  }

  /** Tells the list listeners to read the operator's lists again. */
  private listsChanged(): void {
    for (const l of this.listListeners) {
      try {
        l()
      } catch (err) {
        this.log(`fan-out: ${(err as Error).message}`)
      }
    }
  }

  /** Hands events to the live subscriptions, each once. */
  private deliver(events: readonly NostrEvent[]): void {
    for (const event of events) {
      if (!this.delivered.first(event.id)) continue
      for (const l of this.listeners) l(event)
    }
  }

  /**
   * The listener is about to LISTEN again after its connection dropped (a database restart, a
   * network fault): whatever committed meanwhile was announced to no one here. Before the new
   * connection's notifications, the inbox reloads the group records and hands out the stored events
   * past the catch-up floor that were not handed out yet (ephemeral events, never stored, are gone).
   * A catch-up that fails is tried again until it succeeds or the connection drops again.
   */
  private resuming(listening: Promise<void>): void {
    this.catchingUp = true
    const epoch = this.listener.epoch
    const catchUp = async (): Promise<void> => {
      for (;;) {
        if (this.closed || this.listener.epoch !== epoch) return
        try {
          await this.loadGroups()
          // A change of the operator's lists may have been missed too.
          this.listsChanged()
          for await (const page of this.delivered.missed()) this.deliver(page)
          return
        } catch (err) {
          this.log(`fan-out catch-up: ${(err as Error).message}`)
          await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS / 10))
        }
      }
    }
    this.inbox = this.inbox
      .then(() => listening)
      .then(catchUp, () => {})
      .finally(() => {
        if (this.listener.epoch === epoch) this.catchingUp = false
      })
      .catch((err) => this.log(`fan-out: ${(err as Error).message}`))
  }

  /** Moves the catch-up floor while the listener holds (and no catch-up is pending). */
  private sample(): void {
    const epoch = this.listener.epoch
    const steady = () => this.listener.up && this.listener.epoch === epoch && !this.catchingUp
    if (this.closed || !steady()) return
    this.delivered.sample(steady).catch(() => {})
  }

  /** Loads committed records (all, or the given ids) into this process's view. */
  private async loadGroups(ids?: string[]): Promise<void> {
    type Row = { id: string; state: string; version: number }
    const found = ids
      ? await rows<Row>(this.pool, 'SELECT id, state, version FROM groups WHERE id = ANY($1::text[])', [
          ids.map(pgText),
        ])
      : await rows<Row>(this.pool, 'SELECT id, state, version FROM groups')
    const seen = new Set<string>()
    for (const r of found) {
      const g = JSON.parse(r.state) as GroupRecord
      seen.add(g.id)
      const known = this.records.get(g.id)
      if (!known || known.v <= r.version) this.records.set(g.id, { g, v: r.version })
    }
    for (const id of ids ?? [...this.records.keys()]) if (!seen.has(id)) this.records.delete(id)
  }

  async get(id: string): Promise<StoredRow | undefined> {
    return getRow(this.pool, id)
  }
  query(filter: Filter, limit: number, offset = 0): Promise<StoredRow[]> {
    return queryRows(this.pool, filter, limit, { offset })
  }
  page(
    filter: Filter,
    limit: number,
    opts: { view?: ReadView; after?: Cursor; window: number },
  ): Promise<Page> {
    return pageRows(this.pool, filter, limit, opts)
  }
  countable(filter: Filter, opts: { view?: ReadView; maxScan: number }): Promise<number[] | undefined> {
    return countableRows(this.pool, filter, opts.view, opts.maxScan)
  }
  async group(id: string): Promise<GroupRecord | undefined> {
    const [row] = (await prepared(this.pool, 'SELECT state FROM groups WHERE id = $1', [pgText(id)]))
      .rows as { state: string }[]
    return row ? (JSON.parse(row.state) as GroupRecord) : undefined
  }
  peekGroup(id: string): GroupRecord | undefined {
    return this.records.get(id)?.g
  }
  wasDeleted(id: string): Promise<boolean> {
    return wasDeleted(this.pool, id)
  }
  async getMeta(key: string): Promise<string | undefined> {
    const [row] = await rows<{ value: string }>(this.pool, 'SELECT value FROM meta WHERE key = $1', [key])
    return row?.value
  }
  async setMeta(key: string, value: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    )
  }
  async claimMeta(key: string, value: string): Promise<string> {
    await this.pool.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
      key,
      value,
    ])
    return (await this.getMeta(key)) ?? value
  }
  async exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
    // A session lock on a connection of its own: `fn` uses the rest of the pool. The lock ends with
    // the session, so a process that dies holding it does not block the others.
    const client = await this.pool.connect()
    client.on('error', ignore)
    let broken: unknown
    try {
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`x:${pgText(name)}`])
      try {
        return await fn()
      } finally {
        await client
          .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`x:${pgText(name)}`])
          .catch((e: unknown) => {
            broken = e
          })
      }
    } finally {
      client.off('error', ignore)
      // A connection that may still hold the lock is closed rather than given back.
      client.release(broken instanceof Error ? broken : undefined)
    }
  }
  onRemote(listener: (event: NostrEvent) => void): void {
    this.listeners.push(listener)
  }
  lists(): Promise<ListEntry[]> {
    return allLists(this.pool)
  }
  onListsChanged(listener: () => void): void {
    this.listListeners.push(listener)
  }
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.sweep)
    clearInterval(this.sampler)
    await Promise.allSettled([...this.running])
    // The listener first: a catch-up waiting for its LISTEN ends with it.
    await this.listener.close()
    await this.inbox
    await this.pool.end()
  }
}

/**
 * What the units of one batch leave for the later ones, valid because the batch holds the locks
 * they took until its COMMIT: `g:<id>` the group records read or written (null: none), `r:<id>`
 * the `previous` windows read, kept current by the batch's inserts.
 */
type Shared = Map<string, { json: string; g: GroupRecord } | null | { n: number; list: RingEntry[] }>

/** What every EVENT asks before deciding (see {@link EventStore.unit}'s `about`), read in one statement. */
interface Probed {
  id: string
  pubkey: string
  /** The stored row with this id, if any. */
  row: StoredRow | undefined
  /** The id is among the remembered deletions. */
  deleted: boolean
  /** The author has a stored kind 5 naming it. */
  withdrawn: boolean
}

/**
 * The SQL of the batches' own statements (see {@link BatchSql}): the probe of some events (a row
 * each: its stored row or nulls, whether its id was deleted, whether its author withdrew it), and
 * the insert of deferred rows with their tags, in order (so `seq` keeps the acceptance order).
 */
const batchSql: BatchSql = {
  probe(events, literal) {
    const list = (xs: string[]) => `ARRAY[${xs.map(literal).join(', ')}]::text[]`
    return `SELECT p.id AS probe_id, ${ROW_COLUMNS.split(', ')
      .map((c) => `e.${c}`)
      .join(', ')},
        EXISTS (SELECT 1 FROM deleted_ids WHERE id = p.id COLLATE "C") AS deleted,
        EXISTS (SELECT 1 FROM tags t JOIN events k ON k.seq = t.event
          WHERE t.name = 'e' AND t.value = p.id COLLATE "C" AND k.kind = 5 AND k.pubkey = p.pubkey COLLATE "C") AS withdrawn
      FROM unnest(${list(events.map((e) => e.id))}, ${list(events.map((e) => e.pubkey))}) AS p (id, pubkey)
      LEFT JOIN events e ON e.id = p.id COLLATE "C"`
  },
  prefetch(groupId, literal) {
    const id = literal(pgText(groupId))
    return [
      `SELECT state FROM groups WHERE id = ${id}`,
      `SELECT id, pubkey FROM events WHERE grp = ${id} AND (kind < 39000 OR kind > 39005) ORDER BY seq DESC LIMIT ${RING_WINDOW}`,
    ]
  },
  absorb(groupId, results, shared) {
    const [record, ring] = results
    if (!record || !ring) return
    const row = record.rows[0] as { state: string } | undefined
    shared.set(`g:${groupId}`, row ? { json: row.state, g: JSON.parse(row.state) as GroupRecord } : null)
    const list = (ring.rows as RingEntry[]).map((r) => ({ id: r.id, pubkey: r.pubkey }))
    shared.set(`r:${groupId}`, { n: RING_WINDOW, list })
  },
  insert(given, literal) {
    const rows = given as readonly Deferred[]
    const list = (xs: (string | null)[]) =>
      `ARRAY[${xs.map((x) => (x === null ? 'NULL' : literal(x))).join(', ')}]::text[]`
    const tagOf = rows.flatMap((r) => r.names.map(() => r.id))
    return `WITH v AS (
        SELECT * FROM unnest(${list(rows.map((r) => r.id))}, ${list(rows.map((r) => r.pubkey))},
          ARRAY[${rows.map((r) => r.kind).join(', ')}]::int[], ARRAY[${rows.map((r) => r.created_at).join(', ')}]::bigint[],
          ${list(rows.map((r) => r.grp))}, ${list(rows.map((r) => r.json))}) WITH ORDINALITY
          AS v (id, pubkey, kind, created_at, grp, json, i)),
      ins AS (
        INSERT INTO events (id, pubkey, kind, created_at, grp, json)
        SELECT id, pubkey, kind, created_at, grp, json FROM v ORDER BY i RETURNING seq, id, created_at)
      INSERT INTO tags (event, name, value, created_at)
      SELECT ins.seq, t.n, t.v, ins.created_at
      FROM ins JOIN unnest(${list(tagOf)}, ${list(rows.flatMap((r) => r.names))}, ${list(rows.flatMap((r) => r.values))})
        AS t (id, n, v) ON t.id COLLATE "C" = ins.id`
  },
}

/** An insert left to the batch: an event (no `d`) and its indexed tags. */
interface Deferred {
  id: string
  pubkey: string
  kind: number
  created_at: number
  grp: string | null
  json: string
  names: string[]
  values: string[]
}

function answers(about: Pick<NostrEvent, 'id' | 'pubkey'>, r: Record<string, unknown>): Probed {
  return {
    id: about.id,
    pubkey: about.pubkey,
    row: r.json === null ? undefined : plain(r as unknown as StoredRow),
    deleted: r.deleted === true,
    withdrawn: r.withdrawn === true,
  }
}

/** The open transaction of one {@link PostgresStore.unit}. */
class PgTransaction implements StoreTransaction {
  /** Group records written by this unit (null: dropped) with their new versions. */
  readonly overlay = new Map<string, { g: GroupRecord | null; v: number }>()
  /** The versions to announce. */
  readonly versions = new Map<string, number>()
  /** Events to announce, in order. */
  readonly events: NostrEvent[] = []
  /** The unit wrote the operator's lists (announced, so other processes read them again). */
  listsChanged = false
  /** Records read under this transaction's locks (JSON and the parsed record; null when absent). */
  private readonly read = new Map<string, { json: string; g: GroupRecord } | null>()
  private readonly locked = new Set<string>()

  /** `previous` windows this unit read or extended (newest first), shared with later units on success. */
  private readonly rings = new Map<string, { n: number; list: RingEntry[] }>()
  /** This unit deleted events: every window known to the batch is dropped. */
  private ringsDropped = false

  /** Every statement of the unit goes through here: a deferred insert goes out first. */
  readonly q: Q
  /** The unit's insert, not sent yet (see {@link PgTransaction.deferred}). */
  private pending: Deferred | undefined
  /** The unit wrote something (besides a deferred insert). */
  private wrote = false
  /** The unit changed what a probe answers: the batch's probes are read again. */
  stale = false

  constructor(
    private readonly raw: Q,
    private readonly relayKey: string,
    private readonly shared: Shared = new Map(),
    /** Read as the unit opened; valid until the unit writes. */
    private probed?: Probed,
    /** The unit may leave its insert to the batch. */
    private readonly defer = false,
  ) {
    this.q = {
      query: (async (...args: Parameters<Q['query']>) => {
        await this.flush()
        return (raw.query as (...a: unknown[]) => unknown)(...args)
      }) as Q['query'],
    }
  }

  /** Sends the deferred insert now (another statement of the unit follows). */
  private async flush(): Promise<void> {
    const pending = this.pending
    if (!pending) return
    this.pending = undefined
    this.wrote = true
    await this.raw.query(batchSql.insert([pending], literal))
  }

  /**
   * The unit's insert, when it is its only write and was left for the batch: an event of the group
   * whose lock the unit holds, which the probe found not stored, so the insert cannot meet a
   * duplicate (a plain INSERT: were one there, the batch's insert fails and its units run again).
   */
  deferred(): { id: string; row: Deferred; bytes: number } | undefined {
    const pending = this.pending
    this.pending = undefined
    return pending && { id: pending.id, row: pending, bytes: pending.json.length }
  }

  /** The unit succeeded: what it read and wrote under its locks is left for the batch's later units. */
  share(): void {
    if (this.ringsDropped)
      for (const k of [...this.shared.keys()]) if (k.startsWith('r:')) this.shared.delete(k)
    for (const [id, r] of this.read) this.shared.set(`g:${id}`, r)
    for (const [id, { g }] of this.overlay)
      this.shared.set(`g:${id}`, g === null ? null : { json: JSON.stringify(g), g })
    for (const [id, r] of this.rings) this.shared.set(`r:${id}`, r)
  }

  private dropRings(): void {
    this.rings.clear()
    this.ringsDropped = true
  }

  /** An event this unit stored joins the front of its group's window, if one is known. */
  private ringInsert(event: NostrEvent, grp: string | null): void {
    if (grp === null || (event.kind >= 39000 && event.kind <= 39005)) return
    const known =
      this.rings.get(grp) ??
      (this.ringsDropped
        ? undefined
        : (this.shared.get(`r:${grp}`) as { n: number; list: RingEntry[] } | undefined))
    if (!known) return
    this.rings.set(grp, {
      n: known.n,
      list: [{ id: event.id, pubkey: event.pubkey }, ...known.list].slice(0, known.n),
    })
  }

  /** The group's advisory lock was taken for this unit already. */
  held(id: string): void {
    this.locked.add(id)
  }

  /** Takes a group's advisory lock (held until the transaction ends). */
  async lock(id: string): Promise<void> {
    if (this.locked.has(id)) return
    await this.q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [groupKey(id)])
    this.locked.add(id)
  }

  get(id: string): Promise<StoredRow | undefined> {
    if (this.probed?.id === id) return Promise.resolve(this.probed.row)
    return getRow(this.q, id)
  }
  query(filter: Filter, limit: number, offset = 0): Promise<StoredRow[]> {
    return queryRows(this.q, filter, limit, { offset })
  }
  async group(id: string): Promise<GroupRecord | undefined> {
    const mine = this.overlay.get(id)
    if (mine) return mine.g ?? undefined
    // Held under its lock, a record read once cannot change until this transaction ends.
    const known = this.read.get(id)
    if (known !== undefined) return known?.g
    const earlier = this.shared.get(`g:${id}`) as { json: string; g: GroupRecord } | null | undefined
    if (earlier !== undefined) {
      this.locked.add(id)
      this.read.set(id, earlier)
      return earlier?.g
    }
    await this.lock(id)
    const [row] = await rows<{ state: string }>(this.q, 'SELECT state FROM groups WHERE id = $1', [
      pgText(id),
    ])
    const record = row ? { json: row.state, g: JSON.parse(row.state) as GroupRecord } : null
    this.read.set(id, record)
    return record?.g
  }
  async deletedByAuthor(pubkey: string, id: string): Promise<boolean> {
    if (this.probed?.id === id && this.probed.pubkey === pubkey) return this.probed.withdrawn
    if (id.includes('\u0000') || pubkey.includes('\u0000')) return false
    const found = await rows(
      this.q,
      `SELECT 1 FROM tags t JOIN events e ON e.seq = t.event
       WHERE t.name = 'e' AND t.value = $1 AND e.kind = 5 AND e.pubkey = $2 LIMIT 1`,
      [id, pubkey],
    )
    return found.length > 0
  }
  wasDeleted(id: string): Promise<boolean> {
    if (this.probed?.id === id) return Promise.resolve(this.probed.deleted)
    return wasDeleted(this.q, id)
  }

  async insert(event: NostrEvent): Promise<InsertResult> {
    const unseen = this.probed?.id === event.id && this.probed.row === undefined
    this.probed = undefined
    const q = this.q
    let d: string | null = null
    if (isReplaceable(event.kind)) d = ''
    else if (isAddressable(event.kind)) d = pgText(event.tags.find((t) => t[0] === 'd')?.[1] ?? '')
    if (d !== null) {
      await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `a:${event.kind}:${event.pubkey}:${d}`,
      ])
      const [old] = await rows<{ seq: number; id: string; created_at: number }>(
        q,
        'SELECT seq, id, created_at FROM events WHERE kind = $1 AND pubkey = $2 AND d = $3',
        [event.kind, event.pubkey, d],
      )
      if (old) {
        if (old.id === event.id) return 'duplicate'
        const newer =
          event.created_at > old.created_at || (event.created_at === old.created_at && event.id < old.id)
        if (!newer) return 'stale'
        await q.query('DELETE FROM events WHERE seq = $1', [old.seq])
        this.wrote = true
        this.stale = true
        this.dropRings()
      }
    }
    const grp = groupColumn(event, this.relayKey)
    const names: string[] = []
    const values: string[] = []
    const seen = new Set<string>()
    for (const [name, value] of event.tags) {
      if (name === undefined || name.length !== 1 || name === '\u0000') continue
      if (typeof value !== 'string' || value.length > MAX_INDEXED_VALUE) continue
      const v = pgText(value)
      const key = `${name}\u0000${v}`
      if (seen.has(key)) continue
      seen.add(key)
      names.push(name)
      values.push(v)
    }
    const h = groupOf(event)
    if (event.kind === 5) this.stale = true
    if (
      this.defer &&
      unseen &&
      !this.wrote &&
      this.pending === undefined &&
      d === null &&
      h !== undefined &&
      this.locked.has(h) &&
      Number.isInteger(event.kind) &&
      event.kind >= 0 &&
      event.kind <= 0x7fffffff &&
      Number.isSafeInteger(event.created_at)
    ) {
      this.pending = {
        id: event.id,
        pubkey: event.pubkey,
        kind: event.kind,
        created_at: event.created_at,
        grp: grp === null ? null : pgText(grp),
        json: JSON.stringify(event),
        names,
        values,
      }
      this.events.push(event)
      this.ringInsert(event, grp === null ? null : pgText(grp))
      return 'saved'
    }
    this.wrote = true
    this.stale = true
    // The row and its tags in one round trip, a statement each connection prepares once.
    const [row] = (
      await prepared(
        q,
        `WITH ins AS (
         INSERT INTO events (id, pubkey, kind, created_at, d, grp, json) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO NOTHING RETURNING seq),
       t AS (
         INSERT INTO tags (event, name, value, created_at)
         SELECT ins.seq, x.n, x.v, $4 FROM ins, unnest($8::text[], $9::text[]) AS x (n, v))
       SELECT seq FROM ins`,
        [
          event.id,
          event.pubkey,
          event.kind,
          event.created_at,
          d,
          grp === null ? null : pgText(grp),
          JSON.stringify(event),
          names,
          values,
        ],
      )
    ).rows as { seq: number }[]
    if (!row) return 'duplicate'
    this.events.push(event)
    this.ringInsert(event, grp === null ? null : pgText(grp))
    return 'saved'
  }

  announce(event: NostrEvent): Promise<void> {
    this.events.push(event)
    return Promise.resolve()
  }

  async deleteIds(ids: readonly string[]): Promise<number> {
    this.probed = undefined
    this.wrote = true
    this.stale = true
    if (ids.length === 0) return 0
    const r = await this.q.query('DELETE FROM events WHERE id = ANY($1::text[])', [[...ids]])
    this.dropRings()
    return r.rowCount ?? 0
  }
  async deleteGroupEvents(groupId: string, keepId: string): Promise<string[]> {
    this.probed = undefined
    this.wrote = true
    this.stale = true
    const gone = await rows<{ id: string }>(
      this.q,
      'DELETE FROM events WHERE grp = $1 AND id <> $2 RETURNING id',
      [pgText(groupId), keepId],
    )
    this.dropRings()
    return gone.map((r) => r.id)
  }
  async rememberDeleted(ids: readonly string[], at: number): Promise<void> {
    this.probed = undefined
    this.wrote = true
    this.stale = true
    if (ids.length === 0) return
    await this.q.query(
      `INSERT INTO deleted_ids (id, at) SELECT unnest($1::text[]), $2
       ON CONFLICT (id) DO UPDATE SET at = excluded.at`,
      [[...ids], at],
    )
    await this.q.query(
      'DELETE FROM deleted_ids WHERE at < (SELECT at FROM deleted_ids ORDER BY at DESC OFFSET $1 LIMIT 1)',
      [DELETED_KEEP - 1],
    )
  }
  async latest(kind: number, pubkey: string, d: string): Promise<StoredRow | undefined> {
    const [row] = await rows<StoredRow>(
      this.q,
      `SELECT ${ROW_COLUMNS} FROM events WHERE kind = $1 AND pubkey = $2 AND d = $3`,
      [kind, pubkey, pgText(d)],
    )
    return row && plain(row)
  }
  async ring(groupId: string, n: number): Promise<RingEntry[]> {
    const known =
      this.rings.get(groupId) ??
      (this.ringsDropped
        ? undefined
        : (this.shared.get(`r:${groupId}`) as { n: number; list: RingEntry[] } | undefined))
    if (known && known.n >= n) return known.list.slice(0, n)
    const ring = await rows<RingEntry>(
      this.q,
      // Arrival order: the group's lock serializes its inserts, so seq is the order they were accepted.
      `SELECT id, pubkey FROM events WHERE grp = $1 AND (kind < 39000 OR kind > 39005)
       ORDER BY seq DESC LIMIT $2`,
      [pgText(groupId), n],
    )
    const list = ring.map((r) => ({ id: r.id, pubkey: r.pubkey }))
    this.rings.set(groupId, { n, list })
    return list
  }
  async saveGroup(g: GroupRecord): Promise<void> {
    this.wrote = true
    const state = JSON.stringify(g)
    if (!this.overlay.has(g.id) && this.read.get(g.id)?.json === state) return
    await this.lock(g.id)
    const [row] = await rows<{ version: number }>(
      this.q,
      `INSERT INTO groups (id, state, version) VALUES ($1, $2, 1)
       ON CONFLICT (id) DO UPDATE SET state = excluded.state, version = groups.version + 1 RETURNING version`,
      [pgText(g.id), state],
    )
    const v = row?.version ?? 1
    this.overlay.set(g.id, { g, v })
    this.versions.set(g.id, v)
  }
  async dropGroup(id: string): Promise<void> {
    this.wrote = true
    await this.lock(id)
    const [row] = await rows<{ version: number }>(
      this.q,
      'DELETE FROM groups WHERE id = $1 RETURNING version',
      [pgText(id)],
    )
    const v = (row?.version ?? 0) + 1
    this.overlay.set(id, { g: null, v })
    this.versions.set(id, -1)
  }
  async putListed(list: ListName, value: string, note: string): Promise<void> {
    this.wrote = true
    await putListed(this.q, list, value, note)
    this.listsChanged = true
  }
  async dropListed(list: ListName, value: string): Promise<boolean> {
    this.wrote = true
    const dropped = await dropListed(this.q, list, value)
    if (dropped) this.listsChanged = true
    return dropped
  }
}

async function getRow(q: Q, id: string): Promise<StoredRow | undefined> {
  if (id.includes('\u0000')) return undefined
  const [row] = await rows<StoredRow>(q, `SELECT ${ROW_COLUMNS} FROM events WHERE id = $1`, [id])
  return row && plain(row)
}

async function wasDeleted(q: Q, id: string): Promise<boolean> {
  if (id.includes('\u0000')) return false
  return (await rows(q, 'SELECT 1 FROM deleted_ids WHERE id = $1', [id])).length > 0
}
