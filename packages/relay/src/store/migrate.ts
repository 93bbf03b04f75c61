import { readdirSync, readFileSync } from 'node:fs'
import type { Sql } from 'postgres'

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
// biome-ignore lint/complexity/noBannedTypes: the driver's type for a client without custom types
export async function migrate(sql: Sql<{}>): Promise<number[]> {
  const known = migrations()
  return (await sql.begin(async (q) => {
    await q`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    await q`CREATE TABLE IF NOT EXISTS roost_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`
    const done = new Set(
      (await q<{ version: number }[]>`SELECT version FROM roost_migrations`).map((r) => r.version),
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
      await q.unsafe(m.sql)
      await q`INSERT INTO roost_migrations (version, name) VALUES (${m.version}, ${m.name})`
      applied.push(m.version)
    }
    return applied
  })) as number[]
}
