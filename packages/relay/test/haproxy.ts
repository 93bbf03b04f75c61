/**
 * A throwaway HAProxy (Debian's `haproxy`, or $HAPROXY) in front of relay processes, configured as
 * the relay README's example: WebSockets balanced by least connections, /healthz checks, the
 * client's address in X-Forwarded-For, and a failed connect retried on another process. Stopped
 * after the test file.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

const running = new Set<() => Promise<void>>()
afterAll(async () => {
  await Promise.all([...running].map((stop) => stop()))
})

/** The haproxy binary: $HAPROXY, else `haproxy` on the PATH (Debian puts it in /usr/sbin). */
export function haproxyBin(): string {
  if (process.env.HAPROXY) return process.env.HAPROXY
  for (const candidate of ['haproxy', '/usr/sbin/haproxy']) {
    if (spawnSync(candidate, ['-v'], { encoding: 'utf8' }).status === 0) return candidate
  }
  throw new Error('haproxy not found: install it (Debian: apt-get install haproxy) or set HAPROXY')
}

/** A free TCP port on 127.0.0.1 (for HAProxy's frontend, chosen before the relays need it in --url). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** The configuration the README documents, for relays on `backends` (ports on 127.0.0.1). */
export function haproxyConfig(port: number, backends: readonly number[]): string {
  return `global
  maxconn 4096

defaults
  mode http
  option forwardfor
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # An upgraded WebSocket lives as long as its client keeps it.
  timeout tunnel 1h
  # A connect refused by a process that just died is retried, and moved to another process.
  retries 3
  option redispatch 1

frontend relay
  bind 127.0.0.1:${port}
  default_backend relays

backend relays
  balance leastconn
  option httpchk
  http-check send meth GET uri /healthz
  http-check expect status 200
  # Checked every 500 ms; a connect that fails marks the process down at once, before its checks do.
  default-server check inter 500ms fall 2 rise 2 observe layer4 error-limit 1 on-error mark-down
${backends.map((p, i) => `  server relay${i + 1} 127.0.0.1:${p}`).join('\n')}
`
}

export interface Haproxy {
  /** `ws://127.0.0.1:PORT`: the one public URL. */
  url: string
  port: number
  stop(): Promise<void>
}

/** Starts HAProxy on `port` in front of `backends`; resolves once it accepts connections. */
export async function startHaproxy(port: number, backends: readonly number[]): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'roost-haproxy-'))
  const config = join(dir, 'haproxy.cfg')
  writeFileSync(config, haproxyConfig(port, backends))
  const check = spawnSync(haproxyBin(), ['-c', '-q', '-f', config], { encoding: 'utf8' })
  if (check.status !== 0) throw new Error(`haproxy refused its configuration: ${check.stderr}${check.stdout}`)
  // -db: stay in the foreground, so the child is HAProxy itself.
  const p: ChildProcess = spawn(haproxyBin(), ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] })
  const log: string[] = []
  p.stderr?.on('data', (d) => log.push(String(d)))
  const stop = async () => {
    running.delete(stop)
    if (p.exitCode === null && p.signalCode === null) {
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve())
        p.kill('SIGTERM')
      })
    }
    rmSync(dir, { recursive: true, force: true })
  }
  running.add(stop)
  for (let i = 0; ; i++) {
    if (p.exitCode !== null) throw new Error(`haproxy exited: ${log.join('')}`)
    const open = await new Promise<boolean>((resolve) => {
      const s = createConnection({ host: '127.0.0.1', port }, () => {
        s.end()
        resolve(true)
      })
      s.once('error', () => resolve(false))
    })
    if (open) break
    if (i > 200) throw new Error(`haproxy does not listen on ${port}: ${log.join('')}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { url: `ws://127.0.0.1:${port}`, port, stop }
}
