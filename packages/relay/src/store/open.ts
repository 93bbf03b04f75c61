import { isPostgresUrl } from './db-url'
import { PostgresStore } from './postgres'
import { SqliteStore } from './sqlite'
import type { EventStore } from './store'

/**
 * Opens the store `db` names: a PostgreSQL URL (migrations applied, fan-out listening), a SQLite
 * file path, or `:memory:`.
 *
 * @example
 * const store = await openStore('postgres://relay@localhost/roost', () => relayKey)
 */
export async function openStore(
  db: string,
  relayKey: () => string,
  log?: (line: string) => void,
): Promise<EventStore> {
  if (isPostgresUrl(db)) return PostgresStore.open(db, relayKey, log ? { log } : {})
  return new SqliteStore(db, relayKey)
}
