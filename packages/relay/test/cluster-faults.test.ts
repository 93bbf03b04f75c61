/**
 * Faults in a cluster: one relay process killed with SIGKILL while clients publish through the
 * others, then the database itself crashed and restarted. Whatever got OK true must be stored, and
 * clients must reconnect and carry on. This file runs its own PostgreSQL server (it restarts it).
 */
import { Relay } from 'nostr-tools/relay'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RelayProcess, relayProcess } from './cluster'
import { connect, fetch, h, live, publish, user } from './helpers'
import { type PgServer, startPgServer } from './pg-server'

const KEY = '6a'.repeat(32)
let server: PgServer
beforeAll(async () => {
  server = await startPgServer()
}, 120_000)
afterAll(() => server?.stop())

/** Resolves once `pred` holds, checking every 50 ms; fails after `ms` (a deadline a loaded machine does not hit). */
async function until(pred: () => boolean, ms = 90_000): Promise<void> {
  const end = Date.now() + ms
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('cluster faults', { timeout: 300_000 }, () => {
  it('kill -9 of one process and a database restart lose no acknowledged event; clients resume', async () => {
    const db = server.urlOf('postgres')
    const procs: RelayProcess[] = []
    for (let i = 0; i < 3; i++) procs.push(await relayProcess(db, KEY))
    const alive = new Set(procs)
    const admin = user()
    const first = await connect(procs[1]!.url)
    expect((await publish(first, admin.sign({ kind: 9007, tags: h('load') }))).ok).toBe(true)

    const acked = new Set<string>()
    const refused = { count: 0 }
    let reconnects = 0
    let stop = false
    /** One client: publishes through its process, moves to another live one when its connection drops. */
    const publisher = async (start: number) => {
      const author = user()
      let at = start
      let conn: Relay | undefined
      let n = 0
      while (!stop) {
        if (!conn?.connected) {
          const candidates = procs.filter((p) => alive.has(p))
          const target = candidates[at++ % candidates.length]!
          if (conn) reconnects++
          conn = await open(target.url)
          if (!conn) {
            await new Promise((r) => setTimeout(r, 100))
            continue
          }
        }
        const e = author.sign({ kind: 9, tags: h('load'), content: `m${start}-${n++}` })
        const r = await publish(conn, e)
        if (r.ok) acked.add(e.id)
        else {
          refused.count++
          await new Promise((r) => setTimeout(r, 50))
        }
      }
    }
    /** Publishers' connections: made here, not through the helpers, since connecting to a dead process fails. */
    const opened: Relay[] = []
    const open = async (url: string): Promise<Relay | undefined> => {
      const r = new Relay(url)
      try {
        await r.connect()
        opened.push(r)
        return r
      } catch {
        return undefined
      }
    }
    const running = [0, 1, 2, 3, 4, 5].map((i) => publisher(i))
    const [b, c] = [procs[1]!, procs[2]!]
    try {
      await until(() => acked.size >= 40)
      const victim = procs[0]!
      alive.delete(victim)
      await victim.kill9()
      const afterKill = acked.size
      await until(() => acked.size >= afterKill + 40)

      server.crashAndRestart()
      const afterRestart = acked.size
      await until(() => acked.size >= afterRestart + 40)

      // The fan-out listener came back too: an event through one process reaches a subscriber on another.
      const watcher = live(await connect(c.url), [{ kinds: [9], '#h': ['load'], limit: 0 }])
      await watcher.ready
      const probe = admin.sign({ kind: 9, tags: h('load'), content: 'after the restart' })
      expect((await publish(await connect(b.url), probe)).ok).toBe(true)
      let heard = false
      watcher
        .next((e) => e.id === probe.id)
        .then(() => {
          heard = true
        })
      await until(() => heard)
    } catch (err) {
      for (const p of procs) console.log(p.url, p.log.join('').slice(-3000))
      throw err
    }

    stop = true
    await Promise.all(running)
    for (const r of opened) r.close()
    const reader = await connect(b.url)
    const found = new Set<string>()
    let until_: number | undefined
    for (;;) {
      const page = await fetch(reader, [
        { kinds: [9], '#h': ['load'], limit: 500, ...(until_ !== undefined && { until: until_ }) },
      ])
      const fresh = page.events.filter((e) => !found.has(e.id))
      for (const e of page.events) found.add(e.id)
      if (fresh.length === 0) break
      until_ = Math.min(...page.events.map((e) => e.created_at))
    }
    const missing = [...acked].filter((id) => !found.has(id))
    console.log(
      `cluster faults: ${acked.size} acknowledged, ${missing.length} of them missing, ${found.size} stored in all ` +
        `(${refused.count} refusals during the outages, ${reconnects} client reconnects)`,
    )
    expect(missing).toEqual([])
    expect(reconnects).toBeGreaterThan(0)
  })
})
