-- 0011 (assigned 0012; renumber at merge if another 0011 lands, migrate.py refuses a gap):
-- players' own events (issue 23, ADR-87): a player key that outlasts one season.
-- A player is no season: its events (created with a public name and the key's SHA-256, key
-- rotated, left) are a log of their own, numbered per player, never a season's stream, so no
-- season's versions, chain, exports or projections move with them. Rows are only ever inserted.
-- The key itself is never stored; its hash is here and nowhere else (never in an export).

CREATE TABLE player_events (
    position     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player_id    text NOT NULL CHECK (length(player_id) BETWEEN 1 AND 100),
    version      integer NOT NULL CHECK (version >= 1),
    type         text NOT NULL,
    data         bytea NOT NULL,
    recorded_at  timestamptz NOT NULL,
    CONSTRAINT player_events_version_key UNIQUE (player_id, version)
);

CREATE FUNCTION player_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'player_events is append-only (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER player_events_append_only
    BEFORE UPDATE OR DELETE ON player_events
    FOR EACH STATEMENT EXECUTE FUNCTION player_events_refuse_change();
