/**
 * Shared by the relay benches that run `roost-relay` in a process of its own (so the clients
 * measuring it do not share its event loop): start it, and a client that times REQ→EOSE.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import type { Filter } from 'nostr-tools'
import WebSocket from 'ws'

export interface RelayProcess {
  url: string
  stop(): Promise<void>
}

/** Starts `roost-relay --port 0` with `args` and resolves once it listens. */
export async function spawnRelay(args: string[]): Promise<RelayProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['packages/relay/bin/roost-relay.mjs', '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d) => {
      out += d
      const m = /listening on (ws:\/\/\S+)/.exec(out)
      if (m) resolve(m[1] as string)
    })
    child.once('exit', (code) => reject(new Error(`roost-relay exited with ${code}`)))
  })
  return {
    url,
    async stop() {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    },
  }
}

/** A connection that runs one REQ at a time and times it to EOSE (or CLOSED). */
export async function reqClient(url: string) {
  const ws = new WebSocket(url)
  await new Promise((resolve) => ws.once('open', resolve))
  const waiting = new Map<string, (m: unknown[]) => void>()
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as unknown[]
    if (m[0] === 'EOSE' || m[0] === 'CLOSED') waiting.get(m[1] as string)?.(m)
  })
  let n = 0
  return {
    ws,
    /** Milliseconds from REQ to EOSE; throws on CLOSED. */
    async time(filter: Filter): Promise<number> {
      const id = `r${n++}`
      const start = performance.now()
      const m = await new Promise<unknown[]>((resolve) => {
        waiting.set(id, resolve)
        ws.send(JSON.stringify(['REQ', id, filter]))
      })
      const ms = performance.now() - start
      waiting.delete(id)
      ws.send(JSON.stringify(['CLOSE', id]))
      if (m[0] === 'CLOSED') throw new Error(`closed: ${m[2]}`)
      return ms
    },
  }
}

/** The value at quantile `q` of some samples. */
export function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number
}
