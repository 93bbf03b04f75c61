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
  /**
   * Runs the unit inside its savepoint on the batch's connection; resolves to the NOTIFY payloads
   * it leaves for the batch to send right before its COMMIT, in order. `shared` is the batch's own
   * (what earlier units of the batch left for later ones, e.g. records read under locks it holds).
   */
  run(q: pg.PoolClient, shared: Map<string, unknown>): Promise<string[]>
  /** The batch holding the unit committed: answer it. */
  committed(): void
  /** The unit failed, or its batch did not commit: reject it (nothing of it remains). */
  failed(err: unknown): void
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
 * its own SAVEPOINT (a unit that throws leaves
 * nothing of itself; the others stay). The COMMIT comes once the queue ran dry for a turn of the
 * event loop (under load a little later, {@link GATHER_MS}); every unit is answered only after it,
 * so nothing is acknowledged before it is durable, and a failed COMMIT rejects every unit of its
 * batch.
 *
 * Locks: each unit first takes its group's advisory lock, held until its batch commits. The first
 * unit of a batch waits for it; a later one only tries it, and when another transaction (another
 * process) holds it, the batch commits first and the unit opens the next batch, so a batch never
 * waits for a lock while holding the locks of earlier units (two processes' batches cannot
 * deadlock on group locks). A unit that still meets a deadlock is rolled back to its savepoint,
 * the batch commits without it, and it runs again first in the next one.
 *
 * Notifications of the batch's units go out in one statement right before its COMMIT.
 *
 * @example
 * const batcher = new PgBatcher(pool, 'roost_events')
 * batcher.push({ groupId: 'general', lockKey: 'g:general', run: async (q) => [...], committed: () => ok(), failed: (e) => no(e) })
 */
export class PgBatcher {
  private readonly lanes: Lane[]
  /** The lane each group with units queued or running is bound to, and how many it has there. */
  private readonly bound = new Map<string, { lane: Lane; units: number }>()

  constructor(pool: pg.Pool, channel: string, lanes = LANES) {
    this.lanes = Array.from({ length: lanes }, () => new Lane(pool, channel))
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

/** One lane of the {@link PgBatcher}: its units in call order, a batch at a time. */
class Lane {
  private readonly queue: { unit: BatchUnit; tries: number }[] = []
  /** The lane runs (a batch is open or about to be). */
  private running: Promise<void> | undefined
  private lastCommit = Number.NEGATIVE_INFINITY
  private lastUnits = 0
  /** The open batch's last unit succeeded and its savepoint is not released yet. */
  private pendingRelease = false
  /** Wakes a batch waiting for more units. */
  private wake: (() => void) | undefined

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
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
    const done: BatchUnit[] = []
    const notices: string[] = []
    const shared = new Map<string, unknown>()
    /** The last unit's savepoint is still to be released (with the next statement sent). */
    this.pendingRelease = false
    /** The unit under way, rejected with the batch if its connection fails. */
    let current: { unit: BatchUnit; tries: number } | undefined
    let broken: unknown
    const started = performance.now()
    try {
      await client.query('BEGIN')
      for (;;) {
        const job = this.queue[0]
        if (!job) {
          if (done.length > 0 && (await this.more(started))) continue
          break
        }
        current = job
        const outcome = await this.runOne(client, job, done.length === 0, shared)
        current = undefined
        if (outcome === 'again') break
        this.queue.shift()
        if (outcome === 'failed') continue
        done.push(job.unit)
        notices.push(...outcome)
        if (done.length >= MAX_UNITS) break
      }
      if (this.pendingRelease) await client.query('RELEASE SAVEPOINT unit')
      if (notices.length > 0)
        await client.query(
          'SELECT pg_notify($1, n) FROM unnest($2::text[]) WITH ORDINALITY AS x (n, i) ORDER BY i',
          [this.channel, notices],
        )
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK').catch((e: unknown) => {
        broken = e
      })
      client.off('error', ignore)
      client.release(broken instanceof Error ? broken : true)
      if (current && this.queue[0] === current) this.queue.shift()
      current?.unit.failed(err)
      for (const unit of done) unit.failed(err)
      return
    }
    client.off('error', ignore)
    client.release()
    this.lastCommit = performance.now()
    this.lastUnits = done.length
    for (const unit of done) unit.committed()
  }

  /**
   * Runs one unit in its savepoint: its notices, `'failed'` (rolled back and rejected), or
   * `'again'` (rolled back, to run first in the next batch). Throws when the connection is unusable.
   */
  private async runOne(
    q: pg.PoolClient,
    job: { unit: BatchUnit; tries: number },
    first: boolean,
    shared: Map<string, unknown>,
  ): Promise<string[] | 'failed' | 'again'> {
    const { unit } = job
    // One round trip: the previous unit's RELEASE, this one's SAVEPOINT and its group's lock.
    let text = this.pendingRelease ? 'RELEASE SAVEPOINT unit; SAVEPOINT unit' : 'SAVEPOINT unit'
    this.pendingRelease = false
    if (unit.lockKey !== undefined)
      text += `; SELECT pg_${first ? '' : 'try_'}advisory_xact_lock(hashtextextended(${q.escapeLiteral(unit.lockKey)}, 0)) AS ok`
    const shared0 = new Map(shared)
    try {
      const results = (await q.query(text)) as unknown as pg.QueryResult | pg.QueryResult[]
      const last = Array.isArray(results) ? results[results.length - 1] : results
      if (unit.lockKey !== undefined && !first && last?.rows[0]?.ok !== true) throw new Busy()
      const notes = await unit.run(q, shared)
      this.pendingRelease = true
      return notes
    } catch (err) {
      // What the unit left for later units is dropped with it.
      shared.clear()
      for (const [k, v] of shared0) shared.set(k, v)
      // Locks the unit took are released with its savepoint; an unusable connection throws here.
      await q.query('ROLLBACK TO SAVEPOINT unit; RELEASE SAVEPOINT unit')
      if (err instanceof Busy) return 'again'
      if (isRetryable(err) && job.tries < RETRIES) {
        job.tries++
        // Alone in a batch, it waits for locks holding none; otherwise the batch commits first.
        return first ? this.runOne(q, job, true, shared) : 'again'
      }
      unit.failed(err)
      return 'failed'
    }
  }
}
