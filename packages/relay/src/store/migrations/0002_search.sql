-- NIP-50 search: a tsvector of each event's content (the 'simple' configuration: lower-cased words,
-- no stemming, so any language works), kept by a trigger so the insert path is unchanged, and
-- removed with its event.
CREATE TABLE event_text (
  event bigint PRIMARY KEY REFERENCES events (seq) ON DELETE CASCADE,
  doc tsvector NOT NULL
);
CREATE INDEX event_text_doc ON event_text USING gin (doc);

-- Latin letters without their diacritics (as SQLite's index folds them); both forms are indexed.
CREATE FUNCTION roost_fold(body text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT translate(body, 'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰȱȲȳ', 'aaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiiiinooooouuuuyyaaaaaaccccccccddeeeeeeeeeegggggggghhiiiiiiiiijjkkllllllnnnnnnoooooorrrrrrssssssssttttuuuuuuuuuuuuwwyyyzzzzzzsoouuaaiioouuuuuuuuuuaaaaggkkoooojggnnaaaaaaeeeeiiiioooorrrruuuusstthhaaeeooooooooyy')
$$;

CREATE FUNCTION event_text_index() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  body text;
BEGIN
  -- jsonb cannot hold NUL or a lone surrogate: such an event is stored but not searchable.
  IF NEW.json ~* '\\u(0000|d[89a-f])' THEN
    BEGIN
      body := NEW.json::jsonb ->> 'content';
    EXCEPTION WHEN others THEN
      body := NULL;
    END;
  ELSE
    body := NEW.json::jsonb ->> 'content';
  END IF;
  IF body IS NOT NULL AND body <> '' THEN
    INSERT INTO event_text (event, doc) VALUES (NEW.seq, to_tsvector('simple', body) || to_tsvector('simple', roost_fold(body)));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER event_text_insert AFTER INSERT ON events
FOR EACH ROW EXECUTE FUNCTION event_text_index();

INSERT INTO event_text (event, doc)
SELECT seq, to_tsvector('simple', json::jsonb ->> 'content') || to_tsvector('simple', roost_fold(json::jsonb ->> 'content'))
FROM events
WHERE json !~* '\\u(0000|d[89a-f])' AND json::jsonb ->> 'content' <> '';
