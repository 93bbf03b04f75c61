/**
 * Relay ingest as users run it: `roost-relay` in its own process with a file database, fed over
 * a real WebSocket from this process: 10 authors posting kind 9 with `previous` references, 100
 * EVENTs in flight, each OK timed from its EVENT. Measured against ONE
 * thread of nostr-wasm verifying the same events (fresh copies, as they arrive) in the same run,
 * rounds alternating; and a 2,000-member group against a 10-member group on the same relay.
 *
 * The machine is shared: the rows keep the median of the rounds and the notes give each ratio's
 * spread over them.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { NostrEvent } from 'nostr-tools/core'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'
import WebSocket from 'ws'
import { record } from './lib'

const N = 3_000
const AUTHORS = 10
const IN_FLIGHT = 100
const ROUNDS = Number(process.env.ROOST_BENCH_ROUNDS ?? 5)
const BIG = 2_000

const nw = await initNostrWasm()
const dir = mkdtempSync(join(tmpdir(), 'roost-relay-ingest-'))
const bin = fileURLToPath(new URL('../packages/relay/bin/roost-relay.mjs', import.meta.url))
const workersArg = process.env.ROOST_BENCH_WORKERS

/** Starts the CLI relay in a child process on a fresh file database; resolves to its URL. */
async function startRelayProcess(): Promise<{ url: string; child: ChildProcess }> {
  const args = [bin, '--port', '0', '--db', join(dir, 'relay.db'), '--rate-limit', '0']
  if (workersArg !== undefined) args.push('--workers', workersArg)
  const child = spawn(
    process.execPath,
    [
      ...(process.env.ROOST_BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.ROOST_BENCH_PROF] : []),
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d) => {
      out += String(d)
      const m = /listening on (ws:\/\/\S+)/.exec(out)
      if (m?.[1]) resolve(m[1])
    })
    child.once('exit', (code) => reject(new Error(`relay exited (${code})`)))
  })
  return { url, child }
}

const sign = (t: Omit<NostrEvent, 'id' | 'sig' | 'pubkey'>, sk: Uint8Array): NostrEvent => {
  const e = { ...t } as NostrEvent
  nw.finalizeEvent(e, sk)
  return e
}

async function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url)
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  return ws
}

/** Publishes one event and waits for its OK (setup only). */
async function publish(ws: WebSocket, e: NostrEvent): Promise<void> {
  const ok = await new Promise<unknown[]>((resolve) => {
    const on = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data))
      if (m[0] === 'OK' && m[1] === e.id) {
        ws.off('message', on)
        resolve(m)
      }
    }
    ws.on('message', on)
    ws.send(JSON.stringify(['EVENT', e]))
  })
  if (ok[2] !== true) throw new Error(`setup refused: ${ok[3]}`)
}

const authors = Array.from({ length: AUTHORS }, () => generateSecretKey())
const admin = generateSecretKey()

/** A new group with the authors (and `extra` other keys) as members. */
async function makeGroup(ws: WebSocket, id: string, extra: number): Promise<void> {
  const now = Math.floor(Date.now() / 1000)
  await publish(ws, sign({ kind: 9007, created_at: now, tags: [['h', id]], content: '' }, admin))
  const members = [
    ...authors.map((sk) => getPublicKey(sk)),
    ...Array.from({ length: extra }, () => getPublicKey(generateSecretKey())),
  ]
  for (let i = 0; i < members.length; i += 250) {
    const p = members.slice(i, i + 250).map((pk) => ['p', pk])
    await publish(ws, sign({ kind: 9000, created_at: now, tags: [['h', id], ...p], content: '' }, admin))
  }
}

/** N kind 9 events in `id`, round robin over the authors, each naming 3 events of other authors sent 11–13 before it. */
function messages(id: string, n: number): NostrEvent[] {
  const created = Math.floor(Date.now() / 1000)
  const out: NostrEvent[] = []
  for (let i = 0; i < n; i++) {
    const refs = [11, 12, 13].filter((k) => i - k >= 0).map((k) => (out[i - k] as NostrEvent).id.slice(0, 8))
    const tags = [['h', id]]
    if (refs.length > 0) tags.push(['previous', ...refs])
    out.push(
      sign(
        { kind: 9, created_at: created, tags, content: `message ${i} `.repeat(1 + (i % 8)) },
        authors[i % AUTHORS] as Uint8Array,
      ),
    )
  }
  return out
}

/**
 * Sends the events over one connection, IN_FLIGHT at a time (the next goes when an OK comes
 * back); resolves to events/s and the EVENT→OK latencies. One connection keeps the order the
 * events were sent in, so each event's `previous` references (sent 11–13 before it) are accepted
 * and still inside the 50-event window when it is checked.
 */
