-- 0001: the event log. One append-only table; a stream head per season; one counter row
-- that hands out gap-free global positions in commit order (docs/eventstore.md says why).

CREATE TABLE streams (
    season_id  text PRIMARY KEY CHECK (length(season_id) BETWEEN 1 AND 100),
    version    integer NOT NULL CHECK (version >= 1),
    last_hash  bytea NOT NULL CHECK (length(last_hash) = 32)
);

-- The single counter row. An append updates it inside its transaction, so the row lock
-- serialises appends: positions are allocated and become visible in the same order, and a
-- rolled-back append gives its numbers back (no holes).
CREATE TABLE log_head (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    position   bigint NOT NULL CHECK (position >= 0)
);
INSERT INTO log_head (singleton, position) VALUES (true, 0);

CREATE TABLE events (
    position     bigint PRIMARY KEY,
    season_id    text NOT NULL,
    version      integer NOT NULL CHECK (version >= 1),
    event_id     uuid NOT NULL,
    type         text NOT NULL,
    data         bytea NOT NULL,
    metadata     jsonb NOT NULL,
    recorded_at  timestamptz NOT NULL,   -- from the application's injected clock, no default
    prev_hash    bytea NOT NULL CHECK (length(prev_hash) = 32),
    hash         bytea NOT NULL CHECK (length(hash) = 32),
    CONSTRAINT events_event_id_key UNIQUE (event_id),
    CONSTRAINT events_season_version_key UNIQUE (season_id, version)
);

COMMENT ON COLUMN events.metadata IS
    'actor (seat/ops/system), seat, command_id, causation_id, correlation_id';
COMMENT ON COLUMN events.hash IS
    'sha256(prev_hash || envelope(season_id, version, event_id, type, data))';

CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events is append-only (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER events_append_only
    BEFORE UPDATE OR DELETE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();
