/**
 * Test peers for the relay: a nostr-tools `Relay` over `ws` (the independent client), a raw socket
 * for wire-level assertions, and users with real keys. Everything opened here is closed in afterEach.
 */

import { createHash, randomBytes } from 'node:crypto'
import type { EventTemplate, Filter, NostrEvent } from 'nostr-tools'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import pg from 'pg'
import { afterAll, afterEach, inject } from 'vitest'
import WebSocket from 'ws'
import { type RelayHandle, type RelayOptions, startRelay } from '../src/index'

useWebSocketImplementation(WebSocket)

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** The start of every test clock: the real time when the suite loaded, so NIP-42 signers agree with it. */
export const T0 = Math.floor(Date.now() / 1000)

/** A fixed clock, moved by tests. */
export class TestClock {
  constructor(public t = T0) {}
  readonly now = () => this.t
  advance(s: number) {
    this.t += s
  }
}

/** Which backend this run of the suite uses: the `relay-postgres` project sets ROOST_TEST_BACKEND. */
export const BACKEND: 'sqlite' | 'postgres' =
  process.env.ROOST_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite'

let admin: pg.Pool | undefined
const created = new Set<string>()
afterAll(async () => {
  await admin?.end()
  admin = undefined
})

/**
 * A PostgreSQL database for a test relay, copied from the migrated template: a fresh one for
 * `:memory:` (or none given), and one per file path (so a restart on the "same file" finds its data).
 */
export async function pgDatabase(db?: string): Promise<string> {
  const base = inject('pgUrl')
  const name =
    db === undefined || db === ':memory:'
      ? `t_${randomBytes(8).toString('hex')}`
      : `f_${createHash('sha256').update(db).digest('hex').slice(0, 24)}`
  if (!created.has(name)) {
    admin ??= new pg.Pool({ connectionString: base, max: 2 })
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (exists.rowCount === 0)
      await admin.query(`CREATE DATABASE ${name} TEMPLATE roost_template STRATEGY FILE_COPY`)
    created.add(name)
  }
  const url = new URL(base)
  url.pathname = `/${name}`
  return url.href
}

/** Starts a relay on port 0 (closed after the test), on this run's backend. */
export async function relay(opts: RelayOptions = {}): Promise<RelayHandle> {
  const db = BACKEND === 'postgres' ? await pgDatabase(opts.db) : opts.db
  const r = await startRelay({ port: 0, ...opts, ...(db !== undefined && { db }) })
  cleanups.push(() => r.close())
  return r
}

export interface User {
  sk: Uint8Array
  pk: string
  sign(t: Partial<EventTemplate> & { kind: number }): NostrEvent
}

/** A user with a fresh key; `sign` fills created_at from `clock` (or now) and empty content/tags. */
export function user(clock?: TestClock): User {
  const sk = generateSecretKey()
  return {
    sk,
    pk: getPublicKey(sk),
    sign: (t) =>
      finalizeEvent(
        {
          content: '',
          tags: [],
          created_at: clock ? clock.now() : Math.floor(Date.now() / 1000),
          ...t,
        },
        sk,
      ),
  }
}

/** Connects a nostr-tools Relay; with `as`, authenticates (NIP-42) before resolving. */
export async function connect(url: string, as?: User): Promise<Relay> {
  const r = new Relay(url)
  cleanups.push(() => r.close())
  if (!as) {
    await r.connect()
    return r
  }
  const sign = async (t: EventTemplate) => finalizeEvent(t, as.sk)
  const challenged = new Promise<void>((resolve) => {
    r.onauth = async (t) => {
      resolve()
      return sign(t)
    }
  })
  await r.connect()
  await challenged
  await r.auth(sign)
  return r
}

export interface PublishResult {
  ok: boolean
  message: string
}

/** Publishes and returns the OK as a result object (nostr-tools rejects on OK false). */
export async function publish(r: Relay, event: NostrEvent): Promise<PublishResult> {
  try {
    return { ok: true, message: await r.publish(event) }
  } catch (err) {
    return { ok: false, message: (err as Error).message }
  }
}

/** Runs a REQ until EOSE (or CLOSED) and returns what came back. */
export function fetch(r: Relay, filters: Filter[]): Promise<{ events: NostrEvent[]; closed?: string }> {
  return new Promise((resolve) => {
    const events: NostrEvent[] = []
    let done = false
    const sub = r.subscribe(filters, {
      onevent: (e) => events.push(e),
      oneose: () => {
        if (done) return
        done = true
        resolve({ events })
        sub.close()
      },
      onclose: (reason) => {
        if (done) return
        done = true
        resolve({ events, closed: reason })
      },
    })
  })
}

