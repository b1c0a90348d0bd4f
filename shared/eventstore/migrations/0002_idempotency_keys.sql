-- 0002: Idempotency-Key records for the command API (same key + same body -> first result).

CREATE TABLE idempotency_keys (
    scope            text NOT NULL,          -- e.g. 'season:<id>:seat:<n>'
    key              text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    request_hash     bytea NOT NULL,
    status           text NOT NULL CHECK (status IN ('in_progress', 'done')),
    response_status  integer,
    response_body    bytea,
    created_at       timestamptz NOT NULL,   -- when the current holder began (lease start)
    completed_at     timestamptz,
    PRIMARY KEY (scope, key),
    CONSTRAINT idempotency_done_has_response
        CHECK ((status = 'done') = (response_status IS NOT NULL AND response_body IS NOT NULL))
);

CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
