/**
 * A deterministic simulation of one user's devices syncing read state through two relays with
 * random delays, drops, partitions, relay restarts, replays of old events, device restarts and
 * clones. Everything runs on one virtual clock driven by a seeded PRNG, so a failing seed replays
 * exactly.
 */
import type { NostrEvent } from 'nostr-tools'
import {
  type BlobInput,
  blobSize,
  contextKind,
  type Effect,
  type EngineState,
  type ParentResolver,
  parseBlob,
  ReadStateEngine,
  readSlot,
} from '../src'

export const SIM_PUBKEY = '1'.repeat(64)

/** mulberry32: small, fast, good enough for schedules. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const HEX_A = 'a1'.repeat(32)
const HEX_B = 'b2'.repeat(32)
const HEX_C = 'c3'.repeat(32)
export const SIM_CONTEXTS = [
  'ch1',
  'ch2',
  "wss://groups.example.com'general",
  `thread:${HEX_A}`,
  `thread:${HEX_B}`,
  `msg:${HEX_C}`,
  'thread:short',
  'é-channel',
]
export const simParentOf: ParentResolver = (ctx) => {
  const k = contextKind(ctx)
  if (k === 'thread') return 'ch1'
  if (k === 'msg') return 'ch2'
  return undefined
}

interface Stored {
  event: NostrEvent
  plaintext: string | null
}

interface Sub {
  device: Device
  gen: number
}

class Relay {
  readonly byCoord = new Map<string, Stored>()
  readonly tombstones = new Map<string, number>()
  up = true
  subs = new Set<Sub>()

  constructor(readonly name: string) {}

  store(s: Stored): boolean {
    const e = s.event
    if (e.kind === 5) {
      for (const t of e.tags) {
        if (t[0] !== 'a' || !t[1]) continue
        const d = t[1].split(':').slice(2).join(':')
        this.tombstones.set(d, Math.max(this.tombstones.get(d) ?? 0, e.created_at))
        const cur = this.byCoord.get(d)
        if (cur && cur.event.created_at <= e.created_at) this.byCoord.delete(d)
      }
      return true
    }
    const d = e.tags.find((t) => t[0] === 'd')?.[1] ?? ''
    const tomb = this.tombstones.get(d)
    if (tomb !== undefined && e.created_at <= tomb) return false
    const cur = this.byCoord.get(d)
    if (cur) {
      if (cur.event.id === e.id) return true // duplicate: OK, not re-broadcast
      if (e.created_at < cur.event.created_at) return false
      if (e.created_at === cur.event.created_at && e.id > cur.event.id) return false
    }
    this.byCoord.set(d, s)
    return true
  }

  query(filter: { '#d'?: string[]; since?: number }): Stored[] {
    const out: Stored[] = []
    for (const [d, s] of this.byCoord) {
      if (filter['#d'] && !filter['#d'].includes(d)) continue
      if (filter.since !== undefined && s.event.created_at < filter.since) continue
      out.push(s)
    }
    return out
  }
}

type Task = { at: number; seq: number; run: () => void }

export interface SimOptions {
  devices: number
  budget?: number
  /** Per-device budgets (overrides `budget`): e.g. one device evicting while another carries. */
  budgets?: number[]
  /** Extra contexts to draw marks from (to push blobs over a small budget). */
  extraContexts?: number
  chaosMs: number
  marks: number
  drop: number
  clone: boolean
}

export interface SimResult {
  expected: Record<string, number>
  finals: Record<string, number>[]
  publishes: number
  quietPublishes: number
  marks: number
  violations: string[]
  /** The finished simulation, for debugging a failing seed. */
  sim: Simulation
}

class Device {
  engine!: ReadStateEngine
  gen = 0
  persisted: EngineState | undefined
  wakeToken = 0
  seen: Record<string, number> = {}
  seenEffective: Record<string, number> = {}
  publishes = 0
  /** Some publish of this device left contexts out (over budget). */
  evicted = false
  connected = new Set<Relay>()

