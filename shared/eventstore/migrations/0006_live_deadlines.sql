-- 0006: live seasons' timed work in due_work (issue 12).
--
-- A live season's next deadline (its registration close, Divan n at its scheduled instant,
-- or its Kurultay close) is a domain event, deadline_set.v1, appended whenever it changes
-- (shared/domain/live.py, with_deadline), last in its append. The trigger keeps the season's
-- one due_work row equal to the latest deadline, in the same transaction as the events: a
-- deadline sets the row (not handed over yet), a deadline with no instant (the season is
-- over, or its clock is stopped) deletes it. The calendar arithmetic stays in the domain; the
-- database only copies an instant, so the scheduler still reads nothing but the due_at index.
--
-- A trial season's rows are unchanged (divan_requested.v1 / divan_resolved.v1, 0004).

ALTER TABLE due_work DROP CONSTRAINT due_work_kind_check;
ALTER TABLE due_work ADD CONSTRAINT due_work_kind_check
    CHECK (kind IN ('divan', 'registration', 'kurultay'));

CREATE OR REPLACE FUNCTION due_work_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    body jsonb := convert_from(NEW.data, 'UTF8')::jsonb;
    n integer := (body ->> 'divan')::integer;
BEGIN
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

DROP TRIGGER events_due_work ON events;
CREATE TRIGGER events_due_work
    AFTER INSERT ON events
    FOR EACH ROW
    WHEN (NEW.type IN ('divan_requested.v1', 'divan_resolved.v1', 'deadline_set.v1'))
    EXECUTE FUNCTION due_work_track();
