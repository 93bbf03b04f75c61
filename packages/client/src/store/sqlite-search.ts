import type Database from 'better-sqlite3'

/**
 * The local search index of the SQLite store: an FTS5 table of event contents kept by triggers on
 * `events`, so adding and dropping events is unchanged. Diacritics are folded (`creme` finds
 * `Crème`), as `searchTerms` of `@roost/nip29` expects.
 */
const SEARCH_SCHEMA = `
CREATE VIRTUAL TABLE IF NOT EXISTS events_fts USING fts5(
  content, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS events_fts_insert AFTER INSERT ON events
WHEN json_extract(new.json, '$.content') <> '' BEGIN
  INSERT INTO events_fts (rowid, content) VALUES (new.rowid, json_extract(new.json, '$.content'));
END;
CREATE TRIGGER IF NOT EXISTS events_fts_delete AFTER DELETE ON events BEGIN
  DELETE FROM events_fts WHERE rowid = old.rowid;
END;
`

/** Creates the index when the file lacks it (a cache written by an older version), indexing what it holds. */
export function installSearchIndex(db: Database.Database): void {
  const had = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'events_fts'").get()
  db.exec(SEARCH_SCHEMA)
  if (!had)
    db.exec(`INSERT INTO events_fts (rowid, content)
      SELECT rowid, json_extract(json, '$.content') FROM events WHERE json_extract(json, '$.content') <> ''`)
}

/** The FTS5 query of some search terms: every term, as a word prefix (terms hold only letters, digits and marks). */
export function ftsQuery(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"*`).join(' ')
}

/** The SELECT of one search shape; parameters: the FTS query, [forks JSON], [kinds JSON], [until], limit. */
export function searchSql(forks: boolean, kinds: boolean, until: boolean): string {
  const where = ['e.rowid IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ?)']
  if (forks)
    where.push(
      'EXISTS (SELECT 1 FROM forks f WHERE f.event = e.rowid AND f.fork IN (SELECT value FROM json_each(?)))',
    )
  if (kinds) where.push('e.kind IN (SELECT value FROM json_each(?))')
  if (until) where.push('e.created_at <= ?')
  return `SELECT e.json AS json FROM events e WHERE ${where.join(' AND ')} ORDER BY e.created_at DESC, e.id ASC LIMIT ?`
}
