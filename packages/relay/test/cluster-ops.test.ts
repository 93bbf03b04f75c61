/**
 * Operating a cluster: relay processes on one PostgreSQL database share the operator's lists (a ban
 * made through one holds on the others at once), the database itself refuses a banned key or event
 * that a process's copy does not know of yet, and /healthz tells a load balancer when the database
 * is gone.
 */
import pg from 'pg'
import { describe, expect, inject, it } from 'vitest'
import type { RelayHandle } from '../src/index'
import { type RelayProcess, relayProcess } from './cluster'
import { connect, fetch, h, pgDatabase, publish, RawClient, relay, user } from './helpers'
import { call } from './nip86-helpers'

const KEY = '7b'.repeat(32)
const handle = (p: RelayProcess) => ({ url: p.url }) as RelayHandle

/** Resolves once `pred` holds, checking every 50 ms; fails after `ms` (a deadline a loaded machine does not hit). */
async function until(pred: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('operating a cluster', { timeout: 120_000 }, () => {
  it('a ban through one process holds on the others: EVENT, AUTH, open connections, banned events', async () => {
    const op = user()
    const db = await pgDatabase()
    const [a, b] = await Promise.all([0, 1].map(() => relayProcess(db, KEY, ['--admin', op.pk])))
    const bad = user()
    const onB = await connect(b!.url, bad)
    const note = bad.sign({ kind: 0, content: 'a profile' })
    expect((await publish(onB, note)).ok).toBe(true)
    const closed = new Promise<void>((resolve) => {
      onB.onclose = () => resolve()
    })

    expect((await call(handle(a!), op, 'banpubkey', [bad.pk])).status).toBe(200)
    await closed // B closed the connection that key had authenticated on it
    const raw = await RawClient.open(b!.url)
    expect(await raw.publish(bad.sign({ kind: 0, content: 'again' }))).toEqual({
      ok: false,
      message: 'blocked: you are banned from this relay',
    })
    expect(await raw.auth(bad, b!.url)).toMatchObject({ ok: false })

    // A banned event is gone for every process and refused by each.
    const alice = user()
    const post = alice.sign({ kind: 0, content: 'to be banned' })
    const onA = await connect(a!.url)
    expect((await publish(onA, post)).ok).toBe(true)
    expect((await call(handle(b!), op, 'banevent', [post.id, 'illegal'])).status).toBe(200)
    expect((await fetch(onA, [{ ids: [post.id] }])).events).toEqual([])
    expect((await publish(onA, post)).message).toBe('blocked: this event was banned by the relay operator')
    expect((await call(handle(a!), op, 'listbannedevents')).body.result).toEqual([
      { id: post.id, reason: 'illegal' },
    ])
  })

  it("the database refuses a banned key's or event's insert that the process's copy does not know of", async () => {
    const op = user()
    const name = `cluster-ops-${Math.random()}`
    const direct = new pg.Client(await pgDatabase(name))
    const r = await relay({ admins: [op.pk], db: name })
    const bad = user()
    const gid = await r.createGroup({ name: 'Open', members: [bad.pk] })
    const c = await connect(r.url)
    // Rows written straight into the table, with no fan-out: as if another process banned a moment ago.
    await direct.connect()
    try {
      await direct.query(
        "INSERT INTO moderation (list, value, note, at) VALUES ('banned-pubkey', $1, '', 0)",
        [bad.pk],
      )
      expect(await publish(c, bad.sign({ kind: 9, tags: h(gid), content: 'hi' }))).toEqual({
        ok: false,
        message: 'blocked: you are banned from this relay',
      })
      const other = user().sign({ kind: 0, content: 'banned by id' })
      await direct.query(
        "INSERT INTO moderation (list, value, note, at) VALUES ('banned-event', $1, '', 0)",
        [other.id],
      )
      expect(await publish(c, other)).toEqual({
        ok: false,
        message: 'blocked: this event was banned by the relay operator',
      })
    } finally {
      await direct.end()
    }
  })

  it('/healthz answers 503 while the database refuses connections, and 200 once it is back', async () => {
    const db = await pgDatabase()
    const [p] = await Promise.all([relayProcess(db, KEY)])
    const health = `${p!.url.replace('ws://', 'http://')}/healthz`
    expect((await globalThis.fetch(health)).status).toBe(200)
    const name = new URL(db).pathname.slice(1)
    const admin = new pg.Client(inject('pgUrl'))
    await admin.connect()
    try {
      await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`)
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name])
      const down = await globalThis.fetch(health)
      expect(down.status).toBe(503)
      expect(await down.json()).toEqual({ ok: false, error: 'database unreachable' })
    } finally {
      await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`)
      await admin.end()
    }
    await until(async () => (await globalThis.fetch(health)).status === 200)
  })
})