async function ingest(
  ws: WebSocket,
  events: NostrEvent[],
): Promise<{ rate: number; p50: number; p99: number }> {
  const frames = events.map((e) => JSON.stringify(['EVENT', e]))
  const sentAt = new Map<string, number>()
  const latencies: number[] = []
  let next = 0
  let answered = 0
  const start = performance.now()
  const done = new Promise<void>((resolve, reject) => {
    const send = () => {
      const i = next++
      sentAt.set((events[i] as NostrEvent).id, performance.now())
      ws.send(frames[i] as string)
    }
    ws.on('message', (data) => {
      const m = JSON.parse(String(data))
      if (m[0] !== 'OK') return
      const at = sentAt.get(m[1])
      if (at === undefined) return
      if (m[2] !== true) reject(new Error(`refused: ${m[3]}`))
      latencies.push(performance.now() - at)
      if (++answered === events.length) resolve()
      else if (next < events.length) send()
    })
    while (next < Math.min(IN_FLIGHT, events.length)) send()
  })
  await done
  const elapsed = performance.now() - start
  ws.removeAllListeners('message')
  latencies.sort((a, b) => a - b)
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] as number
  return { rate: (events.length * 1000) / elapsed, p50: at(0.5), p99: at(0.99) }
}

/** One thread of nostr-wasm over fresh copies of the same events, as they would arrive. */
function wasmOneThread(events: NostrEvent[]): number {
  const copies = JSON.parse(JSON.stringify(events)) as NostrEvent[]
  const start = performance.now()
  for (const e of copies) nw.verifyEvent(e) // throws on a bad one
  return (copies.length * 1000) / (performance.now() - start)
}

/** A thread verifying the JSON events it is sent with nostr-wasm; answers with the milliseconds it took. */
const VERIFY_THREAD = `
const { parentPort, workerData } = require('node:worker_threads')
import(workerData.nostrWasm).then(async ({ initNostrWasm }) => {
  const nw = await initNostrWasm()
  parentPort.on('message', (events) => {
    const start = performance.now()
    for (const json of events) nw.verifyEvent(JSON.parse(json))
    parentPort.postMessage(performance.now() - start)
  })
})
`
const nostrWasmUrl = pathToFileURL(createRequire(import.meta.url).resolve('nostr-wasm')).href
const threads = Array.from(
  { length: availableParallelism() },
  () => new Worker(VERIFY_THREAD, { eval: true, workerData: { nostrWasm: nostrWasmUrl } }),
)
const onThread = (w: Worker, events: string[]) =>
  new Promise<number>((resolve) => {
    w.once('message', resolve)
    w.postMessage(events)
  })

/**
 * What this machine's cores can verify at all: the same events on one thread, then on every core
 * at once (one thread each, all in parallel); events/s of each. No relay, no client, no I/O.
 */
async function verifyCeiling(events: NostrEvent[]): Promise<{ one: number; all: number }> {
  const json = events.map((e) => JSON.stringify(e))
  const first = threads[0] as Worker
  const one = (json.length * 1000) / (await onThread(first, json))
  const start = performance.now()
  await Promise.all(threads.map((w) => onThread(w, json)))
  const all = (json.length * threads.length * 1000) / (performance.now() - start)
  return { one, all }
}

/**
 * CPU seconds the relay process has used so far: its main thread, and all its other threads (the
 * verification workers, the checkpoint thread, libuv). Read from /proc; undefined off Linux.
 */
function relayCpu(pid: number): { main: number; others: number } | undefined {
  try {
    let main = 0
    let others = 0
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100 // utime + stime, in clock ticks
      if (tid === String(pid)) main += seconds
      else others += seconds
    }
    return { main, others }
  } catch {
    return undefined
  }
}

