/**
 * Relay processes for the cluster tests: each is the real CLI (`roost-relay --db postgres://…`) in
 * its own Node process, stopped after the test file.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll } from 'vitest'

const BIN = fileURLToPath(new URL('../bin/roost-relay.mjs', import.meta.url))
const running = new Set<ChildProcess>()
afterAll(async () => {
  await Promise.all([...running].map((p) => stopProcess(p)))
})

function stopProcess(p: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  running.delete(p)
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    p.once('exit', () => resolve())
    p.kill(signal)
  })
}

export interface RelayProcess {
  url: string
  port: number
  /** Everything the process wrote to stderr (its --verbose log). */
  readonly log: string[]
  /** Everything the process wrote to stdout (its start banner). */
  readonly out: string[]
  /** `kill -9`: no shutdown, open transactions are abandoned. */
  kill9(): Promise<void>
  stop(): Promise<void>
}

/** Starts one relay process on `db` with the shared secret key; resolves once it listens. */
export async function relayProcess(
  db: string,
  secretKey: string,
  args: string[] = [],
): Promise<RelayProcess> {
  const p = spawn(process.execPath, [BIN, '--port', '0', '--db', db, '--secret-key', secretKey, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(p)
  const log: string[] = []
  p.stderr?.on('data', (d) => log.push(String(d)))
  p.once('exit', (code, signal) => log.push(`exited: ${signal ?? code}`))
  const out: string[] = []
  p.stdout?.on('data', (d) => out.push(String(d)))
  const url = await new Promise<string>((resolve, reject) => {
    p.stdout?.on('data', () => {
      const m = /listening on (ws:\/\/\S+)/.exec(out.join(''))
      if (m?.[1]) resolve(m[1])
    })
    p.once('exit', (code) =>
      reject(new Error(`relay process exited (${code}) before listening: ${log.join('')}`)),
    )
  })
  return {
    url,
    port: Number(new URL(url).port),
    log,
    out,
    kill9: () => stopProcess(p, 'SIGKILL'),
    stop: () => stopProcess(p),
  }
}