  constructor(
    readonly sim: Simulation,
    readonly name: string,
    readonly skewMs: number,
    readonly idSource: () => string,
  ) {}

  boot(): void {
    this.gen++
    this.engine = new ReadStateEngine({
      pubkey: SIM_PUBKEY,
      clock: () => this.sim.now + this.skewMs,
      randomId: this.idSource,
      ...(this.persisted ? { state: this.persisted } : {}),
      ...(this.budget() !== 32_768 ? { budget: this.budget() } : {}),
      parentOf: simParentOf,
    })
    this.run(this.engine.start())
  }

  run(effects: Effect[]): void {
    this.checkMonotonic()
    const gen = this.gen
    for (const e of effects) {
      switch (e.type) {
        case 'load':
          this.sim.queryAll(this, e.filter, (events) => {
            if (gen === this.gen) this.run(this.engine.loaded(events))
          })
          break
        case 'subscribe':
          for (const r of this.sim.relays) this.sim.subscribe(this, r)
          break
        case 'fetch-own':
          this.sim.queryAll(this, e.filter, (events) => {
            if (gen === this.gen) this.run(this.engine.ownFetched(e.ref, events))
          })
          break
        case 'publish': {
          const bytes = blobSize({ clientId: this.engine.clientId, contexts: e.contexts })
          if (bytes > this.budget()) this.sim.violation(`${this.name} published ${bytes} bytes`)
          if (new TextEncoder().encode(e.plaintext).length !== bytes) this.sim.violation('blobSize mismatch')
          this.publishes++
          if (Object.keys(e.contexts).length < Object.keys(this.engine.contexts).length) this.evicted = true
          this.sim.publishCount++
          const event = this.sim.sign(e.kind, e.createdAt, e.tags)
          this.sim.checkNotOverwritingOthers(this, event, e.plaintext)
          this.sim.publishAll(this, { event, plaintext: e.plaintext }, (ok) => {
            if (gen === this.gen) this.run(this.engine.published(e.ref, { id: event.id, ok }))
          })
          break
        }
        case 'delete': {
          const event = this.sim.sign(5, e.template.created_at, e.template.tags)
          this.sim.publishAll(this, { event, plaintext: null }, () => {})
          break
        }
        case 'wake': {
          const token = ++this.wakeToken
          if (e.at !== null) {
            this.sim.at(e.at - this.skewMs, () => {
              if (gen === this.gen && token === this.wakeToken) this.run(this.engine.tick())
            })
          }
          break
        }
        case 'persist':
          this.persisted = JSON.parse(JSON.stringify(e.state)) as EngineState
          break
        case 'changed':
        case 'rotated':
          break
      }
    }
    this.checkMonotonic()
  }

  budget(): number {
    const i = this.sim.devices.indexOf(this)
    return this.sim.opts.budgets?.[i] ?? this.sim.opts.budget ?? 32_768
  }

  deliver(s: Stored): void {
    const input: BlobInput = { event: s.event, plaintext: s.plaintext }
    this.run(this.engine.receive(input))
  }

  checkMonotonic(): void {
    if (!this.engine) return
    for (const [k, v] of Object.entries(this.engine.contexts)) {
      const before = this.seen[k]
      if (before !== undefined && v < before)
        this.sim.violation(`${this.name}: ${k} went down ${before} → ${v}`)
      this.seen[k] = v
    }
    for (const k of SIM_CONTEXTS) {
      const v = this.engine.effective(k)
      const before = this.seenEffective[k]
      if (v === undefined) {
        if (before !== undefined) this.sim.violation(`${this.name}: effective(${k}) became unknown`)
        continue
      }
      if (before !== undefined && v < before) this.sim.violation(`${this.name}: effective(${k}) went down`)
      this.seenEffective[k] = v
    }
  }
}

/** Virtual time starts here (ms). */
export const SIM_T0 = 1_700_000_000_000

