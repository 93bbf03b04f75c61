/**
 * Shared helpers for the benchmarks. Every benchmark measures Roost beside a nostr-tools
 * baseline in the same process and records both, so a figure is never read without its baseline.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export interface Measurement {
  /** Short stable name, e.g. `ingest-5000-kind9`. */
  name: string
  /** What one operation is, e.g. `event`, `query`, `naddr`. */
  unit: string
  /** Operations per second for Roost. */
  ours: number
  /** Operations per second for the nostr-tools baseline, same inputs, same run. */
  baseline: number
  notes?: string
}

/** Runs `fn` `ops` times per round and returns the best operations/second over `rounds`. */
export async function opsPerSecond(
  fn: () => unknown | Promise<unknown>,
  ops: number,
  rounds = 5,
): Promise<number> {
  let best = 0
  for (let r = 0; r < rounds; r++) {
    const start = performance.now()
    await fn()
    const elapsed = performance.now() - start
    best = Math.max(best, (ops * 1000) / elapsed)
  }
  return best
}

const resultsPath = fileURLToPath(new URL('./results.json', import.meta.url))

/**
 * Prints one measurement with its ratio and stores it in `bench/results.json`, an array of
 * `{name, ours, baseline, ratio, unit, …}` in which a rerun replaces the entry of the same name.
 */
export function record(m: Measurement): void {
  const ratio = m.ours / m.baseline
  console.log(
    `${m.name.padEnd(36)} ours ${fmt(m.ours)} ${m.unit}/s   nostr-tools ${fmt(m.baseline)} ${m.unit}/s   ratio ${ratio.toFixed(2)}x${m.notes ? `   (${m.notes})` : ''}`,
  )
  const entry = { ...m, ratio: Number(ratio.toFixed(3)), node: process.version, at: new Date().toISOString() }
  const all = readResults().filter((r) => r.name !== m.name)
  all.push(entry)
  all.sort((a, b) => a.name.localeCompare(b.name))
  writeFileSync(resultsPath, JSON.stringify(all, null, 2) + '\n')
}

function readResults(): Measurement[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(resultsPath, 'utf8'))
    if (Array.isArray(parsed)) return parsed as Measurement[]
    // An older object keyed by name: keep its entries.
    if (parsed && typeof parsed === 'object') return Object.values(parsed) as Measurement[]
  } catch {}
  return []
}

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2)
}

/** Headless Chromium's flags for the web benches: no sandbox, GPU, QUIC or background chatter. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** The median of some samples (the upper one of an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}
