/**
 * The deployment the relay README documents: HAProxy in front of three `roost-relay` processes on
 * one PostgreSQL database, WebSockets balanced by least connections, one public `--url`. Clients
 * (@roost/client's RelayPool, as the app uses it) chat in a private group through HAProxy while one
 * process is killed with SIGKILL, or stopped with SIGTERM (a rolling restart). Every event that got
 * OK true is in the database, every client whose connection died is back on its first reconnect
 * attempt (so within its first backoff delay, at most 500 ms), resumes its subscription and sees
 * every acknowledged message, and no send fails: the one in flight when its process died is sent
 * again by the client itself.
 */
import { performance } from 'node:perf_hooks'
import { LocalSigner, RelayPool } from '@roost/client'
import type { NostrEvent } from 'nostr-tools'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { type RelayProcess, relayProcess } from './cluster'
import { freePort, startHaproxy } from './haproxy'
import { connect, h, pgDatabase, publish, type User, user } from './helpers'

const KEY = '3c'.repeat(32)
const TOKEN = 'metrics-token-of-the-cluster-test'
const CLIENTS = 6
const PER_CLIENT = 40

/** What happened to one client's sockets. */
interface Sockets {
  attempts: number
  /** Sockets that closed without ever opening (a refused or failed connect). */
  failed: number
  opens: number[]
  drops: number[]
  /** When each EOSE of the group subscription came (its first answer, and each resume). */
  eoses: number[]
}

/** A WebSocket class that records, for one client, every connect, failure and drop. */
function trackedWebSocket(log: Sockets): typeof globalThis.WebSocket {
  return class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols)
      log.attempts++
      let opened = false
      this.on('open', () => {
        opened = true
        log.opens.push(performance.now())
      })
      this.on('close', () => {
        if (opened) log.drops.push(performance.now())
        else log.failed++
      })
    }
  } as unknown as typeof globalThis.WebSocket
}