/** Opens a subscription that collects live events; `next(pred)` waits for a matching one. */
export function live(r: Relay, filters: Filter[]) {
  const events: NostrEvent[] = []
  const waiters: { pred: (e: NostrEvent) => boolean; resolve: (e: NostrEvent) => void }[] = []
  let eose!: () => void
  const ready = new Promise<void>((resolve) => {
    eose = resolve
  })
  const sub = r.subscribe(filters, {
    onevent: (e) => {
      events.push(e)
      for (const w of [...waiters]) {
        if (w.pred(e)) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(e)
        }
      }
    },
    oneose: () => eose(),
  })
  return {
    events,
    ready,
    next(pred: (e: NostrEvent) => boolean = () => true): Promise<NostrEvent> {
      const found = events.find(pred)
      if (found) return Promise.resolve(found)
      return new Promise((resolve) => waiters.push({ pred, resolve }))
    },
    close: () => sub.close(),
  }
}

/** A raw WebSocket peer that records every frame, for wire-level assertions. */
export class RawClient {
  readonly frames: unknown[][] = []
  private waiters: { pred: (m: unknown[]) => boolean; resolve: (m: unknown[]) => void }[] = []
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as unknown[]
      this.frames.push(m)
      for (const w of [...this.waiters]) {
        if (w.pred(m)) {
          this.waiters.splice(this.waiters.indexOf(w), 1)
          w.resolve(m)
        }
      }
    })
  }
  /** Connects (with extra request headers, if any); rejects when the relay closes it before its AUTH challenge. */
  static async open(
    url: string,
    headers?: Record<string, string>,
    options: WebSocket.ClientOptions = {},
  ): Promise<RawClient> {
    const ws = new WebSocket(url, headers ? { ...options, headers } : options)
    const c = new RawClient(ws)
    cleanups.push(() => ws.terminate())
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    await Promise.race([
      c.next((m) => m[0] === 'AUTH'),
      new Promise((_, reject) =>
        ws.once('close', (code) => reject(new Error(`closed (${code}): ${JSON.stringify(c.frames)}`))),
      ),
    ])
    return c
  }
  get challenge(): string {
    return this.frames.find((m) => m[0] === 'AUTH')?.[1] as string
  }
  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message))
  }
  /** Waits for the next frame matching `pred`, counting frames already received after `from`. */
  next(pred: (m: unknown[]) => boolean, from = 0): Promise<unknown[]> {
    const found = this.frames.slice(from).find(pred)
    if (found) return Promise.resolve(found)
    return new Promise((resolve) => this.waiters.push({ pred, resolve }))
  }
  /** Sends an EVENT and resolves with its OK frame. */
  async publish(event: NostrEvent): Promise<PublishResult> {
    const from = this.frames.length
    this.send(['EVENT', event])
    const m = await this.next((f) => f[0] === 'OK' && f[1] === event.id, from)
    return { ok: m[2] as boolean, message: m[3] as string }
  }
  /** Authenticates as `u` with a kind 22242 event. */
  async auth(u: User, url: string): Promise<PublishResult> {
    const e = u.sign({
      kind: 22242,
      tags: [
        ['relay', url],
        ['challenge', this.challenge],
      ],
      created_at: Math.floor(Date.now() / 1000),
    })
    const from = this.frames.length
    this.send(['AUTH', e])
    const m = await this.next((f) => f[0] === 'OK' && f[1] === e.id, from)
    return { ok: m[2] as boolean, message: m[3] as string }
  }
  /** A REQ that resolves at EOSE or CLOSED with the events. */
  async req(subId: string, ...filters: Filter[]): Promise<{ events: NostrEvent[]; closed?: string }> {
    const from = this.frames.length
    this.send(['REQ', subId, ...filters])
    const end = await this.next((f) => (f[0] === 'EOSE' || f[0] === 'CLOSED') && f[1] === subId, from)
    const events = this.frames
      .slice(from)
      .filter((f) => f[0] === 'EVENT' && f[1] === subId)
      .map((f) => f[2] as NostrEvent)
    return end[0] === 'CLOSED' ? { events, closed: end[2] as string } : { events }
  }
  /** A round trip that proves the relay answered everything sent before it. */
  async ping(): Promise<void> {
    const id = `ping${this.frames.length}`
    await this.req(id, { limit: 0 })
  }
}

/** `['h', id]` plus extra tags. */
export const h = (id: string, ...tags: string[][]): string[][] => [['h', id], ...tags]

/** Signs many events fast (nostr-wasm), for tests that need bulk traffic. */
export async function signMany(
  u: User,
  templates: (Partial<EventTemplate> & { kind: number })[],
): Promise<NostrEvent[]> {
  const { initNostrWasm } = await import('nostr-wasm')
  const nw = await initNostrWasm()
  const now = Math.floor(Date.now() / 1000)
  return templates.map((t) => {
    const e = { content: '', tags: [], created_at: now, ...t } as unknown as NostrEvent
    nw.finalizeEvent(e, u.sk)
    return e
  })
}
