import type pg from 'pg'

/**
 * Under load (the last batch held at least {@link BUSY_UNITS} units and committed less than
 * {@link BUSY_MS} ago) a batch whose queue ran dry stays open up to {@link GATHER_MS} after it
 * began, so units arriving meanwhile share its COMMIT. An idle store commits at the end of the turn.
 */
const GATHER_MS = 2
const BUSY_MS = 10
const BUSY_UNITS = 4
/** A batch commits after this many units, so one COMMIT never waits on an endless queue. */
const MAX_UNITS = 500
/** Batches under way at once in one process, each on its own connection. */
const LANES = 4
/** A unit that meets a deadlock or a serialization failure is run again, at most this many times. */
const RETRIES = 8

/** One unit of work for the {@link PgBatcher}: what the store queues for each `unit` call. */
export interface BatchUnit {
  /** The unit's group: units of one group run in one lane, in call order. */
  readonly groupId: string | undefined
  /** The advisory lock key of the unit's group (taken before it runs), if it has one. */
  readonly lockKey: string | undefined
  /** The event the unit decides, if any: read ahead by the batch's probes (see {@link BatchSql.probe}). */
  readonly about?: Probe
  /**
   * Runs the unit on the batch's connection (inside its savepoint, opened before its first statement);
   * resolves to what it leaves for its batch. `shared` is the batch's own (what earlier units of the
   * batch left for later ones, e.g. records read under locks it holds); `probed` is the probe row of
   * `about`, read under the group's lock after every earlier unit of the batch; `defer` allows the
   * unit to leave its insert to the batch.
   */
  run(
    q: Pick<pg.PoolClient, 'query'>,
    shared: Map<string, unknown>,
    probed: Record<string, unknown> | undefined,
    defer: boolean,
  ): Promise<UnitRun>
  /** The batch holding the unit committed: answer it. */
  committed(): void
  /** The unit failed, or its batch did not commit: reject it (nothing of it remains). */
  failed(err: unknown): void
}

/** An event a unit decides, as its probe reads it. */
export interface Probe {
  id: string
  pubkey: string
}

/** What a unit's run leaves for its batch. */
export interface UnitRun {
  /** NOTIFY payloads to send right before the COMMIT, in order. */
  notices: string[]
  /**
   * The unit's only write, an insert left to the batch (sent with those of the units after it in one
   * statement, before any other statement of the batch): an event of the group whose lock the batch
   * holds, not stored (as its probe read), so nothing the batch does meanwhile can conflict with it.
   */
  deferred?: { id: string; row: unknown; bytes: number }
  /** The unit changed what probes answer (deleted events, remembered deletions, stored a kind 5, …). */
  stale?: boolean
}

/** The SQL of the batch's own statements, given by the store (values inlined with `literal`). */
export interface BatchSql {
  /** One statement: a row per event, its `probe_id` column naming it. */
  probe(events: readonly Probe[], literal: (v: string) => string): string
  /** One statement inserting the deferred rows, in order. */
  insert(rows: readonly unknown[], literal: (v: string) => string): string
  /**
   * Reads of a group sent right after its lock in the round trip that opens its first unit in a
   * batch (its record, its `previous` window), and how their results join the batch's shared map.
   */
  prefetch(groupId: string, literal: (v: string) => string): string[]
  absorb(groupId: string, results: readonly pg.QueryResult[], shared: Map<string, unknown>): void
}

/** How many queued units of one group a probe reads ahead. */
const LOOKAHEAD = 200
/** Deferred rows are sent once they hold this many bytes, so one statement stays small. */
const PENDING_BYTES = 1 << 20

/**
 * A string as an SQL literal, as the driver's `escapeLiteral` writes it (quotes and backslashes
 * doubled, `E''` when there is a backslash, so it reads the same whatever
 * `standard_conforming_strings` says), with native string operations: batches inline whole events.
 */
export function literal(s: string): string {
  const quoted = s.replaceAll("'", "''")
  return s.includes('\\') ? ` E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`
}

const isRetryable = (err: unknown) => {
  const code = (err as { code?: string }).code
  return code === '40P01' || code === '40001'
}

/** Raised inside a batch when a unit's group is locked by another transaction: commit first. */
class Busy extends Error {}

const ignore = () => {}

