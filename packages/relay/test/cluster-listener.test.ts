/**
 * The fan-out listener of a relay on PostgreSQL loses its connection (a database restart, a network
 * fault, an operator's pg_terminate_backend) while other processes keep committing. What committed
 * before it LISTENs again was announced to no one on this process: the relay catches up from the
 * database, so a live subscriber misses nothing and gets nothing twice.
 */
import type { NostrEvent } from 'nostr-tools'
import pg from 'pg'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { connect, h, live, pgDatabase, publish, relay, user } from './helpers'

const KEY = '7b'.repeat(32)

let admin: pg.Client | undefined
afterAll(async () => {
  await admin?.end()
})

/** Resolves once `pred` holds, checking every 50 ms; fails after `ms` (a deadline a loaded machine does not hit). */
async function until(pred: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('the fan-out listener on PostgreSQL', { timeout: 120_000 }, () => {
  it('events committed while it was down reach live subscribers once it is back, once each, in order', async () => {
    // Two relays (two stores, as two processes would be) on one database.
    const path = `listener-${Date.now()}.db`
    const a = await relay({ db: path, secretKey: KEY })
    const b = await relay({ db: path, secretKey: KEY })
    const name = new URL(await pgDatabase(path)).pathname.slice(1)
    admin = new pg.Client(inject('pgUrl'))
    await admin.connect()
    const listeners = async () =>
      Number(
        (
          await admin!.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN %'",
            [name],
          )
        ).rows[0].n,
      )
    await until(async () => (await listeners()) === 2)

    const owner = user()
    const onB = await connect(b.url)
    expect((await publish(onB, owner.sign({ kind: 9007, tags: h('l') }))).ok).toBe(true)
    const watcher = live(await connect(a.url), [{ kinds: [9], '#h': ['l'], limit: 0 }])
    await watcher.ready
    const before = owner.sign({ kind: 9, tags: h('l'), content: 'before the fault' })
    expect((await publish(onB, before)).ok).toBe(true)
    await watcher.next((e) => e.id === before.id)

    // The fault: no new connection to the database is admitted, and both listeners are cut off.
    // B's pooled connection stays, so B goes on committing while A cannot LISTEN again.
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`)
    try {
      await admin.query(
        "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN %'",
        [name],
      )
      expect(await listeners()).toBe(0)
      const during: NostrEvent[] = []
      for (let i = 0; i < 3; i++) {
        const e = owner.sign({ kind: 9, tags: h('l'), content: `while the listener was down ${i}` })
        expect((await publish(onB, e)).ok).toBe(true)
        during.push(e)
      }
      expect(watcher.events.map((e) => e.id)).not.toContain(during[0]!.id)

      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`)
      await until(async () => (await listeners()) === 2)
      const after = owner.sign({ kind: 9, tags: h('l'), content: 'after the listener came back' })
      expect((await publish(onB, after)).ok).toBe(true)
      await watcher.next((e) => e.id === after.id)

      // Everything, in the order it was committed, and the event heard before the fault not again.
      expect(watcher.events.map((e) => e.content)).toEqual([before, ...during, after].map((e) => e.content))
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`)
    }
  })
})
