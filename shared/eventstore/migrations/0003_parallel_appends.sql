-- 0003: appends of different seasons no longer serialise on one counter row.
--
-- Positions now come from a sequence (bigserial style: unique, drawn at insert time, holes
-- where an append rolls back), and every event records the id of the transaction that
-- wrote it. Catch-up readers go in (xid, position) order and only as far as the oldest
-- transaction that may still be writing (docs/eventstore.md, "Global order"). Rows written
-- before this migration were all committed under the counter row, in position order; they
-- get xid 0, so they sort first and keep that order.

CREATE SEQUENCE events_position_seq AS bigint OWNED BY events.position;
SELECT setval('events_position_seq', greatest(position, 1), position > 0) FROM log_head;
ALTER TABLE events ALTER COLUMN position SET DEFAULT nextval('events_position_seq');

ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT '0';   -- no rewrite: a constant default
ALTER TABLE events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
COMMENT ON COLUMN events.xid IS
    'top-level transaction id of the append; readers order by (xid, position) below the horizon';

CREATE INDEX events_xid_position ON events (xid, position);

-- log_head is retired. Code from before 0003 would still take it and number events from it,
-- colliding with the sequence: refuse that loudly. Setting it to 0 on an empty log (what a
-- test or bench does after TRUNCATE to start from a clean store) restarts the sequence instead.
CREATE FUNCTION log_head_retired() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.position = 0 AND NOT EXISTS (SELECT 1 FROM events) THEN
        PERFORM setval('events_position_seq', 1, false);
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'log_head is retired since migration 0003 (positions come from '
                    'events_position_seq): this append comes from code older than the schema'
        USING ERRCODE = 'object_not_in_prerequisite_state';
END
$$;

CREATE TRIGGER log_head_retired
    BEFORE UPDATE ON log_head
    FOR EACH ROW EXECUTE FUNCTION log_head_retired();