/**
 * Group commit on PostgreSQL. The units of one process run in {@link LANES} lanes, each a batch at a
 * time on its own connection; a group's units stay in one lane while any of them is pending, so they
 * run in call order. In a lane, the units run one after another, in one transaction, each inside
 * its own SAVEPOINT, opened with its first statement (a unit that throws leaves nothing of itself;
 * the others stay). The COMMIT comes once the queue ran dry for a turn of the event loop (under
 * load a little later, {@link GATHER_MS}); every unit is answered only after it, so nothing is
 * acknowledged before it is durable, and a failed COMMIT rejects every unit of its batch.
 *
 * Round trips: a unit that opens (its savepoint, its group's lock) also reads the probe of its event
 * and of the events of its group queued behind it ({@link BatchSql.probe}: stored? deleted?
 * withdrawn?). A later unit of that group finds its answers there and, when all it writes is its
 * event, runs without a round trip: its insert waits, with those of the units after it, for one
 * multi-row INSERT sent before the batch's next statement. A unit that changes what probes answer
 * drops them, and an event already waiting to be inserted is probed again after that insert, so
 * every unit still decides on what the units before it left. Should the database refuse such an
 * INSERT, nothing of it remains and its units (with those decided after them) run again one by
 * one, so only the refused one fails.
 *
 * Locks: each unit first takes its group's advisory lock, held until its batch commits. The first
 * unit of a batch waits for it; a later one only tries it, and when another transaction (another
 * process) holds it, the batch commits first and the unit opens the next batch, so a batch never
 * waits for a lock while holding the locks of earlier units (two processes' batches cannot
 * deadlock on group locks). A unit that still meets a deadlock is rolled back to its savepoint,
 * the batch commits without it, and it runs again first in the next one.
 *
 * Notifications of the batch's units go out right before its COMMIT, in the same round trip.
 *
 * @example
 * const batcher = new PgBatcher(pool, 'roost_events', sql)
 * batcher.push({ groupId: 'general', lockKey: 'g:general', run: async (q) => ({ notices: [] }), committed: () => ok(), failed: (e) => no(e) })
 */
export class PgBatcher {
  private readonly lanes: Lane[]
  /** The lane each group with units queued or running is bound to, and how many it has there. */
  private readonly bound = new Map<string, { lane: Lane; units: number }>()

  constructor(pool: pg.Pool, channel: string, sql: BatchSql, lanes = LANES) {
    this.lanes = Array.from({ length: lanes }, () => new Lane(pool, channel, sql))
  }

  /**
   * Queues a unit; it runs after every unit of its group queued before it. A group stays in one lane
   * while it has units there; otherwise it goes to the lane with the fewest units waiting.
   */
  push(unit: BatchUnit): void {
    const key = unit.groupId ?? ''
    let entry = this.bound.get(key)
    if (!entry) {
      let lane = this.lanes[0] as Lane
      for (const l of this.lanes) if (l.load < lane.load) lane = l
      entry = { lane, units: 0 }
      this.bound.set(key, entry)
    }
    entry.units++
    const bound = entry
    const release = () => {
      if (--bound.units === 0 && this.bound.get(key) === bound) this.bound.delete(key)
    }
    bound.lane.push({
      ...unit,
      committed: () => {
        release()
        unit.committed()
      },
      failed: (err) => {
        release()
        unit.failed(err)
      },
    })
  }
}

/** A queued unit: `plain` runs it without deferring its insert (after a batch insert failed). */
interface Job {
  unit: BatchUnit
  tries: number
  plain?: boolean
}

/** The state of one open batch. */
interface OpenBatch {
  /** Units run and kept, to answer at the COMMIT, with their notifications. */
  done: { job: Job; notices: string[] }[]
  /** What earlier units left for later ones. */
  shared: Map<string, unknown>
  /** BEGIN was sent. */
  begun: boolean
  /** Group locks the transaction holds (taken by units that succeeded). */
  held: Set<string>
  /** Probe rows by event id, read under the lock of the event's group. */
  probes: Map<string, Record<string, unknown>>
  /** Deferred inserts not sent yet, in order, and the ids they store. */
  pending: unknown[]
  pendingIds: Set<string>
  pendingBytes: number
  /** Where the units since the last statement begin in `done`, and `shared` as it was there. */
  since: { at: number; shared: Map<string, unknown> } | undefined
}

/** A batch insert failed: its units run again, one by one. */
class InsertFailed extends Error {}

