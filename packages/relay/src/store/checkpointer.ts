import { closeSync, openSync, readSync } from 'node:fs'
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
/**
 * WAL pages past which the writer waits for the thread's checkpoint to end rather than append more
 * (32 MiB): the bound on the WAL when the disk cannot keep up with the writer.
 */
const LIMIT_PAGES = 2 * RESTART_PAGES
/** How long, at most, the writer waits for the thread's checkpoint at {@link LIMIT_PAGES}, ms. */
const WAIT_MS = 2_000
/** How long the thread gets to close its connection and end before it is terminated, ms. */
const STOP_MS = 2_000
/** SQLite's own default, restored when the checkpoint thread fails. */
const AUTOCHECKPOINT_PAGES = 1000
/** The shared flag's values: the thread has nothing to do, or a checkpoint was asked for and has not ended. */
const IDLE = 0
const ASKED = 1

/**
 * The thread: its own connection to the file, one PASSIVE checkpoint per request. PASSIVE never
 * waits for a lock and never blocks the writer; what it cannot copy yet is copied next time. It
 * answers through shared memory, not a message: the writer reads the flag (and may wait on it)
 * without its event loop having to turn.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.sqlite)
const flag = new Int32Array(workerData.flag)
const db = new Database(workerData.path)
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close()
    parentPort.close()
    return
  }
  try { db.pragma('wal_checkpoint(PASSIVE)') } catch {}
  Atomics.store(flag, 0, ${IDLE})
  Atomics.notify(flag, 0)
})
`

/**
 * The WAL's length in frames, read from the WAL-index header SQLite keeps in the `-shm` file
 * (`mxFrame`, a native-endian u32 at byte 16: sqlite.org/walformat.html). One `pread` of 4 bytes:
 * the writer knows the WAL's length after every COMMIT without running a checkpoint to learn it.
 */
class WalLength {
  private fd: number | undefined
  private readonly word = new Uint32Array(1)
  private readonly bytes = new Uint8Array(this.word.buffer)

  constructor(private readonly shm: string) {}

  /** Frames in the WAL now; undefined when the `-shm` file cannot be read. */
  read(): number | undefined {
    try {
      this.fd ??= openSync(this.shm, 'r')
      return readSync(this.fd, this.bytes, 0, 4, 16) === 4 ? (this.word[0] as number) : undefined
    } catch {
      return undefined
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }
}

/**
 * WAL checkpoints on a thread of their own. SQLite's automatic checkpoint runs inside the COMMIT
 * that crosses 1,000 WAL pages, on the writer's thread: it copies those pages into the database
 * file and syncs it, and ingest stalls for that commit. Here the writer's connection turns the
 * automatic checkpoint off and a worker thread with its own connection runs PASSIVE checkpoints,
 * asked for after commits (at most every {@link EVERY_MS} ms), the split SQLite's WAL documentation
 * describes.
 *
 * The writer reads the WAL's length itself after each COMMIT ({@link WalLength}): past
 * {@link RESTART_PAGES} it finishes a checkpoint between two transactions, so the WAL starts over;
 * past {@link LIMIT_PAGES}, when the thread's checkpoint is still copying (so the writer's own
 * cannot run), it waits for that checkpoint to end before the next transaction, the stall SQLite's
 * own checkpoint would impose, only when the disk falls behind. Nothing here waits for the event
 * loop: a writer that commits in a loop that never yields keeps the WAL as small as one that does.
 * The thread starts on the first commit; if it fails, or the WAL's length cannot be read, the
 * writer checkpoints itself again (SQLite's automatic checkpoint).
 *
 * @example
 * const checkpoints = new Checkpointer(db, '/var/lib/roost/relay.db')
 * checkpoints.committed() // after each COMMIT
 * await checkpoints.close() // before closing `db`
 */
export class Checkpointer {
  private worker: Worker | undefined
  /** `[0]`: {@link ASKED} from the request until the thread's checkpoint ended, else {@link IDLE}. */
  private readonly flag = new Int32Array(new SharedArrayBuffer(4))
  private readonly wal: WalLength
  private lastAsked = Number.NEGATIVE_INFINITY
  private failed = false
  private closed = false

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
  ) {
    this.wal = new WalLength(`${path}-shm`)
    db.pragma('wal_autocheckpoint = 0')
  }

  /** A transaction committed: finishes a checkpoint past the threshold, else asks the thread for one. */
  committed(): void {
    if (this.closed || this.failed) return
    const pages = this.wal.read()
    if (pages === undefined) {
      this.fail()
      return
    }
    if (pages >= RESTART_PAGES && this.finish(pages)) return
    if (pages === 0 || Atomics.load(this.flag, 0) === ASKED) return
    const now = performance.now()
    if (now - this.lastAsked < EVERY_MS) return
    const worker = this.worker ?? this.start()
    this.lastAsked = now
    Atomics.store(this.flag, 0, ASKED)
    worker.postMessage(0)
  }

  /**
   * Stops the thread, closing its connection first, so the writer's close can checkpoint and remove
   * the WAL. The thread is unref'd while it works; waiting for its exit refs it again, or an event
   * loop with nothing else to do would end before the exit came (and an `await close()` would never
   * settle). A thread that has not ended within {@link STOP_MS} is terminated.
   */
  async close(): Promise<void> {
    this.closed = true
    this.wal.close()
    const worker = this.worker
    this.worker = undefined
    if (!worker) return
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    worker.ref()
    worker.postMessage('close')
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), STOP_MS)
    })
    if ((await Promise.race([exited, late])) === 'late') await worker.terminate()
    clearTimeout(timer)
  }

  /**
   * The writer's own checkpoint of what the thread has not copied yet; true when it completed (the
   * next transaction starts the WAL over). While the thread's checkpoint holds SQLite's checkpoint
   * lock this one cannot run: below {@link LIMIT_PAGES} it is tried again after the next commit, at
   * the limit the writer first waits for the thread's to end.
   */
  private finish(pages: number): boolean {
    if (this.passive()) return true
    if (pages < LIMIT_PAGES || Atomics.load(this.flag, 0) !== ASKED) return false
    Atomics.wait(this.flag, 0, ASKED, WAIT_MS)
    return this.passive()
  }

  private passive(): boolean {
    const [r] = this.db.pragma('wal_checkpoint(PASSIVE)') as {
      busy: number
      log: number
      checkpointed: number
    }[]
    return r !== undefined && r.busy === 0 && r.checkpointed >= r.log
  }

  private start(): Worker {
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3')
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { sqlite, path: this.path, flag: this.flag.buffer },
    })
    worker.unref()
    const gone = () => {
      if (this.closed) return
      this.worker = undefined // close() has nothing to wait for
      this.fail()
    }
    worker.on('error', gone)
    worker.on('exit', gone)
    this.worker = worker
    return worker
  }

  /** The thread died or the WAL's length cannot be read: SQLite checkpoints on the writer again. */
  private fail(): void {
    if (this.closed || this.failed) return
    this.failed = true
    Atomics.store(this.flag, 0, IDLE)
    this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
  }
}
