-- 0004: due work. One small row per season that has work a scheduler must hand to the
-- workers, so that finding it never scans events: today a trial Divan requested and not yet
-- resolved (kind 'divan'); the live-seasons issue adds the due instants of timed Divans,
-- registration closes and Kurultay closes (new kinds) to the same table.
--
-- The rows are written by a trigger on events, in the same statement (so the same
-- transaction) as the event that creates or clears them, whichever path appended it (one
-- append, a keyed one, a group commit, a test's or a bench's own INSERT): a DivanRequested
-- sets the season's row, the DivanResolved of that Divan deletes it. The scheduler reads
-- `due_at <= now` through the index and stamps `enqueued_at` when it hands the work over;
-- 100,000 seasons whose work is not due cost it nothing (docs/eventstore.md, "Due work").

CREATE TABLE due_work (
    season_id    text PRIMARY KEY,
    kind         text NOT NULL CHECK (kind IN ('divan')),
    divan        integer,                -- the Divan, for kind 'divan'
    due_at       timestamptz NOT NULL,   -- since when it is due (a request: its recorded_at)
    enqueued_at  timestamptz,            -- when it was last handed to the broker (NULL: never)
    CONSTRAINT due_work_divan_named CHECK (kind <> 'divan' OR divan IS NOT NULL)
);

CREATE INDEX due_work_due_at ON due_work (due_at);

COMMENT ON TABLE due_work IS
    'work a scheduler must hand to the workers, one row per season; written by events_due_work';

-- A trial request is enqueued by the API that appended it, so its row starts as enqueued at
-- the request; the scheduler hands it over again only if it stays unresolved.
CREATE FUNCTION due_work_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    n integer := (convert_from(NEW.data, 'UTF8')::jsonb ->> 'divan')::integer;
BEGIN
    IF NEW.type = 'divan_requested.v1' THEN
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

-- The WHEN clause is evaluated without calling the function: other events cost nothing.
CREATE TRIGGER events_due_work
    AFTER INSERT ON events
    FOR EACH ROW
    WHEN (NEW.type IN ('divan_requested.v1', 'divan_resolved.v1'))
    EXECUTE FUNCTION due_work_track();

-- Seasons already stuck when this migration runs: their last request has no resolution.
INSERT INTO due_work (season_id, kind, divan, due_at, enqueued_at)
SELECT DISTINCT ON (r.season_id)
       r.season_id, 'divan', (convert_from(r.data, 'UTF8')::jsonb ->> 'divan')::integer,
       r.recorded_at, NULL
FROM events AS r
WHERE r.type = 'divan_requested.v1'
  AND NOT EXISTS (
      SELECT 1 FROM events AS d
      WHERE d.season_id = r.season_id AND d.type = 'divan_resolved.v1' AND d.version > r.version)
ORDER BY r.season_id, r.version DESC;
