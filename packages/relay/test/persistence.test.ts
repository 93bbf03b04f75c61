import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { BACKEND, connect, fetch, h, pgDatabase, publish, relay, user } from './helpers'

const tempDb = () => join(mkdtempSync(join(tmpdir(), 'roost-relay-')), 'relay.db')

describe('persistence', () => {
  it('a restart on the same file and port keeps groups, roles, members, codes, events and the key', async () => {
    const db = tempDb()
    const first = await relay({ db, previousMinimum: 0 })
    const port = Number(new URL(first.url).port)
    const admin = user()
    const m = user()
    const c1 = await connect(first.url)
    const g = await first.createGroup({ name: 'Kept', closed: true, admins: [admin.pk] })
    const code = await first.createInvite(g)
    await first.createInvite(g, 'second')
    expect((await publish(c1, m.sign({ kind: 9021, tags: h(g, ['code', code]) }))).ok).toBe(true)
    await publish(c1, admin.sign({ kind: 9000, tags: h(g, ['p', m.pk, 'moderator']) }))
    const msg = m.sign({ kind: 9, tags: h(g), content: 'still here' })
    await publish(c1, msg)
    const before = first.state(g)
    const key = first.pubkey
    await first.close()

    const second = await relay({ db, port, previousMinimum: 0 })
    expect(second.url).toBe(first.url)
    expect(second.pubkey).toBe(key)
    expect(second.state(g)).toEqual(before)
    expect(second.state(g)?.invites).toEqual(['second'])
    const c2 = await connect(second.url)
    expect((await fetch(c2, [{ ids: [msg.id] }])).events).toHaveLength(1)
    const meta = await fetch(c2, [{ kinds: [39000], '#d': [g] }])
    expect(meta.events[0]?.pubkey).toBe(key)
    expect(await publish(c2, m.sign({ kind: 9021, tags: h(g, ['code', code]), content: 'again' }))).toEqual({
      ok: false,
      message: 'duplicate: already a member',
    })
    // State keeps strictly increasing created_at across the restart.
    const old39002 = (await fetch(c2, [{ kinds: [39002], '#d': [g] }])).events[0]!
    await publish(c2, admin.sign({ kind: 9001, tags: h(g, ['p', m.pk]) }))
    const new39002 = (await fetch(c2, [{ kinds: [39002], '#d': [g] }])).events[0]!
    expect(new39002.created_at).toBeGreaterThan(old39002.created_at)
  })

  it('a given secretKey wins over the kept one; without one the kept key is reused', async () => {
    const db = tempDb()
    const first = await relay({ db })
    const kept = first.pubkey
    await first.close()
    const given = await relay({ db, secretKey: '01'.repeat(32) })
    expect(given.pubkey).not.toBe(kept)
    await given.close()
    const again = await relay({ db })
    expect(again.pubkey).toBe(kept)
  })

  it(':memory: relays start empty with a fresh key each time', async () => {
    const a = await relay()
    const b = await relay()
    expect(a.pubkey).not.toBe(b.pubkey)
  })

  it('the group record is written only when the group changes, not for every message', async () => {
    const db = tempDb()
    const r = await relay({ db })
    const admin = user()
    const g = await r.createGroup({ name: 'Quiet', admins: [admin.pk] })
    // Count the relay's writes to its group records: a trigger in the same SQLite file, or the
    // version PostgreSQL bumps on every write.
    let writes: () => Promise<number>
    let done: () => Promise<void>
    if (BACKEND === 'postgres') {
      const client = new pg.Client(await pgDatabase(db))
      await client.connect()
      const version = async () =>
        Number((await client.query('SELECT version FROM groups WHERE id = $1', [g])).rows[0]?.version)
      const base = await version()
      writes = async () => (await version()) - base
      done = () => client.end()
    } else {
      const watcher = new Database(db)
      watcher.exec(`CREATE TABLE group_writes (id TEXT);
      CREATE TRIGGER count_group_writes AFTER UPDATE ON groups BEGIN INSERT INTO group_writes VALUES (new.id); END;`)
      writes = async () =>
        (watcher.prepare('SELECT count(*) AS n FROM group_writes').get() as { n: number }).n
      done = async () => {
        watcher.close()
      }
    }
    const c = await connect(r.url)
    for (let i = 0; i < 5; i++)
      expect((await publish(c, user().sign({ kind: 9, tags: h(g), content: `m${i}` }))).ok).toBe(true)
    expect(await writes()).toBe(0)
    expect((await publish(c, admin.sign({ kind: 9002, tags: h(g, ['name', 'Renamed']) }))).ok).toBe(true)
    expect(await writes()).toBe(1)
    await done()
  })
})
