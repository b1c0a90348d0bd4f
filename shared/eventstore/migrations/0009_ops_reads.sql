-- 0009: the server's own audit trail: every ops read of secret data (issue 13, ADR-53).
--
-- R-14: ops may read a season's secrets (orders, missions, gold, the seed); each such read is
-- recorded here, before the secret is returned (a read whose record fails answers 503). It is
-- a stream of its own, not the season's: a season's versions, ETags and projections do not move
-- when ops look at it. Rows are only ever inserted (the grants of a production role should say
-- so too); auditors list them per season (GET /v1/seasons/{id}/audit/ops-reads).

CREATE TABLE ops_reads (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    season_id    text NOT NULL CHECK (length(season_id) BETWEEN 1 AND 100),
    what         text NOT NULL CHECK (length(what) BETWEEN 1 AND 200),  -- e.g. 'orders/3'
    actor        text NOT NULL CHECK (length(actor) BETWEEN 1 AND 64),  -- the token's fingerprint
    recorded_at  timestamptz NOT NULL
);

CREATE INDEX ops_reads_season ON ops_reads (season_id, id);
