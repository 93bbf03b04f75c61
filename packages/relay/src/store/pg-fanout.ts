import type { NostrEvent } from 'nostr-tools'
import pg from 'pg'

/** How long the listener waits before it connects again after its connection dropped, ms. */
const RETRY_MS = 500
/**
 * How often the catch-up floor advances while the listener holds, ms. It is also the bound this
 * relies on: a unit stays between its INSERT and its COMMIT for less than this long.
 */
export const SAMPLE_MS = 5_000
/** Events read per query of a catch-up. */
const PAGE = 500

const ignore = () => {}

/** What the {@link FanoutListener} hands to its store. */
export interface ListenerHooks {
  /** A notification on the channel, in the order the server sent them (commit order). */
  heard(payload: string): void
  /**
   * A new connection after one dropped is about to LISTEN: `listening` resolves once it does (or
   * rejects when it fails), before any of its notifications is heard. What committed in between
   * was heard by no one here.
   */
  resuming(listening: Promise<void>): void
}

/**
 * The connection that LISTENs, outside the pool. When it drops (a database restart, a network
 * fault, a terminated backend) it connects again every {@link RETRY_MS} ms until it holds, one
 * attempt at a time, and tells its store before each new LISTEN so the store can catch up.
 *
 * @example
 * const listener = new FanoutListener({ connectionString: url }, 'roost_events', {
 *   heard: (payload) => handle(payload),
 *   resuming: (listening) => listening.then(catchUp, () => {}),
 * })
 * await listener.start()
 */
export class FanoutListener {
  private client: pg.Client | undefined
  private retry: NodeJS.Timeout | undefined
  private closed = false
  /** The first LISTEN held: from then on a lost connection is replaced. */
  private started = false
  /** True while a connection LISTENs. */
  private holding = false
  /** Counts the connections lost: a sample taken across a loss is not trusted. */
  private losses = 0

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly hooks: ListenerHooks,
    private readonly log: (line: string) => void = ignore,
  ) {}

  /** True while a connection LISTENs. */
  get up(): boolean {
    return this.holding
  }
  /** Changes whenever a connection is lost. */
  get epoch(): number {
    return this.losses
  }

  /** The first LISTEN; rejects when it fails (the store does not open). */
  start(): Promise<void> {
    return this.connect(false)
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.retry)
    const client = this.client
    this.client = undefined
    this.holding = false
    await client?.end().catch(ignore)
  }

  private async connect(resume: boolean): Promise<void> {
    const client = new pg.Client(this.config)
    this.client = client
    client.on('error', () => this.lost(client))
    client.on('end', () => this.lost(client))
    client.on('notification', (n) => {
      if (n.channel === this.channel && n.payload !== undefined) this.hooks.heard(n.payload)
    })
    try {
      await client.connect()
      const listening = client.query(`LISTEN ${this.channel}`).then(ignore)
      if (resume) this.hooks.resuming(listening)
      await listening
    } catch (err) {
      this.lost(client)
      throw err
    }
    if (this.client !== client) return
    this.holding = true
    this.started = true
  }

  /** The connection dropped, or never held: one new attempt after {@link RETRY_MS}. */
  private lost(client: pg.Client): void {
    if (this.client !== client) return
    this.client = undefined
    if (this.holding) this.losses++
    this.holding = false
    client.end().catch(ignore)
    if (this.closed || !this.started || this.retry !== undefined) return
    this.retry = setTimeout(() => {
      this.retry = undefined
      if (this.closed) return
      this.connect(true).catch((err: unknown) => this.log(`fan-out listener: ${(err as Error).message}`))
    }, RETRY_MS)
  }
}

/**
 * What one process has handed to its live subscriptions lately, and where a catch-up after a
 * lost LISTEN starts reading (`events.seq`). Notifications carry no sequence number, and a `seq`
 * is drawn at INSERT, not at COMMIT, so the floor is a sample of `max(seq)` at least
 * {@link SAMPLE_MS} old: every event above it that was heard here is still remembered (by id, so a
 * catch-up hands none out twice), and every event at or below it had committed, and been heard,
 * before the connection dropped.
 *
 * @example
 * const delivered = new Delivered(pool)
 * await delivered.sample(() => true) // after the first LISTEN
 * if (delivered.first(event.id)) broadcast(event)
 * for await (const page of delivered.missed()) for (const e of page) if (delivered.first(e.id)) broadcast(e)
 */
export class Delivered {
  /** Ids handed out (or committed here), with when, oldest first. */
  private readonly recent = new Map<string, number>()
  private floor = 0
  /** When the floor's sample was taken. */
  private floorAt = Number.NEGATIVE_INFINITY
  /** The last sample, the next floor. */
  private next: { seq: number; at: number } | undefined

  constructor(
    private readonly pool: Pick<pg.Pool, 'query'>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Records an id; true the first time (hand the event out), false for one already handed out. */
  first(id: string): boolean {
    if (this.recent.has(id)) return false
    this.recent.set(id, this.now())
    return true
  }

  /**
   * Samples the newest `seq`. The first sample is the floor; later ones move the floor to the
   * previous sample, and only when `steady()` held (the listener did not drop meanwhile).
   */
  async sample(steady: () => boolean): Promise<void> {
    const at = this.now()
    const { rows } = await this.pool.query<{ seq: number | string | null }>(
      'SELECT max(seq) AS seq FROM events',
    )
    const seq = Number(rows[0]?.seq ?? 0)
    if (!steady()) return
    if (this.next === undefined) {
      this.floor = seq
      this.floorAt = at
    } else {
      this.floor = this.next.seq
      this.floorAt = this.next.at
    }
    this.next = { seq, at }
    // Events above the floor were drawn after its sample (or while a unit was under way then).
    const keepFrom = this.floorAt - SAMPLE_MS
    for (const [id, when] of this.recent) {
      if (when >= keepFrom) break
      this.recent.delete(id)
    }
  }

  /** The stored events above the floor, oldest `seq` first, a page at a time. */
  async *missed(): AsyncGenerator<NostrEvent[]> {
    let after = this.floor
    for (;;) {
      const { rows } = await this.pool.query<{ seq: number | string; json: string }>(
        'SELECT seq, json FROM events WHERE seq > $1 ORDER BY seq LIMIT $2',
        [after, PAGE],
      )
      if (rows.length === 0) return
      yield rows.map((r) => JSON.parse(r.json) as NostrEvent)
      after = Number(rows[rows.length - 1]?.seq)
      if (rows.length < PAGE) return
    }
  }
}
