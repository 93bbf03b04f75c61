import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

type Param = string | number

/**
 * The thread: its own read-only connection to the file, one statement per request (prepared once
 * per SQL text, a small LRU), answered with the rows or the error's message.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.sqlite)
const db = new Database(workerData.path, { readonly: true, fileMustExist: true })
const cache = new Map()
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close()
    parentPort.close()
    return
  }
  try {
    let stmt = cache.get(m.sql)
    if (stmt) cache.delete(m.sql)
    else {
      stmt = db.prepare(m.sql)
      if (cache.size >= 64) cache.delete(cache.keys().next().value)
    }
    cache.set(m.sql, stmt)
    parentPort.postMessage({ id: m.id, rows: stmt.all(...m.params) })
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message) })
  }
})
`

/**
 * Searches on a thread of their own. A word-prefix search can make SQLite merge the index lists of
 * every word with that prefix before the first row comes out (tens of milliseconds for a common
 * four-letter prefix among a million events), and that work cannot be cut into steps; on this
 * thread, with its own read-only connection to the WAL file, it never holds the relay's event loop.
 * A statement sees every transaction committed before it starts, so a search sent after the units
 * queued before its REQ committed sees their rows, as a read on the writer's connection would.
 * The thread starts with the first search; if it fails, searches run on the writer's thread again.
 *
 * @example
 * const thread = new SearchThread('/var/lib/roost/relay.db')
 * const rows = await thread.all('SELECT … WHERE events_search MATCH ?', ['"pizza"*'])
 * await thread.close()
 */
export class SearchThread {
  private worker: Worker | undefined
  private readonly waiting = new Map<number, { resolve(rows: unknown[]): void; reject(err: Error): void }>()
  private next = 0
  /** The thread could not start or died: callers run their statement themselves. */
  failed = false
  private closed = false

  constructor(private readonly path: string) {}

  /** True when statements can be sent to the thread. */
  get usable(): boolean {
    return !this.failed && !this.closed
  }

  /** Runs one read-only statement on the thread. */
  all<T>(sql: string, params: readonly Param[]): Promise<T[]> {
    const worker = this.worker ?? this.start()
    const id = this.next++
    return new Promise<T[]>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (rows: unknown[]) => void, reject })
      worker.postMessage({ id, sql, params })
    })
  }

  /** Stops the thread once its connection is closed. */
  async close(): Promise<void> {
    this.closed = true
    const worker = this.worker
    if (!worker) return
    const exited = new Promise((resolve) => worker.once('exit', resolve))
    worker.postMessage('close')
    await exited
  }

  private start(): Worker {
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3')
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { sqlite, path: this.path } })
    worker.unref()
    worker.on('message', (m: { id: number; rows?: unknown[]; error?: string }) => {
      const w = this.waiting.get(m.id)
      this.waiting.delete(m.id)
      if (m.error !== undefined) w?.reject(new Error(m.error))
      else w?.resolve(m.rows ?? [])
    })
    const fail = (err?: unknown) => {
      this.worker = undefined
      if (!this.closed) this.failed = true
      for (const w of this.waiting.values())
        w.reject(err instanceof Error ? err : new Error('the search thread exited'))
      this.waiting.clear()
    }
    worker.on('error', fail)
    worker.on('exit', () => fail())
    this.worker = worker
    return worker
  }
}