/** One lane of the {@link PgBatcher}: its units in call order, a batch at a time. */
class Lane {
  private readonly queue: Job[] = []
  /** The lane runs (a batch is open or about to be). */
  private running: Promise<void> | undefined
  private lastCommit = Number.NEGATIVE_INFINITY
  private lastUnits = 0
  /** The open batch's last savepoint is not released yet. */
  private pendingRelease = false
  /** Wakes a batch waiting for more units. */
  private wake: (() => void) | undefined

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly sql: BatchSql,
  ) {}

  /** Units queued and not yet answered. */
  load = 0

  /** Queues a unit; it runs after every unit queued before it. */
  push(given: BatchUnit): void {
    this.load++
    const unit: BatchUnit = {
      ...given,
      committed: () => {
        this.load--
        given.committed()
      },
      failed: (err) => {
        this.load--
        given.failed(err)
      },
    }
    this.queue.push({ unit, tries: 0 })
    this.wake?.()
    this.running ??= this.lane().finally(() => {
      this.running = undefined
      if (this.queue.length > 0) this.running = this.lane()
    })
  }

  private async lane(): Promise<void> {
    while (this.queue.length > 0) await this.batch()
  }

  /** Waits a turn (or, under load, up to the gather window) for more units; true when one came. */
  private more(started: number): Promise<boolean> {
    if (this.queue.length > 0) return Promise.resolve(true)
    const busy = this.lastUnits >= BUSY_UNITS && performance.now() - this.lastCommit < BUSY_MS
    const wait = busy ? Math.max(0, GATHER_MS - (performance.now() - started)) : 0
    return new Promise((resolve) => {
      const done = () => {
        this.wake = undefined
        clearTimeout(timer)
        resolve(this.queue.length > 0)
      }
      const timer = busy && wait > 0 ? setTimeout(done, wait) : undefined
      if (timer === undefined) setImmediate(done)
      else this.wake = done
    })
  }

  /** A unit can run without a round trip of its own: its group is locked and its event probed. */
  private ready(job: Job, open: OpenBatch): boolean {
    const { unit } = job
    return (
      !job.plain &&
      unit.lockKey !== undefined &&
      unit.about !== undefined &&
      open.held.has(unit.lockKey) &&
      open.probes.has(unit.about.id) &&
      !open.pendingIds.has(unit.about.id)
    )
  }

  /** Opens a transaction, runs queued units until the queue stays dry, commits, answers. */
  private async batch(): Promise<void> {
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (err) {
      for (const { unit } of this.queue.splice(0)) unit.failed(err)
      return
    }
    client.on('error', ignore)
    const open: OpenBatch = {
      done: [],
      shared: new Map(),
      begun: false,
      held: new Set(),
      probes: new Map(),
      pending: [],
      pendingIds: new Set(),
      pendingBytes: 0,
      since: undefined,
    }
    const { done } = open
    this.pendingRelease = false
    /** The unit under way, rejected with the batch if its connection fails. */
    let current: Job | undefined
    let broken: unknown
    const started = performance.now()
    try {
      for (;;) {
        const job = this.queue[0]
        if (!job) {
          if (done.length > 0 && (await this.more(started))) continue
          // The deferred inserts go out with the COMMIT; should they fail, their units run again.
          if (await this.finish(client, open)) break
          continue
        }
        const ready = this.ready(job, open)
        if (!ready && open.pending.length > 0 && !(await this.flush(client, open))) continue
        current = job
        const outcome = ready
          ? await this.runReady(client, job, open)
          : await this.runOne(client, job, done.length === 0, open)
        current = undefined
        if (outcome === 'requeued') continue
        if (outcome === 'again') {
          if (await this.finish(client, open)) break
          continue
        }
        this.queue.shift()
        if (outcome === 'failed') continue
        if (job.unit.lockKey !== undefined) open.held.add(job.unit.lockKey)
        if (outcome.stale) open.probes.clear()
        if (job.unit.about) open.probes.delete(job.unit.about.id)
        if (outcome.deferred) open.since ??= { at: done.length, shared: outcome.shared }
        done.push({ job, notices: outcome.notices })
        if (outcome.deferred) {
          open.pending.push(outcome.deferred.row)
          open.pendingIds.add(outcome.deferred.id)
          open.pendingBytes += outcome.deferred.bytes
          if (open.pendingBytes >= PENDING_BYTES) await this.flush(client, open)
        }
        if (done.length >= MAX_UNITS && (await this.finish(client, open))) break
      }
    } catch (err) {
      await client.query('ROLLBACK').catch((e: unknown) => {
        broken = e
      })
      client.off('error', ignore)
      client.release(broken instanceof Error ? broken : true)
      if (current && this.queue[0] === current) this.queue.shift()
      current?.unit.failed(err)
      for (const { job } of done) job.unit.failed(err)
      return
    }
    client.off('error', ignore)
    client.release()
    this.lastCommit = performance.now()
    this.lastUnits = done.length
    for (const { job } of done) job.unit.committed()
  }

  /**
   * Sends the deferred inserts in one statement (after the last savepoint's RELEASE, in a savepoint
   * of its own); true when they were stored. When the database refuses them, nothing of them
   * remains and every unit since the batch's last statement goes back to the front of the queue, to
   * run again one by one (each then inserting itself, so only a refused one fails): a later unit
   * may have decided on an earlier one's row. Throws when the connection is unusable.
   */
  private async flush(q: pg.PoolClient, open: OpenBatch): Promise<boolean> {
    const text = this.sql.insert(open.pending, literal)
    const release = this.pendingRelease ? 'RELEASE SAVEPOINT unit; ' : ''
    this.pendingRelease = false
    try {
      await q.query(`${release}SAVEPOINT batch; ${text}; RELEASE SAVEPOINT batch`)
      this.inserted(open)
      return true
    } catch {
      await q.query('ROLLBACK TO SAVEPOINT batch; RELEASE SAVEPOINT batch')
      this.requeue(open)
      return false
    }
  }

  /** The deferred inserts are in. */
  private inserted(open: OpenBatch): void {
    open.pending = []
    open.pendingIds.clear()
    open.pendingBytes = 0
    open.since = undefined
  }

  /** The deferred inserts were refused: their units, and those decided after them, run again. */
  private requeue(open: OpenBatch): void {
    const since = open.since
    this.inserted(open)
    open.probes.clear()
    if (!since) return
    const back = open.done.splice(since.at)
    this.queue.unshift(...back.map(({ job }) => ({ ...job, plain: true })))
    open.shared.clear()
    for (const [k, v] of since.shared) open.shared.set(k, v)
  }

  /**
   * Ends the batch in one round trip: the last RELEASE, the deferred inserts (in a savepoint of
   * their own), the notifications, the COMMIT. False when the database refused the inserts: nothing
   * else of the round trip ran, the transaction goes on, and their units were queued again.
   */
  private async finish(q: pg.PoolClient, open: OpenBatch): Promise<boolean> {
    const parts: string[] = []
    if (this.pendingRelease) parts.push('RELEASE SAVEPOINT unit')
    this.pendingRelease = false
    const inserting = open.pending.length > 0
    if (inserting)
      parts.push('SAVEPOINT batch', this.sql.insert(open.pending, literal), 'RELEASE SAVEPOINT batch')
    const notices = open.done.flatMap((d) => d.notices)
    if (notices.length > 0)
      parts.push(
        `SELECT pg_notify(${literal(this.channel)}, n) FROM unnest(ARRAY[${notices
          .map(literal)
          .join(', ')}]::text[]) WITH ORDINALITY AS x (n, i) ORDER BY i`,
      )
    if (open.begun) parts.push('COMMIT')
    try {
      if (parts.length > 0) await q.query(parts.join('; '))
      this.inserted(open)
      return true
    } catch (err) {
      if (!inserting) throw err
      // Only while the inserts' savepoint stands did they fail; past it (the notifications, the
      // COMMIT) the batch fails as a whole.
      await q.query('ROLLBACK TO SAVEPOINT batch; RELEASE SAVEPOINT batch').catch(() => {
        throw err
      })
      this.requeue(open)
      return false
    }
  }

  /**
   * Runs a unit whose group the batch holds and whose event it probed, with no round trip of its
   * own unless it issues a statement: then the deferred inserts go first, then its savepoint.
   */
  private async runReady(
    client: pg.PoolClient,
    job: Job,
    open: OpenBatch,
  ): Promise<(UnitRun & { shared: Map<string, unknown> }) | 'failed' | 'again' | 'requeued'> {
    const { unit } = job
    const { shared } = open
    const shared0 = new Map(shared)
    let opened = false
    const q = {
      query: (async (...args: unknown[]) => {
        if (!opened) {
          if (open.pending.length > 0 && !(await this.flush(client, open))) throw new InsertFailed()
          const release = this.pendingRelease ? 'RELEASE SAVEPOINT unit; ' : ''
          this.pendingRelease = false
          await client.query(`${release}SAVEPOINT unit`)
          opened = true
        }
        return (client.query as (...a: unknown[]) => unknown)(...args)
      }) as pg.PoolClient['query'],
    }
    try {
      const ran = await unit.run(q, shared, open.probes.get(unit.about?.id ?? ''), true)
      if (opened) this.pendingRelease = true
      return { ...ran, shared: shared0 }
    } catch (err) {
      // The units before it go again first (the batch's view is theirs again); this one, untouched, after them.
      if (err instanceof InsertFailed) return 'requeued'
      shared.clear()
      for (const [k, v] of shared0) shared.set(k, v)
      if (opened) await client.query('ROLLBACK TO SAVEPOINT unit; RELEASE SAVEPOINT unit')
      if (isRetryable(err) && job.tries < RETRIES) {
        job.tries++
        return 'again'
      }
      unit.failed(err)
      return 'failed'
    }
  }

  /**
   * Runs one unit in its savepoint: its notices, `'failed'` (rolled back and rejected), or
   * `'again'` (rolled back, to run first in the next batch). Throws when the connection is unusable.
   */
  private async runOne(
    q: pg.PoolClient,
    job: Job,
    first: boolean,
    open: OpenBatch,
  ): Promise<(UnitRun & { shared: Map<string, unknown> }) | 'failed' | 'again'> {
    const { unit } = job
    const { shared } = open
    // One round trip: the transaction's BEGIN (first unit) or the previous unit's RELEASE, this
    // unit's SAVEPOINT, its group's lock, and the probe of its event and of the queued events of
    // its group after it.
    const parts: string[] = []
    if (!open.begun) parts.push('BEGIN')
    open.begun = true
    if (this.pendingRelease) parts.push('RELEASE SAVEPOINT unit')
    this.pendingRelease = false
    parts.push('SAVEPOINT unit')
    const held = unit.lockKey !== undefined && open.held.has(unit.lockKey)
    const locking = unit.lockKey !== undefined && !held ? parts.length : -1
    if (unit.lockKey !== undefined && !held)
      parts.push(
        `SELECT pg_${first ? '' : 'try_'}advisory_xact_lock(hashtextextended(${literal(unit.lockKey)}, 0)) AS ok`,
      )
    const prefetch =
      unit.groupId !== undefined && locking >= 0 ? this.sql.prefetch(unit.groupId, literal) : []
    const fetched = parts.length
    parts.push(...prefetch)
    const probing: Probe[] = []
    if (unit.about) {
      probing.push(unit.about)
      if (unit.lockKey !== undefined && !job.plain)
        for (const next of this.queue) {
          if (probing.length >= LOOKAHEAD) break
          if (next === job || next.plain || next.unit.lockKey !== unit.lockKey || !next.unit.about) continue
          if (open.pendingIds.has(next.unit.about.id)) continue
          probing.push(next.unit.about)
        }
      parts.push(this.sql.probe(probing, literal))
    }
    const shared0 = new Map(shared)
    try {
      const answer = (await q.query(parts.join('; '))) as unknown as pg.QueryResult | pg.QueryResult[]
      const results = Array.isArray(answer) ? answer : [answer]
      if (locking >= 0 && !first && results[locking]?.rows[0]?.ok !== true) throw new Busy()
      if (prefetch.length > 0 && unit.groupId !== undefined)
        this.sql.absorb(unit.groupId, results.slice(fetched, fetched + prefetch.length), shared)
      let probed: Record<string, unknown> | undefined
      if (unit.about) {
        for (const row of (results[results.length - 1] as pg.QueryResult).rows as Record<string, unknown>[])
          open.probes.set(row.probe_id as string, row)
        probed = open.probes.get(unit.about.id)
      }
      const ran = await unit.run(q, shared, probed, !job.plain)
      this.pendingRelease = true
      return { ...ran, shared: shared0 }
    } catch (err) {
      // Probes read in a failed round trip (or before a refused lock) are not kept.
      for (const p of probing) open.probes.delete(p.id)
      // What the unit left for later units is dropped with it.
      shared.clear()
      for (const [k, v] of shared0) shared.set(k, v)
      // Locks the unit took are released with its savepoint; an unusable connection throws here.
      await q.query('ROLLBACK TO SAVEPOINT unit; RELEASE SAVEPOINT unit')
      if (err instanceof Busy) return 'again'
      if (isRetryable(err) && job.tries < RETRIES) {
        job.tries++
        // Alone in a batch, it waits for locks holding none; otherwise the batch commits first.
        return first ? this.runOne(q, job, true, open) : 'again'
      }
      unit.failed(err)
      return 'failed'
    }
  }
}
