import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'

/** How often, at most, a checkpoint is asked for while commits keep coming, ms. */
const EVERY_MS = 20
/**
 * WAL pages past which the writer finishes a checkpoint itself (16 MiB of 4 KiB pages). The thread's
 * checkpoints alone never let the WAL start over while commits keep coming: each copies what was
 * there when it began, and by its end the writer has appended more. The writer's own checkpoint,
 * between two of its transactions, copies only that remainder and completes, so the next
 * transaction writes the WAL from its start again.
 */
const RESTART_PAGES = 4096
/** SQLite's own default, restored when the checkpoint thread fails. */
const AUTOCHECKPOINT_PAGES = 1000

/**
 * The thread: its own connection to the file, one PASSIVE checkpoint per request, answered with the
 * WAL's length in pages. PASSIVE never waits for a lock and never blocks the writer; what it cannot
 * copy yet is copied next time.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.sqlite)
const db = new Database(workerData.path)
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close()
    parentPort.close()
    return
  }
  let log = 0
  try { log = db.pragma('wal_checkpoint(PASSIVE)')[0].log } catch {}
  parentPort.postMessage(log)
})
`

/**
 * WAL checkpoints on a thread of their own. SQLite's automatic checkpoint runs inside the COMMIT
 * that crosses 1,000 WAL pages, on the writer's thread: it copies those pages into the database
 * file and syncs it, and ingest stalls for that commit. Here the writer's connection turns the
 * automatic checkpoint off and a worker thread with its own connection runs PASSIVE checkpoints,
 * asked for after commits (at most every {@link EVERY_MS} ms), the split SQLite's WAL documentation
 * describes. Past {@link RESTART_PAGES} the writer finishes one itself, so the WAL starts over. The
 * thread starts on the first commit; if it fails, the writer checkpoints itself again.
 *
 * @example
 * const checkpoints = new Checkpointer(db, '/var/lib/roost/relay.db')
 * checkpoints.committed() // after each COMMIT
 * await checkpoints.close() // before closing `db`
 */
export class Checkpointer {
  private worker: Worker | undefined
  private asking = false
  /** The WAL passed {@link RESTART_PAGES}: the writer finishes a checkpoint after its next commit. */
  private finish = false
  private lastAsked = 0
  private failed = false
  private closed = false

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
  ) {
    db.pragma('wal_autocheckpoint = 0')
  }

  /** A transaction committed: asks for a checkpoint unless one runs or ran moments ago. */
  committed(): void {
    if (this.closed || this.failed) return
    if (this.finish) {
      const [r] = this.db.pragma('wal_checkpoint(PASSIVE)') as {
        busy: number
        log: number
        checkpointed: number
      }[]
      // Another checkpoint was running (the thread's): try again after the next commit.
      this.finish = r === undefined || r.busy !== 0 || r.checkpointed < r.log
    }
    if (this.asking) return
    const now = performance.now()
    if (now - this.lastAsked < EVERY_MS) return
    const worker = this.worker ?? this.start()
    this.asking = true
    this.lastAsked = now
    worker.postMessage(0)
  }

  /** Stops the thread, closing its connection first, so the writer's close can checkpoint and remove the WAL. */
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
    worker.on('message', (log: number) => {
      this.asking = false
      if (log >= RESTART_PAGES) this.finish = true
    })
    const fail = () => {
      if (this.closed) return
      this.worker = undefined // gone: close() has nothing to wait for
      this.failed = true
      this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
    }
    worker.on('error', fail)
    worker.on('exit', fail)
    this.worker = worker
    return worker
  }
}
