/** The relay's SQLite schema. `tags` is indexed on (name, value, created_at DESC) so a group's newest page is an index walk. */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  pubkey TEXT NOT NULL,
  kind INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  d TEXT,
  grp TEXT,
  json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_created ON events (created_at DESC);
CREATE INDEX IF NOT EXISTS events_kind ON events (kind, created_at DESC);
CREATE INDEX IF NOT EXISTS events_pubkey ON events (pubkey, created_at DESC);
CREATE INDEX IF NOT EXISTS events_replace ON events (kind, pubkey, d);
CREATE INDEX IF NOT EXISTS events_grp ON events (grp);
CREATE TABLE IF NOT EXISTS tags (
  event INTEGER NOT NULL REFERENCES events (rowid) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tags_lookup ON tags (name, value, created_at DESC);
CREATE INDEX IF NOT EXISTS tags_event ON tags (event);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS groups (id TEXT PRIMARY KEY, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deleted_ids (id TEXT PRIMARY KEY, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS moderation (
  list TEXT NOT NULL,
  value TEXT NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  at INTEGER NOT NULL,
  PRIMARY KEY (list, value)
);
`
