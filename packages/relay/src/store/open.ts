import { loadOptional } from '../optional'
import { isPostgresUrl } from './db-url'
import { SqliteStore } from './sqlite'
import type { EventStore } from './store'

/**
 * Opens the store `db` names: a PostgreSQL URL (migrations applied, fan-out listening), a SQLite
 * file path, or `:memory:`. PostgreSQL's driver (`pg`) is an optional peer, loaded only here:
 * without it a PostgreSQL URL rejects with `MissingPackageError` naming it.
 *
 * @example
 * const store = await openStore('postgres://relay@localhost/roost', () => relayKey)
 */
export async function openStore(
  db: string,
  relayKey: () => string,
  log?: (line: string) => void,
): Promise<EventStore> {
  if (isPostgresUrl(db)) {
    const { PostgresStore } = await loadOptional('pg', '--db postgres://…', () => import('./postgres'))
    return PostgresStore.open(db, relayKey, log ? { log } : {})
  }
  return new SqliteStore(db, relayKey)
}
