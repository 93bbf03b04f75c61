import { createHash, randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs'
import { link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

/** What is kept beside each blob: the type it was first uploaded with, its size and when. */
export interface BlobRecord {
  sha256: string
  size: number
  type: string
  /** Unix seconds. */
  uploaded: number
  /** The keys that uploaded it; the blob goes when the last of them deletes it. */
  owners: string[]
}

/** What {@link BlobStore.remove} did. */
export type RemoveResult = 'deleted' | 'released' | 'not-found' | 'not-owner'

/** The body went over the size cap while being received. */
export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`blob larger than ${limit} bytes`)
  }
}

const SHA256 = /^[0-9a-f]{64}$/

/**
 * Content-addressed files under one directory: `<sha256>` holds the bytes, `<sha256>.json` the
 * record. Writes go to a temporary file first and are linked into place only once the hash is
 * known, so a half-received or over-size upload never becomes visible.
 */
export class BlobStore {
  readonly #dir: string
  readonly #tmp: string
  #ready: Promise<void> | undefined
  /** One change at a time per blob (record rewrites, deletion). */
  readonly #locks = new Map<string, Promise<unknown>>()

  constructor(dir: string) {
    this.#dir = dir
    this.#tmp = join(dir, '.incoming')
  }

  #locked<T>(sha256: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(sha256) ?? Promise.resolve()
    const run = before.then(fn, fn)
    const settled = run.catch(() => undefined)
    this.#locks.set(sha256, settled)
    void settled.then(() => {
      if (this.#locks.get(sha256) === settled) this.#locks.delete(sha256)
    })
    return run
  }

  /** Writes a record atomically (temporary file, then rename). */
  async #writeRecord(record: BlobRecord): Promise<void> {
    const temp = join(this.#tmp, `${randomUUID()}.json`)
    await writeFile(temp, JSON.stringify(record))
    await rename(temp, `${this.#file(record.sha256)}.json`)
  }

  #init(): Promise<void> {
    this.#ready ??= mkdir(this.#tmp, { recursive: true }).then(() => undefined)
    return this.#ready
  }

  /**
   * Receives `body` into a temporary file while hashing it; throws {@link BlobTooLargeError} past
   * `limit` bytes. Returns the hash, the size and a `commit` that stores it (keeping the first
   * record of a blob already present) or a `discard`.
   */
  async receive(
    body: Readable,
    limit: number,
  ): Promise<{
    sha256: string
    size: number
    commit: (type: string, now: number, owner: string) => Promise<BlobRecord>
    discard: () => Promise<void>
  }> {
    await this.#init()
    const temp = join(this.#tmp, randomUUID())
    const hash = createHash('sha256')
    let size = 0
    const discard = () => rm(temp, { force: true })
    try {
      await pipeline(
        body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            size += chunk.length
            if (size > limit) throw new BlobTooLargeError(limit)
            hash.update(chunk)
            yield chunk
          }
        },
        createWriteStream(temp, { flags: 'wx' }),
      )
    } catch (err) {
      await discard()
      throw err
    }
    const sha256 = hash.digest('hex')
    const commit = (type: string, now: number, owner: string): Promise<BlobRecord> =>
      this.#locked(sha256, async () => {
        try {
          const existing = await this.get(sha256)
          if (existing !== undefined) {
            if (existing.owners.includes(owner)) return existing
            const updated = { ...existing, owners: [...existing.owners, owner] }
            await this.#writeRecord(updated)
            return updated
          }
          try {
            await link(temp, this.#file(sha256))
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
          }
          const record: BlobRecord = { sha256, size, type, uploaded: now, owners: [owner] }
          await this.#writeRecord(record)
          return record
        } finally {
          await discard()
        }
      })
    return { sha256, size, commit, discard }
  }

  /** The record of a stored blob, or `undefined`. */
  async get(sha256: string): Promise<BlobRecord | undefined> {
    if (!SHA256.test(sha256)) return undefined
    try {
      const [raw, info] = await Promise.all([
        readFile(`${this.#file(sha256)}.json`, 'utf8'),
        stat(this.#file(sha256)),
      ])
      const record = JSON.parse(raw) as Partial<BlobRecord>
      return {
        sha256,
        size: info.size,
        type: typeof record.type === 'string' ? record.type : 'application/octet-stream',
        uploaded: typeof record.uploaded === 'number' ? record.uploaded : Math.floor(info.mtimeMs / 1000),
        owners: Array.isArray(record.owners) ? record.owners.filter((o) => typeof o === 'string') : [],
      }
    } catch {
      return undefined
    }
  }

  /**
   * `owner` lets go of a blob: it is deleted when no other uploader holds it (`'deleted'`),
   * kept for them otherwise (`'released'`).
   */
  remove(sha256: string, owner: string): Promise<RemoveResult> {
    return this.#locked(sha256, async () => {
      const record = await this.get(sha256)
      if (record === undefined) return 'not-found'
      if (!record.owners.includes(owner)) return 'not-owner'
      const owners = record.owners.filter((o) => o !== owner)
      if (owners.length > 0) {
        await this.#writeRecord({ ...record, owners })
        return 'released'
      }
      await rm(`${this.#file(sha256)}.json`, { force: true })
      await rm(this.#file(sha256), { force: true })
      return 'deleted'
    })
  }

  /**
   * The blobs `owner` uploaded, newest first, optionally within `since`/`until` (unix seconds,
   * inclusive). Reads every record: fine for a community's media, not for a CDN.
   */
  async list(owner: string, range: { since?: number; until?: number } = {}): Promise<BlobRecord[]> {
    let names: string[]
    try {
      names = await readdir(this.#dir)
    } catch {
      return []
    }
    const out: BlobRecord[] = []
    for (const name of names) {
      const sha256 = name.endsWith('.json') ? name.slice(0, -5) : ''
      if (!SHA256.test(sha256)) continue
      const record = await this.get(sha256)
      if (record === undefined || !record.owners.includes(owner)) continue
      if (range.since !== undefined && record.uploaded < range.since) continue
      if (range.until !== undefined && record.uploaded > range.until) continue
      out.push(record)
    }
    return out.sort((a, b) => b.uploaded - a.uploaded || (a.sha256 < b.sha256 ? -1 : 1))
  }

  /** The bytes of a stored blob, or the inclusive byte range (check {@link BlobStore.get} first). */
  open(sha256: string, range?: { start: number; end: number }): ReadStream {
    return createReadStream(this.#file(sha256), range)
  }

  #file(sha256: string): string {
    return join(this.#dir, sha256)
  }
}