/** Runs `ingest` and reports the CPU time per event of the relay's main thread, its other threads and this client. */
async function measured(ws: WebSocket, events: NostrEvent[], pid: number) {
  const before = relayCpu(pid)
  const mine = process.cpuUsage()
  const result = await ingest(ws, events)
  const used = process.cpuUsage(mine)
  const after = relayCpu(pid)
  const perEvent = (s: number) => (s * 1000) / events.length
  const cpu =
    before && after
      ? {
          main: perEvent(after.main - before.main),
          others: perEvent(after.others - before.others),
          client: perEvent((used.user + used.system) / 1e6),
        }
      : undefined
  return { ...result, cpu }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`

const { url, child } = await startRelayProcess()
try {
  const setup = await open(url)
  const ws = await open(url)
  // Warm-up: the relay's workers, JIT and page cache.
  await makeGroup(setup, 'warm', 0)
  const warm = messages('warm', 1_000)
  await ingest(ws, warm)
  wasmOneThread(warm)

  const small: number[] = []
  const big: number[] = []
  const wasm: number[] = []
  const p99s: number[] = []
  const p50s: number[] = []
  const cpus: { main: number; others: number; client: number }[] = []
  const ceilings: { one: number; all: number }[] = []
  await verifyCeiling(warm)
  for (let r = 0; r < ROUNDS; r++) {
    await makeGroup(setup, `small-${r}`, 0)
    await makeGroup(setup, `big-${r}`, BIG - AUTHORS)
    // Alternate which group goes first, so drifting load from elsewhere hits both.
    const a = messages(`small-${r}`, N)
    const b = messages(`big-${r}`, N)
    const pid = child.pid as number
    const x = r % 2 === 0 ? await measured(ws, a, pid) : undefined
    const y = await measured(ws, b, pid)
    const z = x ?? (await measured(ws, a, pid))
    if (z.cpu) cpus.push(z.cpu)
    wasm.push(wasmOneThread(a))
    wasm.push(wasmOneThread(b))
    ceilings.push(await verifyCeiling(a))
    small.push(z.rate)
    big.push(y.rate)
    p99s.push(z.p99)
    p50s.push(z.p50)
    const c = z.cpu
      ? `, CPU per event: relay main ${z.cpu.main.toFixed(2)} ms, relay workers ${z.cpu.others.toFixed(2)} ms, client ${z.cpu.client.toFixed(2)} ms`
      : ''
    console.log(
      `round ${r}: 10 members ${Math.round(z.rate)}/s (p50 ${z.p50.toFixed(1)} ms, p99 ${z.p99.toFixed(1)} ms${c}), ${BIG} members ${Math.round(y.rate)}/s (p99 ${y.p99.toFixed(1)} ms), wasm 1 thread ${Math.round(wasm[wasm.length - 2] as number)}–${Math.round(wasm[wasm.length - 1] as number)}/s`,
    )
  }
  const wasmPerRound = small.map((_, r) => ((wasm[2 * r] as number) + (wasm[2 * r + 1] as number)) / 2)
  const vsWasm = small.map((s, r) => s / (wasmPerRound[r] as number))
  const bigVsSmall = big.map((b, r) => b / (small[r] as number))
  const workers = workersArg ?? 'one per core'
  const cores = availableParallelism()
  const mid = (k: 'main' | 'others' | 'client') => median(cpus.map((c) => c[k]))
  const cpuNote =
    cpus.length > 0
      ? `; CPU per event (median): relay main thread ${mid('main').toFixed(2)} ms, relay's other threads (verification, checkpoints) ${mid('others').toFixed(2)} ms, this client ${mid('client').toFixed(2)} ms, so ${cores} cores allow at most ${Math.round((cores * 1000) / (mid('main') + mid('others') + mid('client')))}/s`
      : ''
  const load = `load average ${loadavg()[1]?.toFixed(1)} over the last 5 minutes`
  record({
    name: 'relay-ingest-ws-file-vs-wasm-1-thread',
    unit: 'event',
    ours: median(small),
    baseline: median(wasmPerRound),
    notes: `roost-relay in its own process (file db, workers: ${workers}), ${AUTHORS} authors over one WebSocket posting kind 9 with 3 previous refs each, ${IN_FLIGHT} EVENTs in flight, ${N} per round; baseline: one thread of nostr-wasm verifyEvent over fresh copies of the same events, same run; median of ${ROUNDS} rounds, ratio per round ${spread(vsWasm)}; EVENT→OK p50 ${median(p50s).toFixed(1)} ms, p99 ${median(p99s).toFixed(1)} ms (per round ${spread(p99s)} ms)${cpuNote}; ${load}`,
  })
  record({
    name: `relay-ingest-ws-file-${BIG}-members-vs-10-members`,
    unit: 'event',
    ours: median(big),
    baseline: median(small),
    notes: `the same ingest into a ${BIG}-member group vs a 10-member group on the same relay, rounds alternating; median of ${ROUNDS} rounds, ratio per round ${spread(bigVsSmall)}`,
  })
  const allVsOne = ceilings.map((c) => c.all / c.one)
  record({
    name: `verify-wasm-${cores}-threads-vs-1-thread`,
    unit: 'event',
    ours: median(ceilings.map((c) => c.all)),
    baseline: median(ceilings.map((c) => c.one)),
    notes: `the ceiling the relay's ingest row is measured under: nostr-wasm verifyEvent (JSON.parse included) over the same ${N} events on ${cores} worker threads at once vs on one, nothing else running; median of ${ROUNDS} rounds, ratio per round ${spread(allVsOne)}; ${load}`,
  })
  for (const s of [setup, ws]) s.close()
} finally {
  await Promise.all(threads.map((w) => w.terminate()))
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  rmSync(dir, { recursive: true, force: true })
}
