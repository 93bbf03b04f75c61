/**
 * WAL checkpoints on SQLite run on a thread of their own (the writer's COMMITs never copy pages
 * into the database file). What an operator would notice if they stopped: a WAL file that grows
 * without bound, and one left behind after a clean shutdown.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NostrEvent } from 'nostr-tools'
import { getEventHash } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
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
})