export class Simulation {
  now = SIM_T0
  private seq = 0
  private readonly queue: Task[] = []
  readonly relays = [new Relay('r0'), new Relay('r1')]
  readonly devices: Device[] = []
  readonly rand: () => number
  readonly links = new Map<string, boolean>()
  drop: number
  publishCount = 0
  private idCounter = 0
  readonly history: Stored[] = []
  readonly violations: string[] = []
  readonly expected: Record<string, number> = {}

  constructor(
    readonly seed: number,
    readonly opts: SimOptions,
  ) {
    this.rand = prng(seed)
    this.drop = opts.drop
    for (let i = 0; i < opts.devices; i++) {
      const idRand = prng(seed * 31 + i + 1)
      const idSource = () => Array.from({ length: 32 }, () => Math.floor(idRand() * 16).toString(16)).join('')
      this.devices.push(new Device(this, `d${i}`, Math.round((this.rand() - 0.5) * 600_000), idSource))
    }
  }

  violation(msg: string): void {
    if (this.violations.length < 20) this.violations.push(`t=${this.now}: ${msg}`)
  }

  at(time: number, run: () => void): void {
    const task = { at: Math.max(time, this.now), seq: this.seq++, run }
    // binary insertion keeps the queue ordered by (at, seq)
    let lo = 0
    let hi = this.queue.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      const m = this.queue[mid]!
      if (m.at < task.at || (m.at === task.at && m.seq < task.seq)) lo = mid + 1
      else hi = mid
    }
    this.queue.splice(lo, 0, task)
  }

  after(ms: number, run: () => void): void {
    this.at(this.now + ms, run)
  }

  runUntil(time: number): void {
    while (this.queue.length > 0 && this.queue[0]!.at <= time) {
      const task = this.queue.shift()!
      this.now = task.at
      task.run()
    }
    this.now = time
  }

  delay(): number {
    return 5 + Math.floor(this.rand() * 400)
  }

  linkUp(d: Device, r: Relay): boolean {
    return r.up && this.links.get(`${d.name}/${r.name}`) !== false
  }

  sign(kind: number, createdAt: number, tags: string[][]): NostrEvent {
    return {
      id: (++this.idCounter).toString(16).padStart(64, '0'),
      pubkey: SIM_PUBKEY,
      kind,
      created_at: createdAt,
      tags: tags.map((t) => [...t]),
      content: 'AgAA',
      sig: '0'.repeat(128),
    }
  }

  /** Never publish at a coordinate whose newest version belongs to another client_id (spec 59). */
  checkNotOverwritingOthers(d: Device, event: NostrEvent, plaintext: string): void {
    const slot = readSlot(event)
    const mine = parseBlob(plaintext)
    if (!slot.ok || !mine.ok) {
      this.violation('bad publish envelope')
      return
    }
    for (const r of this.relays) {
      const cur = r.byCoord.get(`read-state:${slot.slotId}`)
      if (!cur?.plaintext) continue
      const theirs = parseBlob(cur.plaintext)
      if (theirs.ok && theirs.blob.clientId !== mine.blob.clientId && !d.sim.isCloneScenario)
        this.violation(`${d.name} overwrote ${theirs.blob.clientId}'s blob`)
    }
  }

  isCloneScenario = false

  queryAll(
    d: Device,
    filter: { '#d'?: string[]; since?: number },
    done: (events: BlobInput[]) => void,
  ): void {
    let remaining = this.relays.length
    const out: BlobInput[] = []
    let finished = false
    const finish = () => {
      if (finished) return
      finished = true
      done(out)
    }
    for (const r of this.relays) {
      const answered = { v: false }
      const reply = () => {
        if (answered.v) return
        answered.v = true
        if (--remaining === 0) finish()
      }
      if (this.linkUp(d, r) && this.rand() >= this.drop) {
        this.after(this.delay(), () => {
          if (!this.linkUp(d, r)) return
          const found = r.query(filter)
          this.after(this.delay(), () => {
            if (this.rand() < this.drop) return
            for (const s of found) out.push({ event: s.event, plaintext: s.plaintext })
            reply()
          })
        })
      }
      this.after(2_000, reply) // timeout: proceed with what reachable relays gave
    }
  }

  publishAll(d: Device, s: Stored, done: (ok: boolean) => void): void {
    this.history.push(s)
    let remaining = this.relays.length
    let anyOk = false
    for (const r of this.relays) {
      const answered = { v: false }
      const reply = (ok: boolean) => {
        if (answered.v) return
        answered.v = true
        anyOk ||= ok
        if (--remaining === 0) done(anyOk)
      }
      if (this.linkUp(d, r) && this.rand() >= this.drop) {
        this.after(this.delay(), () => {
          if (!this.linkUp(d, r)) return
          const before = r.byCoord.get(s.event.tags.find((t) => t[0] === 'd')?.[1] ?? '')
          const ok = r.store(s)
          if (ok && before?.event.id !== s.event.id && s.event.kind !== 5) this.broadcast(r, s)
          this.after(this.delay(), () => {
            if (this.rand() >= this.drop) reply(ok)
          })
        })
      }
      this.after(2_500, () => reply(false))
    }
  }

  broadcast(r: Relay, s: Stored): void {
    for (const sub of [...r.subs]) {
      if (!this.linkUp(sub.device, r)) continue
      if (this.rand() < this.drop) {
        // a lost message means a lost connection: the client resubscribes at its next reconnect
        r.subs.delete(sub)
        continue
      }
      this.after(this.delay(), () => {
        if (sub.gen === sub.device.gen && r.subs.has(sub) && this.linkUp(sub.device, r)) sub.device.deliver(s)
      })
    }
  }

  subscribe(d: Device, r: Relay): void {
    for (const sub of [...r.subs]) if (sub.device === d) r.subs.delete(sub)
    if (!this.linkUp(d, r)) return
    const sub = { device: d, gen: d.gen }
    r.subs.add(sub)
    d.connected.add(r)
    // stored events first (REQ without since on the live filter)
    for (const s of r.query({})) {
      this.after(this.delay(), () => {
        if (sub.gen === d.gen && r.subs.has(sub)) d.deliver(s)
      })
    }
  }

  /** Link or relay state changed: drop dead subscriptions, resubscribe live ones (a reconnect). */
  reconnect(): void {
    for (const r of this.relays) {
      for (const sub of [...r.subs]) if (!this.linkUp(sub.device, r)) r.subs.delete(sub)
      for (const d of this.devices) {
        const has = [...r.subs].some((s) => s.device === d && s.gen === d.gen)
        if (!has && this.linkUp(d, r) && d.engine) this.subscribe(d, r)
      }
    }
  }

  /** Marks per device name, for checks that depend on who marked. */
  readonly marksBy: Record<string, Record<string, number>> = {}

  mark(d: Device, ctx: string, ts: number): void {
    this.expected[ctx] = Math.max(this.expected[ctx] ?? 0, ts)
    const mine = this.marksBy[d.name] ?? {}
    mine[ctx] = Math.max(mine[ctx] ?? 0, ts)
    this.marksBy[d.name] = mine
    d.run(d.engine.markRead(ctx, ts))
  }
}

