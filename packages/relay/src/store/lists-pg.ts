import type pg from 'pg'
import type { ListEntry, ListName } from './store'

/** What the pool and one checked-out client both offer. */
type Q = Pick<pg.Pool, 'query'>

/** SQLSTATE of the `events` trigger that refuses a banned key or event (migration 0003). */
export const BANNED_SQLSTATE = 'RB403'

/**
 * The operator's lists on PostgreSQL (the `moderation` table of migration `0003_moderation.sql`).
 * Writes run inside a unit's transaction; the unit's fan-out tells the other processes to read the
 * lists again. Values and notes hold no NUL (the management API refuses it).
 *
 * @example
 * await putListed(client, 'banned-pubkey', pubkey, 'spam')
 * await allLists(pool) // [{ list: 'banned-pubkey', value: pubkey, note: 'spam' }]
 */
export async function allLists(q: Q): Promise<ListEntry[]> {
  const { rows } = await q.query<ListEntry>(
    'SELECT list, value, note FROM moderation ORDER BY at, list, value',
  )
  return rows.map((r) => ({ list: r.list, value: r.value, note: r.note }))
}

/** Adds an entry, or replaces its note. */
export async function putListed(q: Q, list: ListName, value: string, note: string): Promise<void> {
  await q.query(
    `INSERT INTO moderation (list, value, note, at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (list, value) DO UPDATE SET note = excluded.note`,
    [list, value, note, Math.floor(Date.now() / 1000)],
  )
}

/** Removes an entry; resolves to whether it was there. */
export async function dropListed(q: Q, list: ListName, value: string): Promise<boolean> {
  const r = await q.query('DELETE FROM moderation WHERE list = $1 AND value = $2', [list, value])
  return (r.rowCount ?? 0) > 0
}
