import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { NostrEvent } from 'nostr-tools/core'

/** A check waiting for its answer. */
interface Entry {
  readonly event: NostrEvent
  /** The event as JSON, or the `["EVENT", event]` frame that carried it (a string crosses threads faster than an object). */
  readonly json: string
  readonly resolve: (ok: boolean) => void
  readonly reject: (err: unknown) => void
}

/** Entries checked together, on one worker or inline; answered in the order they were submitted. */
interface Chunk {
  readonly entries: Entry[]
  /** 1 = valid, 0 = not; set once answered. */
  ok?: Uint8Array
  /** Set when the inline check threw for an entry (answered as a rejection). */
  errors?: Map<number, unknown>
}

interface PoolWorker {
  readonly thread: Worker
  /** Chunks sent and not yet answered, in the order sent (a worker answers in order). */
  readonly busy: Chunk[]
}

/** Below this many waiting checks, a busy-free pool verifies on the main thread: a round trip costs more. */
const INLINE_BELOW = 4
/**
 * Events per message to a worker, at least: enough that passing them costs little next to checking
 * them (about 5 ms of work). A larger wave is split evenly over the workers, up to {@link CHUNK_MAX}
 * per message, so every worker gets a share and the first answers come back while the rest are
 * still being checked (the main thread stores one chunk while the workers check the next).
 */
const CHUNK = 8
/** Events per message to a worker, at most. */
const CHUNK_MAX = 32
/** After this many worker failures the pool stops spawning and verifies inline. */
const MAX_FAILURES = 8

/** The worker: nostr-wasm, one message per chunk of JSON events, one byte per answer. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
import(workerData.nostrWasm).then(async ({ initNostrWasm }) => {
  const nw = await initNostrWasm()
  parentPort.on('message', (events) => {
    const ok = new Uint8Array(events.length)
    for (let i = 0; i < events.length; i++) {
      try {
        const parsed = JSON.parse(events[i])
        nw.verifyEvent(Array.isArray(parsed) ? parsed[1] : parsed)
        ok[i] = 1
      } catch {}
    }
    parentPort.postMessage(ok, [ok.buffer])
  })
})
`

/** Options of {@link VerifyPool}. */
export interface VerifyPoolOptions {
  /** Worker threads; 0 verifies everything inline. One per core by default. */
  workers?: number
  /** The inline check (the relay's default verifier); also the fallback when a worker fails. */
  inline: (event: NostrEvent) => boolean
}

/**
 * Signature checks spread over worker threads running nostr-wasm, so ingest uses every core.
 *
 * Checks submitted in one turn of the event loop are batched ({@link CHUNK} to {@link CHUNK_MAX} per message) and answered strictly in submission order, whichever worker finishes first, so the
 * order in which events reach the intake (and so each group's order of acceptance) is the order
 * they arrived. With few checks waiting and no worker busy, it checks inline: a round trip to a
 * worker would cost more than it saves. Workers start on first need; one that fails has its
 * checks redone inline and is replaced.
 *
 * @example
 * const pool = new VerifyPool({ workers: 2, inline: await defaultVerifier() })
 * await pool.check(event) // true when the id and the signature are right
 * await pool.close()
 */
export class VerifyPool {
  /** How many worker threads the pool runs at most. */
  readonly size: number
  private readonly inline: (event: NostrEvent) => boolean
  private readonly workers: PoolWorker[] = []
  private waiting: Entry[] = []
  private readonly order: Chunk[] = []
  private scheduled = false
  private failures = 0
  private closed = false

  constructor(opts: VerifyPoolOptions) {
    const n = opts.workers ?? availableParallelism()
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError('workers must be a whole number ≥ 0')
    this.size = n
    this.inline = opts.inline
  }

  /**
   * Resolves to true when the event's id and signature are right. `json` is the event as JSON, or
   * the `["EVENT", event]` frame it was parsed from, when at hand (it saves serializing it again).
   */
  check(event: NostrEvent, json?: string): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.waiting.push({ event, json: json ?? JSON.stringify(event), resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => this.dispatch())
      }
    })
  }

  /** Checks submitted and not yet answered (the metrics' verify queue depth). */
  get depth(): number {
    let n = this.waiting.length
    for (const chunk of this.order) n += chunk.entries.length
    return n
  }

  /** Stops the workers; checks still out are redone inline. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all(this.workers.map((w) => w.thread.terminate()))
  }

  private dispatch(): void {
    this.scheduled = false
    const entries = this.waiting
    this.waiting = []
    if (entries.length === 0) return
    const busy = this.workers.some((w) => w.busy.length > 0)
    if (
      this.closed ||
      this.size === 0 ||
      this.failures >= MAX_FAILURES ||
      (!busy && entries.length < INLINE_BELOW)
    ) {
      const chunk: Chunk = { entries }
      this.order.push(chunk)
      this.checkInline(chunk)
      this.drain()
      return
    }
    while (this.workers.length < this.size) this.spawn()
    const per = Math.min(CHUNK_MAX, Math.max(CHUNK, Math.ceil(entries.length / this.workers.length)))
    for (let i = 0; i < entries.length; i += per) {
      const chunk: Chunk = { entries: entries.slice(i, i + per) }
      this.order.push(chunk)
      // The least busy worker takes it.
      let w = this.workers[0] as PoolWorker
      for (const x of this.workers) if (x.busy.length < w.busy.length) w = x
      w.busy.push(chunk)
      w.thread.postMessage(chunk.entries.map((e) => e.json))
    }
  }

  private spawn(): void {
    const nostrWasm = pathToFileURL(createRequire(import.meta.url).resolve('nostr-wasm')).href
    const thread = new Worker(WORKER_SOURCE, { eval: true, workerData: { nostrWasm } })
    thread.unref()
    const w: PoolWorker = { thread, busy: [] }
    this.workers.push(w)
    thread.on('message', (ok: Uint8Array) => {
      const chunk = w.busy.shift()
      if (!chunk) return
      chunk.ok = ok
      this.drain()
    })
    const fail = () => {
      const at = this.workers.indexOf(w)
      if (at < 0) return
      this.workers.splice(at, 1)
      if (!this.closed) this.failures++
      // Whatever it still held is checked here instead: every submitted check gets one answer.
      for (const chunk of w.busy.splice(0)) this.checkInline(chunk)
      this.drain()
    }
    thread.on('error', fail)
    thread.on('exit', fail)
  }

  private checkInline(chunk: Chunk): void {
    const ok = new Uint8Array(chunk.entries.length)
    chunk.entries.forEach((e, i) => {
      try {
        ok[i] = this.inline(e.event) ? 1 : 0
      } catch (err) {
        chunk.errors ??= new Map()
        chunk.errors.set(i, err)
      }
    })
    chunk.ok = ok
  }

  /** Answers the answered chunks at the head of the line, in submission order. */
  private drain(): void {
    while (this.order[0]?.ok) {
      const chunk = this.order.shift() as Chunk
      const ok = chunk.ok as Uint8Array
      chunk.entries.forEach((e, i) => {
        if (chunk.errors?.has(i)) e.reject(chunk.errors.get(i))
        else e.resolve(ok[i] === 1)
      })
    }
  }
}
