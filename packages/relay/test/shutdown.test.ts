/**
 * Clean shutdown, on this run's backend: `await relay.close()` always settles (a script that awaits
 * it goes on, instead of Node ending it with "unsettled top-level await", exit 13), and under load
 * it answers every EVENT it had received, commits them, ends each subscription with a CLOSED and
 * only then closes the sockets; `roost-relay` does the same on SIGTERM and exits 0.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { NostrEvent } from 'nostr-tools'
import { verifyEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import type { RelayHandle } from '../src/index'
import { BACKEND, h, pgDatabase, RawClient, relay, signMany, user } from './helpers'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SRC = fileURLToPath(new URL('../src/index.ts', import.meta.url))
const BIN = fileURLToPath(new URL('../bin/roost-relay.mjs', import.meta.url))

/**
 * A database for this run's backend: `db` for `relay({ db })` in this process (a SQLite path, or a
 * name the helpers map to one PostgreSQL database), `url` for a relay in another process.
 */
async function databaseFor(name: string): Promise<{ db: string; url: string }> {
  const db = join(mkdtempSync(join(tmpdir(), `roost-${name}-`)), 'relay.db')
  return { db, url: BACKEND === 'postgres' ? await pgDatabase(db) : db }
}

function run(
  args: string[],
  opts: { cwd?: string } = {},
): {
  exit: Promise<number | null>
  out: () => string
  err: () => string
  kill(signal: NodeJS.Signals): void
} {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: opts.cwd ?? ROOT })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  child.stderr.on('data', (d) => {
    err += d
  })
  return {
    exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    out: () => out,
    err: () => err,
    kill: (signal) => child.kill(signal),
  }
}

/** The frames of one raw client from the first one matching `from` on. */
const after = (c: RawClient, from: number) => c.frames.slice(from)

