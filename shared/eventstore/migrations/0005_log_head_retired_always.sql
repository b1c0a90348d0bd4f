-- 0005: log_head refuses every update, the test-only reset included.
--
-- 0003's trigger let `UPDATE log_head SET position = 0` through on an empty log and restarted
-- the position sequence: a back door that only tests and benches used, to number events from
-- 1 again after a TRUNCATE. They now say what they mean, `TRUNCATE events ... RESTART
-- IDENTITY` (the sequence is owned by events.position), and the retired row refuses any
-- update, as it already did for code older than 0003.

CREATE OR REPLACE FUNCTION log_head_retired() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'log_head is retired since migration 0003 (positions come from '
                    'events_position_seq): this append comes from code older than the schema'
        USING ERRCODE = 'object_not_in_prerequisite_state';
END
$$;
