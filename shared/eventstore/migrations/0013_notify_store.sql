-- 0013 (numbered in sequence here, migrate.py refuses a gap: renumber at merge to the next free
-- number): notifications' own state in PostgreSQL (issue 25, ADR-108), so a flushed or replaced
-- broker Redis loses no registration, no cursor and no claim; Redis keeps the queue only.
--
-- notify_records: a webhook or push subscription, sealed by the application (AES-256-GCM under
-- SEKSENBIR_NOTIFY_KEY, the record id as associated data): a URL, a secret, an endpoint and its
-- keys are credentials and never stand here in the clear when a key is set. Not season events:
-- no version, no chain, no export. Rows go when deleted, gone (404/410) or the season ends.
-- notify_cursors: the last season version the notifier has turned into notices; only moves on.
-- notify_once: what must happen once across notifier processes: a delivery's first attempt,
-- claimed by the batch that sends it (owner), and a deadline warning per subscription and Divan.

CREATE TABLE notify_records (
    record_id    text PRIMARY KEY CHECK (length(record_id) BETWEEN 1 AND 100),
    season_id    text NOT NULL CHECK (length(season_id) BETWEEN 1 AND 100),
    kind         text NOT NULL CHECK (kind IN ('wh', 'push')),
    sealed       bytea NOT NULL,
    stored_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notify_records_season ON notify_records (season_id, kind);

CREATE TABLE notify_cursors (
    season_id    text PRIMARY KEY CHECK (length(season_id) BETWEEN 1 AND 100),
    version      bigint NOT NULL CHECK (version >= 0)
);

CREATE TABLE notify_once (
    key          text PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 300),
    season_id    text NOT NULL,
    owner        text NOT NULL,
    claimed_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notify_once_season ON notify_once (season_id);
