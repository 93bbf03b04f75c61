/**
 * WAL checkpoints on SQLite run on a thread of their own (the writer's COMMITs never copy pages
 * into the database file). What an operator would notice if they stopped: a WAL file that grows
 * without bound, and one left behind after a clean shutdown.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { NostrEvent } from 'nostr-tools'
import { getEventHash } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import { Checkpointer } from '../src/store/checkpointer'
import { SqliteStore } from '../src/store/sqlite'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A stored kind 9 (the store does not check signatures; the intake did). */
function message(i: number): NostrEvent {
  const t = {
    kind: 9,
    pubkey: 'a'.repeat(64),
    created_at: 1_700_000_000 + i,
    tags: [['h', 'g']],
    content: `note ${i} `.repeat(20),
  }
  return { ...t, id: getEventHash(t), sig: 'b'.repeat(128) }
}

describe('SQLite WAL checkpoints', () => {
  it('keep the WAL small while thousands of commits land, and leave none behind after close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-wal-'))
    dirs.push(dir)
    const path = join(dir, 'relay.db')
    const store = new SqliteStore(path, () => 'f'.repeat(64))
    const N = 3_000
    // One unit awaited at a time: every event its own COMMIT, each adding pages to the WAL
    // (about 5 pages of 4 KiB each: the row, its indexes, its tag and its search entry).
    for (let i = 0; i < N; i++) await store.unit('g', (tx) => tx.insert(message(i)))
    const wal = statSync(`${path}-wal`).size
    // Without checkpoints the WAL would hold every commit's pages: over 200 MB here.
    expect(wal).toBeLessThan(48 * 1024 * 1024)
    await store.close()
    expect(existsSync(`${path}-wal`)).toBe(false)

    const again = new SqliteStore(path, () => 'f'.repeat(64))
    expect(await again.query({ kinds: [9] }, N + 1)).toHaveLength(N)
    expect((await again.query({ search: 'note 2999' }, 10)).map((r) => r.id)).toContain(message(2999).id)
    await again.close()
  })

  it('keep the WAL small under a writer whose loop never yields to the event loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-wal-'))
    dirs.push(dir)
    const path = join(dir, 'burst.db')
    const db = new Database(path)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)')
    const checkpoints = new Checkpointer(db, path)
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)')
    const body = Buffer.alloc(20_000, 7) // 5 pages of 4 KiB and more per COMMIT
    // 4,000 COMMITs in one synchronous loop (a burst the relay's own loop could meet): no
    // timer, message or promise callback runs until it ends. Without checkpoints: over 80 MB.
    for (let i = 0; i < 4_000; i++) {
      insert.run(body)
      checkpoints.committed()
    }
    expect(statSync(`${path}-wal`).size).toBeLessThan(48 * 1024 * 1024)
    await checkpoints.close()
    db.close()
    expect(existsSync(`${path}-wal`)).toBe(false)
  })
})
