import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { Engine } from '../engine'
import { RelayOptionError } from '../errors'
import { isPostgresUrl } from '../store/db-url'
import { createBlossomHandler, DEFAULT_MAX_BLOB_BYTES, type HttpHandler } from './blossom-server'

/** The relay's Blossom endpoint: its handler, where blobs live, its cap, and how to clean up. */
export interface RelayMedia {
  handler: HttpHandler
  dir: string
  maxBytes: number
  /** Removes the temporary directory a `:memory:` relay stored blobs in (a kept directory stays). */
  dispose(): void
}

/**
 * Where the relay keeps blobs: `blobDir` when given, else `blobs/` beside a SQLite file; a
 * `:memory:` or PostgreSQL relay without `blobDir` uses a temporary directory removed on close.
 */
export function blobDirectory(db: string, blobDir: string | undefined): { dir: string; temporary: boolean } {
  if (blobDir !== undefined) return { dir: resolve(blobDir), temporary: false }
  if (db !== ':memory:' && db !== '' && !isPostgresUrl(db))
    return { dir: join(dirname(resolve(db)), 'blobs'), temporary: false }
  return { dir: mkdtempSync(join(tmpdir(), 'roost-blobs-')), temporary: true }
}

/** The public HTTP base for a public WebSocket URL: `wss://relay.example/` → `https://relay.example`. */
export function httpBase(wsUrl: string): string {
  const u = new URL(wsUrl)
  u.protocol = u.protocol === 'wss:' ? 'https:' : 'http:'
  return u.origin
}

/**
 * Blossom on the relay's port. Uploads are for keys that are members of a group here: the relay's
 * own 39002 member lists name them. Descriptor URLs use the first configured public URL (as
 * http/https), else the request's Host.
 */
export function relayMedia(engine: Engine): RelayMedia {
  const { opts } = engine
  const { dir, temporary } = blobDirectory(opts.db ?? ':memory:', opts.blobDir)
  const maxBytes = opts.maxUpload ?? DEFAULT_MAX_BLOB_BYTES
  const publicUrl = opts.urls?.[0] === undefined ? undefined : httpBase(opts.urls[0])
  const handler = createBlossomHandler({
    dir,
    maxBytes,
    isMember: (pubkey) => !engine.bans.isBanned(pubkey) && isMemberAnywhere(engine, pubkey),
    clock: () => engine.now(),
    verify: engine.ctx.verify,
    ...(publicUrl === undefined ? {} : { publicUrl }),
  })
  return {
    handler,
    dir,
    maxBytes,
    dispose: () => {
      if (temporary) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Whether the relay's member list of any group names `pubkey`. */
async function isMemberAnywhere(engine: Engine, pubkey: string): Promise<boolean> {
  const rows = await engine.store.query({ kinds: [39002], authors: [engine.pubkey], '#p': [pubkey] }, 1)
  return rows.length > 0
}

/** Throws {@link RelayOptionError} unless `maxUpload` is absent or a positive safe integer. */
export function checkMaxUpload(maxUpload: number | undefined): void {
  if (maxUpload !== undefined && (!Number.isSafeInteger(maxUpload) || maxUpload < 1))
    throw new RelayOptionError('maxUpload must be a positive integer (bytes)')
}
