-- The operator's lists (NIP-86): banned and allowed keys, banned events and events cleared of their
-- reports, allowed and disallowed kinds, blocked addresses, and the relay's name, description and
-- icon ('relay-info'). Every relay process keeps a copy in memory, told of changes by the fan-out.
CREATE TABLE moderation (
  list text COLLATE "C" NOT NULL,
  value text COLLATE "C" NOT NULL,
  note text NOT NULL DEFAULT '',
  at bigint NOT NULL,
  PRIMARY KEY (list, value)
);

-- The last word on a banned key or event, whatever a process's copy says: its copy may lag a ban
-- made on another process by a fan-out round trip, and the insert fails in that window instead.
CREATE FUNCTION roost_refuse_banned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM moderation WHERE list = 'banned-event' AND value = NEW.id) THEN
    RAISE EXCEPTION 'blocked: this event was banned by the relay operator' USING ERRCODE = 'RB403';
  END IF;
  IF EXISTS (SELECT 1 FROM moderation WHERE list = 'banned-pubkey' AND value = NEW.pubkey) THEN
    RAISE EXCEPTION 'blocked: you are banned from this relay' USING ERRCODE = 'RB403';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER events_refuse_banned BEFORE INSERT ON events
FOR EACH ROW EXECUTE FUNCTION roost_refuse_banned();
