import type Database from 'better-sqlite3'

/**
 * The NIP-50 index on SQLite: an FTS5 table of event contents whose rowid is the event's place in
 * the answer order, `created_at << 30 | rowid` (see {@link RANK}), so a search walks its matches
 * newest first straight from the index and stops at its limit, however many rows match. Its `h`
 * column holds one token per event naming its group (see {@link groupToken}), so a search scoped by
 * `#h`, or leaving out groups the reader may not see, is decided inside the index. Word prefixes of
 * 1 to 3 characters have prefix indexes (a short prefix would otherwise merge thousands of words'
 * lists on every query). Diacritics are folded (`wörld` finds `world`).
 *
 * `EventDatabase.insert` adds each stored event itself (it holds the content already); a trigger
 * removes it with the event. An older file's index (`events_fts`, by rowid) is rebuilt once.
 */
const SEARCH_SCHEMA = `
CREATE VIRTUAL TABLE IF NOT EXISTS events_search USING fts5(
  content, h, content='', contentless_delete=1, prefix='1 2 3', tokenize='unicode61 remove_diacritics 2'
);
DROP TRIGGER IF EXISTS events_fts_insert;
DROP TRIGGER IF EXISTS events_fts_delete;
DROP TABLE IF EXISTS events_fts;
CREATE TRIGGER IF NOT EXISTS events_search_delete AFTER DELETE ON events WHEN old.rowid < 1073741824 BEGIN
  DELETE FROM events_search WHERE rowid = (min(old.created_at, 8589934591) << 30) | old.rowid;
END;
`

/**
 * The rank of an event in SQL: `created_at` (capped at 2^33 - 1, the year 2242) in the high bits,
 * the arrival rowid in the low 30. Ordering by it is ordering by `created_at`, then arrival. Rows
 * past 2^30 (a billion events) are not indexed for search.
 */
export const RANK = (createdAt: string, rowid: string) => `((min(${createdAt}, 8589934591) << 30) | ${rowid})`
/** The rowid bits of a rank. */
export const ROWID_MASK = 1073741823
/** The highest rowid a rank can hold. */
export const MAX_RANKED_ROWID = ROWID_MASK

/** Adds one stored event's content (and its group token) to the index. */
export const SEARCH_INSERT = `INSERT INTO events_search (rowid, content, h) VALUES (${RANK('?', '?')}, ?, ?)`

/**
 * The token naming a group in the `h` column: its id in hex (one word to the tokenizer, whatever the
 * id holds). Kinds whose visibility differs from the group's other rows (39000, 9000, 9001) get a
 * token of their own, so leaving a group's rows out in the index never drops those.
 *
 * @example
 * groupToken('pizza', 9) // 'g70697a7a61'
 */
export function groupToken(id: string, kind: number): string {
  const special = kind === 39000 || kind === 9000 || kind === 9001
  return `${special ? 's' : 'g'}${Buffer.from(id, 'utf8').toString('hex')}`
}

/** Creates the search index if the file lacks it, indexing the events already stored. */
export function installSearch(db: Database.Database): void {
  const had = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'events_search'").get()
  db.transaction(() => {
    db.exec(SEARCH_SCHEMA)
    if (had) return
    const insert = db.prepare(SEARCH_INSERT)
    const rows = db.prepare<[], { rowid: number; created_at: number; kind: number; json: string }>(
      `SELECT rowid, created_at, kind, json FROM events WHERE rowid <= ${MAX_RANKED_ROWID}`,
    )
    for (const r of rows.all()) {
      const e = JSON.parse(r.json) as { content: string; tags: string[][] }
      const h = e.tags.find((t) => t[0] === 'h')?.[1]
      if (e.content !== '')
        insert.run(r.created_at, r.rowid, e.content, h === undefined ? '' : groupToken(h, r.kind))
    }
  })()
}

const phrase = (t: string) => `"${t.replaceAll('"', '""')}"`

/**
 * The FTS5 query of some search terms (every term, as a word prefix; terms hold only letters and
 * digits), limited to rows of the `within` groups (a `#h` filter) and not of the `without` groups.
 *
 * @example
 * ftsQuery(['pizza'], ['general'], []) // '{content} : ("pizza"*) AND {h} : ("g67…" OR "s67…")'
 */
export function ftsQuery(
  terms: readonly string[],
  within: readonly string[] | undefined,
  without: readonly string[],
): string {
  let q = `{content} : (${terms.map((t) => `${phrase(t)}*`).join(' ')})`
  const tokens = (ids: readonly string[], kinds: number[]) =>
    ids.flatMap((id) => kinds.map((k) => phrase(groupToken(id, k)))).join(' OR ')
  if (within) q += ` AND {h} : (${tokens(within, [9, 9000])})`
  if (without.length > 0) q += ` NOT {h} : (${tokens(without, [9])})`
  return q
}
