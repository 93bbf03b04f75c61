import { readdirSync, readFileSync } from 'node:fs'
import type pg from 'pg'

/** One versioned schema change, read from `migrations/NNNN_name.sql`. */
export interface Migration {
  version: number
  name: string
  sql: string
}

const DIR = new URL('./migrations/', import.meta.url)
/** Taken for the whole migration so processes starting together apply each version once. */
const MIGRATION_LOCK = 0x726f6f7374

/** The migrations kept in the repository, in version order. */
export function migrations(): Migration[] {
  return readdirSync(DIR)
    .map((file) => /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({
      version: Number(m[1]),
      name: m[2] as string,
      sql: readFileSync(new URL(m[0], DIR), 'utf8'),
    }))
    .sort((a, b) => a.version - b.version)
}

/**
 * Applies the migrations this database lacks, each in the same transaction as its row in
 * `roost_migrations`; resolves to the versions applied now. A database newer than this code
 * (a version it does not know) is refused rather than run on.
 */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  const known = migrations()
  const client = await pool.connect()
  const ignore = () => {}
  client.on('error', ignore)
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query(`CREATE TABLE IF NOT EXISTS roost_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM roost_migrations')).rows.map(
        (r) => r.version,
      ),
    )
    const newest = Math.max(0, ...known.map((m) => m.version))
    const unknown = [...done].filter((v) => v > newest)
    if (unknown.length > 0)
      throw new Error(
        `the database has schema version ${Math.max(...unknown)}, newer than this relay (${newest})`,
      )
    const applied: number[] = []
    for (const m of known) {
      if (done.has(m.version)) continue
      await client.query(m.sql)
      await client.query('INSERT INTO roost_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
      applied.push(m.version)
    }
    await client.query('COMMIT')
    return applied
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  } finally {
    client.off('error', ignore)
    client.release()
  }
}
