-- The insert triggers run once per statement over its inserted rows, not once per row: a batch
-- commits tens of events in one multi-row INSERT, and a PL/pgSQL call per row (with the search
-- text's JSON parsed twice and folded even when it has nothing to fold) cost PostgreSQL more than
-- the rows themselves.

-- NIP-50 search text. An event whose JSON holds a \u escape may hold NUL or a lone surrogate,
-- which no JSON value in PostgreSQL can: it is indexed on its own, and left unsearchable if so.
-- Only text with letters outside ASCII can change when folded, so only it is indexed twice.
CREATE FUNCTION roost_search_doc(body text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN octet_length(body) = char_length(body) THEN to_tsvector('simple', body)
    ELSE to_tsvector('simple', body) || to_tsvector('simple', roost_fold(body))
  END
$$;

CREATE FUNCTION event_text_index_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
  content text;
BEGIN
  INSERT INTO event_text (event, doc)
  SELECT x.seq, roost_search_doc(x.text)
  FROM (SELECT i.seq, i.json::json ->> 'content' AS text FROM inserted i WHERE strpos(i.json, '\u') = 0) AS x
  WHERE x.text <> '';
  FOR r IN SELECT seq, json FROM inserted WHERE strpos(json, '\u') > 0 LOOP
    BEGIN
      content := r.json::jsonb ->> 'content';
    EXCEPTION WHEN others THEN
      content := NULL;
    END;
    IF content <> '' THEN
      INSERT INTO event_text (event, doc) VALUES (r.seq, roost_search_doc(content));
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;

DROP TRIGGER event_text_insert ON events;
DROP FUNCTION event_text_index();
CREATE TRIGGER event_text_insert AFTER INSERT ON events
REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION event_text_index_rows();

-- A banned key or event fails the whole statement, as it failed its row before: a batch's insert
-- is then run again one event at a time, and only the banned one is refused.
CREATE FUNCTION roost_refuse_banned_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted i JOIN moderation m ON m.list = 'banned-event' AND m.value = i.id) THEN
    RAISE EXCEPTION 'blocked: this event was banned by the relay operator' USING ERRCODE = 'RB403';
  END IF;
  IF EXISTS (SELECT 1 FROM inserted i JOIN moderation m ON m.list = 'banned-pubkey' AND m.value = i.pubkey) THEN
    RAISE EXCEPTION 'blocked: you are banned from this relay' USING ERRCODE = 'RB403';
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER events_refuse_banned ON events;
DROP FUNCTION roost_refuse_banned();
CREATE TRIGGER events_refuse_banned AFTER INSERT ON events
REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION roost_refuse_banned_rows();
