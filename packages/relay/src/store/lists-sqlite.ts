import type Database from 'better-sqlite3'
import type { ListEntry, ListName } from './store'

/**
 * The operator's lists on SQLite (the `moderation` table of `schema.ts`), as prepared statements.
 * One process owns the file, so the relay's in-memory copy is kept current by the writes themselves.
 *
 * @example
 * const lists = new SqliteLists(db.sql)
 * lists.put('banned-pubkey', pubkey, 'spam', now)
 * lists.all() // [{ list: 'banned-pubkey', value: pubkey, note: 'spam' }]
 */
export class SqliteLists {
  private readonly stmts

  constructor(sql: Database.Database) {
    this.stmts = {
      all: sql.prepare<[], ListEntry>('SELECT list, value, note FROM moderation ORDER BY at, list, value'),
      put: sql.prepare(
        `INSERT INTO moderation (list, value, note, at) VALUES (?, ?, ?, ?)
         ON CONFLICT (list, value) DO UPDATE SET note = excluded.note`,
      ),
      drop: sql.prepare('DELETE FROM moderation WHERE list = ? AND value = ?'),
    }
  }

  all(): ListEntry[] {
    return this.stmts.all.all()
  }
  put(list: ListName, value: string, note: string, at: number): void {
    this.stmts.put.run(list, value, note, at)
  }
  drop(list: ListName, value: string): boolean {
    return this.stmts.drop.run(list, value).changes > 0
  }
}
