-- The relay's storage on PostgreSQL: events with their indexed single-letter tags, group records,
-- relay settings and remembered deletions. Identifiers and tag values compare bytewise (COLLATE "C")
-- so ordering matches SQLite's.
CREATE TABLE events (
  seq bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  pubkey text COLLATE "C" NOT NULL,
  kind integer NOT NULL,
  created_at bigint NOT NULL,
  d text COLLATE "C",
  grp text COLLATE "C",
  json text NOT NULL
);
CREATE INDEX events_created ON events (created_at DESC);
CREATE INDEX events_kind ON events (kind, created_at DESC);
CREATE INDEX events_pubkey ON events (pubkey, created_at DESC);
CREATE INDEX events_replace ON events (kind, pubkey, d) WHERE d IS NOT NULL;
CREATE INDEX events_grp ON events (grp, seq DESC) WHERE grp IS NOT NULL;

CREATE TABLE tags (
  event bigint NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
  name text COLLATE "C" NOT NULL,
  value text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX tags_lookup ON tags (name, value, created_at DESC, event DESC);
CREATE INDEX tags_event ON tags (event);

CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);

-- One row per group; version grows with every write so processes can tell a newer record.
CREATE TABLE groups (id text COLLATE "C" PRIMARY KEY, state text NOT NULL, version bigint NOT NULL);

CREATE TABLE deleted_ids (id text COLLATE "C" PRIMARY KEY, at bigint NOT NULL);
CREATE INDEX deleted_ids_at ON deleted_ids (at DESC);

-- Fan-out payloads too large for one NOTIFY (8,000 bytes): the notification carries the row's seq.
CREATE TABLE fanout (seq bigserial PRIMARY KEY, payload text NOT NULL, at timestamptz NOT NULL DEFAULT now());