/** Runs one seeded schedule and reports what the invariants need. */
export function runSchedule(seed: number, opts: SimOptions): SimResult {
  const sim = new Simulation(seed, opts)
  const r = sim.rand
  const t0 = SIM_T0
  for (const d of sim.devices) sim.after(Math.floor(r() * 3000), () => d.boot())
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!
  const extra = Array.from({ length: opts.extraContexts ?? 0 }, (_, i) =>
    i % 2 === 0 ? `thread:${i.toString(16).padStart(64, 'e')}` : `channel-with-a-long-name-${i}`,
  )
  const pickContext = () => (extra.length > 0 && r() < 0.7 ? pick(extra) : pick(SIM_CONTEXTS))
  let marks = 0
  // every device marks at least once during the chaos
  for (const d of sim.devices) {
    marks++
    const t = t0 + 3000 + Math.floor(r() * opts.chaosMs)
    const ctx = pick(SIM_CONTEXTS)
    const ts = 1_700_000_000 + Math.floor(r() * 1000)
    sim.at(t, () => d.engine && sim.mark(d, ctx, ts))
  }
  // chaos
  const chaosEvents = Math.floor(opts.marks * 2.5)
  for (let i = 0; i < chaosEvents; i++) {
    const t = t0 + 3000 + Math.floor(r() * opts.chaosMs)
    const roll = r()
    if (roll < 0.4) {
      marks++
      const d = pick(sim.devices)
      const ctx = pickContext()
      const ts = 1_700_000_000 + Math.floor(r() * 1000)
      sim.at(t, () => d.engine && sim.mark(d, ctx, ts))
    } else if (roll < 0.55) {
      const d = pick(sim.devices)
      const rel = pick(sim.relays)
      const down = r() < 0.6
      sim.at(t, () => {
        sim.links.set(`${d.name}/${rel.name}`, !down)
        sim.reconnect()
      })
    } else if (roll < 0.62) {
      const rel = pick(sim.relays)
      const downFor = 1000 + Math.floor(r() * 20_000)
      sim.at(t, () => {
        rel.up = false
        rel.subs.clear()
      })
      sim.at(t + downFor, () => {
        rel.up = true // restarted with the same database: keeps its events
        sim.reconnect()
      })
    } else if (roll < 0.8) {
      // replay an old event to a device, or to a relay
      sim.at(t, () => {
        if (sim.history.length === 0) return
        const old = pick(sim.history)
        if (old.event.kind !== 30078) return
        if (r() < 0.5) {
          const d = pick(sim.devices)
          if (d.engine) d.deliver(old)
        } else {
          const rel = pick(sim.relays)
          if (rel.up && rel.store(old)) sim.broadcast(rel, old)
        }
      })
    } else if (roll < 0.86) {
      // device restart from its persisted state (in-flight answers are lost)
      const d = pick(sim.devices)
      sim.at(t, () => {
        if (!d.engine) return
        for (const rel of sim.relays)
          for (const sub of [...rel.subs]) if (sub.device === d) rel.subs.delete(sub)
        d.boot()
      })
    } else {
      // the app flushes on page hide
      const d = pick(sim.devices)
      sim.at(t, () => d.engine && d.run(d.engine.flush()))
    }
  }
  if (opts.clone) {
    sim.isCloneScenario = true
    // a backup of device 0 restored as a new installation sharing its client_id and slot
    sim.at(t0 + 3000 + Math.floor(r() * opts.chaosMs * 0.5), () => {
      const src = sim.devices[0]!
      if (!src.persisted) return
      const idRand = prng(seed ^ 0x5eed)
      const clone = new Device(sim, `d${sim.devices.length}`, src.skewMs, () =>
        Array.from({ length: 32 }, () => Math.floor(idRand() * 16).toString(16)).join(''),
      )
      clone.persisted = JSON.parse(JSON.stringify(src.persisted)) as EngineState
      sim.devices.push(clone)
      clone.boot()
      sim.at(sim.now + 5000, () => {
        const ts = 1_700_001_000 + Math.floor(r() * 500)
        sim.mark(clone, pick(SIM_CONTEXTS), ts)
        marks++
      })
    })
  }
  const healAt = t0 + 3000 + opts.chaosMs + 1000
  sim.runUntil(healAt)
  // heal: every link and relay up, no more drops; clients reconnect and resubscribe
  sim.drop = 0
  sim.links.clear()
  for (const rel of sim.relays) rel.up = true
  sim.reconnect()
  const settleUntil = healAt + 20 * 60_000
  sim.runUntil(settleUntil)
  const before = sim.publishCount
  sim.runUntil(settleUntil + 30 * 60_000)
  const quietPublishes = sim.publishCount - before
  return {
    expected: sim.expected,
    finals: sim.devices.map((d) => ({ ...d.engine.contexts })),
    publishes: sim.publishCount,
    quietPublishes,
    marks,
    violations: sim.violations,
    sim,
  }
}
