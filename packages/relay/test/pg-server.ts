/**
 * A throwaway PostgreSQL server for tests and benchmarks: initdb in a temporary directory, started
 * with pg_ctl on a free port, removed on stop. The server refuses to run as root, so under root the
 * commands run as the `postgres` system user.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

export interface PgServer {
  /** A superuser URL of the `postgres` database. */
  url: string
  /** The URL of another database on this server. */
  urlOf(database: string): string
  /** Stops the server abruptly (like a crash), then starts it again on the same port. */
  crashAndRestart(): void
  /** Stops the server and removes its files. */
  stop(): void
}

/** Where initdb and pg_ctl live: $PG_BIN, the newest Debian /usr/lib/postgresql/N/bin, or PATH. */
export function pgBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0]) return join(root, versions[0], 'bin')
  }
  const which = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' })
  if (which.status === 0 && which.stdout.trim()) return join(which.stdout.trim(), '..')
  throw new Error(
    'PostgreSQL 15+ server binaries not found (initdb, pg_ctl): install them (Debian: apt-get install postgresql) or set PG_BIN',
  )
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** Starts a fresh server. Durable commits stay on (acknowledged means on disk for the fault tests); fsync is off. */
export async function startPgServer(): Promise<PgServer> {
  const bin = pgBinDir()
  const asRoot = userInfo().uid === 0
  const dir = mkdtempSync(join(tmpdir(), 'roost-pg-'))
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    chownSync(dir, uid, gid)
  }
  chmodSync(dir, 0o700)
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]]
      : [join(bin, cmd), args]
    const r = spawnSync(file, argv, { encoding: 'utf8', cwd: dir })
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`)
  }
  const data = join(dir, 'data')
  run('initdb', ['-D', data, '-U', 'roost', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'])
  const port = await freePort()
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=400',
    '-c shared_buffers=64MB',
  ].join(' ')
  const start = () => run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', 'start'])
  start()
  const urlOf = (database: string) => `postgres://roost@127.0.0.1:${port}/${database}`
  let stopped = false
  return {
    url: urlOf('postgres'),
    urlOf,
    crashAndRestart() {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      start()
    },
    stop() {
      if (stopped) return
      stopped = true
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
