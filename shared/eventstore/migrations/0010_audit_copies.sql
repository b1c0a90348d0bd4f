-- 0010 (assigned as 0011; renumber at merge if another 0010 lands, migrate.py refuses a gap):
-- audit copies are read-only (issue 13, ADR-58).
--
-- `seksenbir import season.jsonl` loads an exported season into another database as an audit
-- copy. Its events are the original's, byte for byte, deadlines included: without this, the
-- due_work trigger (0006) gave the copy the original's timed work and a scheduler on the copy's
-- database would resolve its Divans. The import records the season here before its first
-- event; due work is never tracked for a season listed here, and the application refuses every
-- append to one (shared/app/seasons.py): no command, no Divan, no Kurultay.

CREATE TABLE audit_copies (
    season_id    text PRIMARY KEY CHECK (length(season_id) BETWEEN 1 AND 100),
    head         bytea NOT NULL,  -- the chain head of the export it was loaded from
    imported_at  timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION due_work_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    body jsonb := convert_from(NEW.data, 'UTF8')::jsonb;
    n integer := (body ->> 'divan')::integer;
BEGIN
    IF EXISTS (SELECT 1 FROM audit_copies WHERE season_id = NEW.season_id) THEN
        RETURN NULL;  -- an audit copy is never scheduled
    END IF;
    IF NEW.type = 'deadline_set.v1' THEN
        IF body ->> 'at' IS NULL THEN
            DELETE FROM due_work WHERE season_id = NEW.season_id;
        ELSE
            INSERT INTO due_work (season_id, kind, divan, due_at, enqueued_at)
            VALUES (NEW.season_id, body ->> 'kind', n, (body ->> 'at')::timestamptz, NULL)
            ON CONFLICT (season_id) DO UPDATE
                SET kind = EXCLUDED.kind, divan = EXCLUDED.divan, due_at = EXCLUDED.due_at,
                    enqueued_at = NULL;
        END IF;
    ELSIF NEW.type = 'divan_requested.v1' THEN
        INSERT INTO due_work (season_id, kind, divan, due_at, enqueued_at)
        VALUES (NEW.season_id, 'divan', n, NEW.recorded_at, NEW.recorded_at)
        ON CONFLICT (season_id) DO UPDATE
            SET kind = 'divan', divan = EXCLUDED.divan, due_at = EXCLUDED.due_at,
                enqueued_at = EXCLUDED.enqueued_at;
    ELSE  -- divan_resolved.v1: that Divan (and any earlier one) is done
        DELETE FROM due_work
        WHERE season_id = NEW.season_id AND kind = 'divan' AND divan <= n;
    END IF;
    RETURN NULL;
END
$$;
