-- 0008: the events table is partitioned by season (issue 14, "Past one machine").
--
-- events becomes a declaratively hash-partitioned table on season_id (16 partitions). A
-- season's events live in one partition, the way a distributed PostgreSQL (Citus) keeps them
-- on one shard when season_id is the distribution column (docs/eventstore.md, "Partitioning
-- and distribution"). PostgreSQL requires every unique key of a partitioned table to include
-- the partition key, so:
--   - the primary key is (season_id, position) (position stays unique on its own: it comes
--     from one sequence), and (season_id, version) stays the stream's optimistic-concurrency key;
--   - event ids, which must stay unique across seasons (RELIABILITY 3), move to an
--     unpartitioned table, event_ids, written by a statement trigger in the same statement
--     (so the same transaction) as the events, whichever path inserts them. A repeated id is
--     a unique violation of event_ids_pkey and rolls the whole append back, as before.
--
-- Existing rows are copied with their positions, xids, hashes and metadata; the position
-- sequence, the append-only rule and the due_work trigger carry over. The copy runs in this
-- migration's transaction (the store is unavailable for as long as it takes: one write of the
-- log; docs/operations.md says how to plan it on a large log).

ALTER SEQUENCE events_position_seq OWNED BY NONE;  -- survives the old table's drop
ALTER TABLE events RENAME TO events_before_0008;
ALTER TABLE events_before_0008 RENAME CONSTRAINT events_pkey TO events_before_0008_pkey;
ALTER TABLE events_before_0008 RENAME CONSTRAINT events_event_id_key
    TO events_before_0008_event_id_key;
ALTER TABLE events_before_0008 RENAME CONSTRAINT events_season_version_key
    TO events_before_0008_season_version_key;
ALTER INDEX events_xid_position RENAME TO events_before_0008_xid_position;

CREATE TABLE events (
    position     bigint NOT NULL DEFAULT nextval('events_position_seq'),
    season_id    text NOT NULL,
    version      integer NOT NULL CHECK (version >= 1),
    event_id     uuid NOT NULL,
    type         text NOT NULL,
    data         bytea NOT NULL,
    metadata     jsonb NOT NULL,
    recorded_at  timestamptz NOT NULL,   -- from the application's injected clock, no default
    prev_hash    bytea NOT NULL CHECK (length(prev_hash) = 32),
    hash         bytea NOT NULL CHECK (length(hash) = 32),
    xid          xid8 NOT NULL DEFAULT pg_current_xact_id(),
    CONSTRAINT events_pkey PRIMARY KEY (season_id, position),
    CONSTRAINT events_season_version_key UNIQUE (season_id, version)
) PARTITION BY HASH (season_id);

ALTER SEQUENCE events_position_seq OWNED BY events.position;  -- TRUNCATE ... RESTART IDENTITY

DO $$
BEGIN
    FOR r IN 0..15 LOOP
        EXECUTE format(
            'CREATE TABLE events_p%s PARTITION OF events FOR VALUES WITH (MODULUS 16, REMAINDER %s)',
            lpad(r::text, 2, '0'), r);
    END LOOP;
END
$$;

-- The global readers (commit order, a checkpoint's position) and the by-id lookup's join.
CREATE INDEX events_xid_position ON events (xid, position);
CREATE INDEX events_position ON events (position);

COMMENT ON COLUMN events.metadata IS
    'actor (seat/ops/system), seat, command_id, causation_id, correlation_id';
COMMENT ON COLUMN events.hash IS
    'sha256(prev_hash || envelope(season_id, version, event_id, type, data))';
COMMENT ON COLUMN events.xid IS
    'top-level transaction id of the append; readers order by (xid, position) below the horizon';

-- Event ids across every season: the one unique key that does not include the season.
CREATE TABLE event_ids (
    event_id   uuid PRIMARY KEY,
    season_id  text NOT NULL,
    position   bigint NOT NULL
);
COMMENT ON TABLE event_ids IS
    'every event id, unique across seasons (RELIABILITY 3); written by events_event_ids';

INSERT INTO events (position, season_id, version, event_id, type, data, metadata, recorded_at,
                    prev_hash, hash, xid)
SELECT position, season_id, version, event_id, type, data, metadata, recorded_at, prev_hash,
       hash, xid
FROM events_before_0008 ORDER BY position;
INSERT INTO event_ids (event_id, season_id, position)
SELECT event_id, season_id, position FROM events_before_0008;

DROP TABLE events_before_0008;  -- with its triggers (recreated below on the new table)

-- One INSERT per statement into event_ids, whatever number of events the statement wrote
-- (a transition table: no per-row function call).
CREATE FUNCTION event_ids_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_ids (event_id, season_id, position)
    SELECT event_id, season_id, position FROM added;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_event_ids
    AFTER INSERT ON events
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION event_ids_record();

CREATE TRIGGER events_append_only
    BEFORE UPDATE OR DELETE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();

-- event_ids is as append-only as the log it indexes.
CREATE TRIGGER event_ids_append_only
    BEFORE UPDATE OR DELETE ON event_ids
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();

CREATE TRIGGER events_due_work
    AFTER INSERT ON events
    FOR EACH ROW
    WHEN (NEW.type IN ('divan_requested.v1', 'divan_resolved.v1', 'deadline_set.v1'))
    EXECUTE FUNCTION due_work_track();

-- A TRUNCATE of the log (tests, benches starting from a clean store) empties the id index
-- with it, so that event_ids always holds exactly the ids of the events.
CREATE FUNCTION event_ids_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE event_ids;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_truncate_event_ids
    AFTER TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION event_ids_truncate();