// Each test starts a relay in a process of its own or floods one: seconds on a loaded machine.
describe('clean shutdown', { timeout: 120_000 }, () => {
  it('await relay.close() settles in a script, after commits that started the checkpoint thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-close-'))
    const script = join(dir, 'close.mjs')
    writeFileSync(
      script,
      `const { startRelay } = await import(${JSON.stringify(SRC)})
const relay = await startRelay({ port: 0, db: process.argv[2] })
for (let i = 0; i < 20; i++) await relay.createGroup({ name: 'g' + i })
await relay.close()
console.log('closed, and the script goes on')
`,
    )
    const p = run(['--conditions=@roost/source', '--import', 'tsx', script, (await databaseFor('close')).url])
    expect({ code: await p.exit, err: p.err() }).toEqual({ code: 0, err: '' })
    expect(p.out()).toBe('closed, and the script goes on\n')
  })

  it('under load: every EVENT received is answered (and committed when OK), then CLOSED, then the socket closes', async () => {
    const CLIENTS = 4
    const EACH = 60
    const total = CLIENTS * EACH
    let received = 0
    let closing: Promise<void> | undefined
    let r!: RelayHandle
    // A check that counts: it runs once an EVENT was read (before it is stored), so when it has seen
    // every EVENT sent, all were received and most are still to be decided; close() starts there.
    const check = (e: NostrEvent) => {
      received++
      if (received === total) closing = r.close()
      return verifyEvent(e)
    }
    const { db } = await databaseFor('load')
    r = await relay({ db, verifyEvent: check, rateLimit: { events: 0, perSeconds: 1 } })
    const gid = await r.createGroup({ name: 'Busy' })
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => RawClient.open(r.url)))
    const sent: NostrEvent[][] = []
    for (const c of clients) {
      await c.req('live', { kinds: [9], '#h': [gid], limit: 0 })
      const u = user()
      const events = await signMany(
        u,
        Array.from({ length: EACH }, (_, i) => ({ kind: 9, tags: h(gid), content: `m${i}` })),
      )
      sent.push(events)
    }
    const marks = clients.map((c) => c.frames.length)
    const gone = clients.map(
      (c) => new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code))),
    )
    clients.forEach((c, i) => {
      for (const e of sent[i] as NostrEvent[]) c.send(['EVENT', e])
    })
    const codes = await Promise.all(gone)
    expect(closing).toBeDefined()
    await closing
    const accepted: string[] = []

    clients.forEach((c, i) => {
      const frames = after(c, marks[i] as number)
      const oks = frames.filter((f) => f[0] === 'OK')
      // One OK per EVENT, in the order sent: stored, or (past the close's 2 s for queued EVENTs)
      // refused as shutting down.
      expect(oks.map((f) => f[1])).toEqual((sent[i] as NostrEvent[]).map((e) => e.id))
      for (const f of oks) if (f[2] !== true) expect(f.slice(2)).toEqual([false, 'error: shutting down'])
      for (const f of oks) if (f[2] === true) accepted.push(f[1] as string)
      // Its subscription ended with a CLOSED after the last OK, and nothing came after that.
      const closed = frames.findIndex((f) => f[0] === 'CLOSED')
      expect(frames[closed]).toEqual(['CLOSED', 'live', 'error: shutting down'])
      expect(frames.slice(closed + 1)).toEqual([])
      expect(frames.findLastIndex((f) => f[0] === 'OK')).toBeLessThan(closed)
    })
    expect(codes).toEqual(Array(CLIENTS).fill(1001))

    // Committed: a relay on the same database has every one that got OK true, and nothing else.
    // (A raw reader: it waits for EOSE however long a loaded machine takes.)
    const again = await relay({ db })
    const reader = await RawClient.open(again.url)
    const stored = await reader.req('stored', { kinds: [9], '#h': [gid], limit: total })
    expect(stored.events.map((e) => e.id).sort()).toEqual(accepted.sort())
    expect(accepted.length).toBeGreaterThan(0)
  })

  it('roost-relay under load: SIGTERM answers, commits and closes, and the process exits 0', async () => {
    const { db, url: dbUrl } = await databaseFor('sigterm')
    const p = run([BIN, '--port', '0', '--db', dbUrl, '--rate-limit', '0', '--demo'])
    const url = await new Promise<string>((resolve, reject) => {
      const t = setInterval(() => {
        const m = /listening on (ws:\/\/\S+)/.exec(p.out())
        if (m?.[1]) {
          clearInterval(t)
          resolve(m[1])
        }
      }, 20)
      p.exit.then((code) => reject(new Error(`exited ${code}: ${p.err()}`)))
    })
    const clients = await Promise.all([0, 1, 2].map(() => RawClient.open(url)))
    const acked: string[] = []
    let signalled = false
    await Promise.all(
      clients.map(async (c, i) => {
        const u = user()
        await c.req('live', { kinds: [9], '#h': ['general'], limit: 0 })
        c.ws.on('message', (data) => {
          const m = JSON.parse(String(data)) as unknown[]
          if (m[0] === 'OK' && m[2] === true) acked.push(m[1] as string)
          if (acked.length >= 100 && !signalled) {
            signalled = true
            p.kill('SIGTERM')
          }
        })
        const events = await signMany(
          u,
          Array.from({ length: 400 }, (_, n) => ({ kind: 9, tags: h('general'), content: `c${i} ${n}` })),
        )
        const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)))
        for (const e of events) if (c.ws.readyState === c.ws.OPEN) c.send(['EVENT', e])
        const code = await closed
        const frames = c.frames
        const at = frames.findIndex((f) => f[0] === 'CLOSED')
        const seen = `close ${code} after ${frames.length} frames, the last ${JSON.stringify(frames.slice(-3)).slice(0, 600)}`
        expect(frames[at], seen).toEqual(['CLOSED', 'live', 'error: shutting down'])
        expect(frames.slice(at + 1).filter((f) => f[0] === 'OK')).toEqual([])
      }),
    )
    // Exit 0 means closed within the CLI's 5 s: past them it exits 1, saying so.
    expect({ code: await p.exit, err: p.err() }).toMatchObject({ code: 0 })
    expect(p.err()).toMatch(/closed after \d+ ms/)
    expect(p.out()).toMatch(/SIGTERM, closing/)
    const again = await relay({ db })
    const reader = await RawClient.open(again.url)
    const ids = new Set<string>()
    for (let at = 0; at < acked.length; at += 500) {
      const page = await reader.req(`ids${at}`, { ids: acked.slice(at, at + 500), limit: 500 })
      for (const e of page.events) ids.add(e.id)
    }
    expect(acked.length).toBeGreaterThanOrEqual(100)
    expect(acked.filter((id) => !ids.has(id))).toEqual([])
  })
})
