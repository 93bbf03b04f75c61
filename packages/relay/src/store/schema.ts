/**
 * The relay's SQLite schema. Answers are ordered by `created_at`, then arrival (rowid), both
 * descending: every index that drives a query ends in `created_at` then the event's rowid, both
 * ascending, so walking it backwards is the answer order and a group's newest page is an index walk
 * (`tags` on (name, value, created_at, event)). Files made before that order had `created_at DESC`
 * indexes; {@link DROP_OLD_INDEXES} replaces them once.
 */
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
CREATE INDEX IF NOT EXISTS events_at ON events (created_at);
CREATE INDEX IF NOT EXISTS events_kind_at ON events (kind, created_at);
CREATE INDEX IF NOT EXISTS events_pubkey_at ON events (pubkey, created_at);
CREATE INDEX IF NOT EXISTS events_replace ON events (kind, pubkey, d);
CREATE INDEX IF NOT EXISTS events_grp ON events (grp);
CREATE TABLE IF NOT EXISTS tags (
  event INTEGER NOT NULL REFERENCES events (rowid) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tags_at ON tags (name, value, created_at, event);
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

/** The indexes of the order before arrival broke ties (see {@link SCHEMA}). */
export const DROP_OLD_INDEXES = `
DROP INDEX IF EXISTS events_created;
DROP INDEX IF EXISTS events_kind;
DROP INDEX IF EXISTS events_pubkey;
DROP INDEX IF EXISTS tags_lookup;
`
