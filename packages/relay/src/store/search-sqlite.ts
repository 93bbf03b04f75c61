import type Database from 'better-sqlite3'

/**
 * The NIP-50 index on SQLite: an FTS5 table of event contents. `EventDatabase.insert` adds each
 * stored event's content itself (it holds the content already; a trigger would parse the stored
 * JSON again for every insert) and a trigger removes it with the event. Diacritics are folded
 * (`wörld` finds `world`).
 */
const SEARCH_SCHEMA = `
CREATE VIRTUAL TABLE IF NOT EXISTS events_fts USING fts5(
  content, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);
DROP TRIGGER IF EXISTS events_fts_insert;
CREATE TRIGGER IF NOT EXISTS events_fts_delete AFTER DELETE ON events BEGIN
  DELETE FROM events_fts WHERE rowid = old.rowid;
END;
`

/** Adds one stored event's content to the index (nothing for an empty content). */
export const SEARCH_INSERT = 'INSERT INTO events_fts (rowid, content) VALUES (?, ?)'

/** Creates the search index if the file lacks it, indexing the events already stored. */
export function installSearch(db: Database.Database): void {
  const had = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'events_fts'").get()
  db.exec(SEARCH_SCHEMA)
  if (!had)
    db.exec(`INSERT INTO events_fts (rowid, content)
      SELECT rowid, json_extract(json, '$.content') FROM events WHERE json_extract(json, '$.content') <> ''`)
}

/** The FTS5 query of some search terms: every term, as a word prefix (terms hold only letters and digits). */
export function ftsQuery(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"*`).join(' ')
}