async function until(pred: () => boolean, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms
  while (!pred()) {
    if (Date.now() > end) throw new Error(`${what}: not reached`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Open client connections a process reports at /metrics. */
async function connectionsOf(p: RelayProcess): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${p.port}/metrics`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  })
  const m = /^roost_connections (\d+)$/m.exec(await res.text())
  return Number(m?.[1])
}

/**
 * Three processes behind HAProxy, six clients chatting in a private group; once 60 messages are
 * acknowledged, `stop` ends the process with the most clients. Checks what the file's comment says.
 */
async function chatThrough(
  how: string,
  stop: (victim: RelayProcess) => Promise<void>,
): Promise<RelayProcess> {
  const db = await pgDatabase()
  const port = await freePort()
  const publicUrl = `ws://127.0.0.1:${port}`
  const args = ['--url', publicUrl, '--trusted-proxy', '127.0.0.1', '--metrics-token', TOKEN]
  const procs = await Promise.all([0, 1, 2].map(() => relayProcess(db, KEY, args)))
  const lb = await startHaproxy(
    port,
    procs.map((p) => p.port),
  )
  expect(lb.url).toBe(publicUrl)

  // A private, closed group: created through HAProxy by an admin who authenticates with NIP-42,
  // whose `relay` tag names the public URL (what --url is for).
  const admin = user()
  const gid = 'chat'
  const setup = await connect(publicUrl, admin)
  expect((await publish(setup, admin.sign({ kind: 9007, tags: h(gid) }))).ok).toBe(true)
  expect((await publish(setup, admin.sign({ kind: 9002, tags: h(gid, ['private'], ['closed']) }))).ok).toBe(
    true,
  )
  const people: User[] = Array.from({ length: CLIENTS }, () => user())
  for (const u of people)
    expect((await publish(setup, admin.sign({ kind: 9000, tags: h(gid, ['p', u.pk]) }))).ok).toBe(true)
  setup.close()

  const acked = new Set<string>()
  const failures: string[] = []
  let stopSending = false
  const clients = people.map((u) => {
    const sockets: Sockets = { attempts: 0, failed: 0, opens: [], drops: [], eoses: [] }
    const seen = new Set<string>()
    const closed: string[] = []
    const pool = new RelayPool({
      websocket: trackedWebSocket(sockets),
      signer: LocalSigner.fromSecret(u.sk),
      publishTimeout: 15_000,
    })
    // Reading a private group: the relay asks for AUTH, the pool answers and subscribes again.
    pool.subscribe(publicUrl, [{ kinds: [9], '#h': [gid], limit: 1000 }], {
      onevent: (e) => seen.add(e.id),
      oneose: () => sockets.eoses.push(performance.now()),
      onclosed: (reason) => closed.push(reason),
    })
    return { u, pool, sockets, seen, closed }
  })
  await until(() => clients.every((c) => c.sockets.eoses.length > 0), 'every client subscribed')

  /** One client chats: a message every 30 ms, each sent once by the test; the pool does the rest. */
  const chat = async (c: (typeof clients)[number]) => {
    for (let i = 0; i < PER_CLIENT && !stopSending; i++) {
      const e: NostrEvent = c.u.sign({ kind: 9, tags: h(gid), content: `${c.u.pk.slice(0, 6)} ${i}` })
      const [r] = await c.pool.publish([publicUrl], e)
      if (r?.ok) acked.add(e.id)
      else failures.push(`${e.content}: ${r?.message}`)
      await new Promise((resolve) => setTimeout(resolve, 30))
    }
  }
  const chatting = Promise.all(clients.map(chat))

  let victim: RelayProcess | undefined
  try {
    await until(() => acked.size >= 60, 'the first 60 messages')
    // The process with the most clients is killed; leastconn spread them over all three.
    const counts = await Promise.all(procs.map(connectionsOf))
    expect(counts.every((n) => n > 0)).toBe(true)
    victim = procs[counts.indexOf(Math.max(...counts))] as RelayProcess
    const killedAt = performance.now()
    await stop(victim)
    await chatting
    stopSending = true
    const victims = clients.filter((c) => c.sockets.drops.some((t) => t >= killedAt))
    expect(victims.length).toBe(Math.max(...counts))

    // No send failed: the one in flight when the process died was sent again by the pool.
    expect(failures).toEqual([])
    expect(acked.size).toBe(CLIENTS * PER_CLIENT)
    // Every client whose connection died reconnected on its first attempt and resumed its
    // subscription (after a new AUTH on the new process); every client saw every message.
    for (const c of victims) {
      expect(c.sockets.failed).toBe(0)
      expect(c.sockets.opens.length).toBe(c.sockets.drops.length + 1)
      expect(c.sockets.eoses.some((t) => t > (c.sockets.drops.at(-1) as number))).toBe(true)
    }
    await until(
      () => clients.every((c) => [...acked].every((id) => c.seen.has(id))),
      'every message everywhere',
    )
    expect(clients.flatMap((c) => c.closed)).toEqual([])

    const back = victims.map((c) => {
      const drop = c.sockets.drops.at(-1) as number
      const open = c.sockets.opens.find((t) => t > drop) as number
      const eose = c.sockets.eoses.find((t) => t > drop) as number
      return { open: open - drop, eose: eose - drop }
    })
    console.log(
      `cluster behind HAProxy, ${how}: ${acked.size} acknowledged, ${victims.length} clients moved; back after ` +
        `${back.map((b) => `${b.open.toFixed(0)} ms (subscription resumed at ${b.eose.toFixed(0)} ms)`).join(', ')}`,
    )
  } catch (err) {
    for (const p of procs) console.log(p.url, p.log.join('').slice(-3000))
    throw err
  } finally {
    stopSending = true
    await chatting.catch(() => {})
    for (const c of clients) c.pool.close()
  }

  // Every acknowledged event is in the database.
  const sql = new pg.Client(db)
  await sql.connect()
  try {
    const { rows } = await sql.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::text[])', [
      [...acked],
    ])
    expect(new Set(rows.map((r) => r.id)).size).toBe(acked.size)
  } finally {
    await sql.end()
  }
  return victim as RelayProcess
}

describe('a cluster behind HAProxy', { timeout: 300_000 }, () => {
  it('SIGKILL of one process mid-chat loses no acknowledged event; every client is back on its first try', async () => {
    await chatThrough('SIGKILL', (p) => p.kill9())
  })

  it('SIGTERM of one process mid-chat (a rolling restart): it answers, says CLOSED, exits 0; its clients resume elsewhere', async () => {
    const victim = await chatThrough('SIGTERM', (p) => p.stop())
    expect(victim.log.join('')).toContain('exited: 0')
  })
})
