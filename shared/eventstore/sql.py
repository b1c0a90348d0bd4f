"""The event store's SQL: the one-statement append and the column list the readers select."""

from __future__ import annotations

NOTIFY_CHANNEL = "seksenbir_events"  # payload: the new head position; a wake-up hint only

COLUMNS = """position, season_id, version, event_id, type, data, metadata::text AS metadata,
    recorded_at, prev_hash, hash"""

STREAM_HEAD = "SELECT version, last_hash FROM streams WHERE season_id = $1"

# $1 season, $2 stream's last hash, $3 expected version, $4 ids, $5 types, $6 data, $7 metadata,
# $8 recorded_at, $9 prev hashes, $10 new last hash, $11 hashes.
_CLAIM_NEXT = """UPDATE streams SET version = $3 + cardinality($4::uuid[]), last_hash = $10
    WHERE season_id = $1 AND version = $3 AND last_hash = $2 RETURNING season_id"""

_CLAIM_FIRST = """INSERT INTO streams (season_id, version, last_hash)
    SELECT $1, $3 + cardinality($4::uuid[]), $10
    WHERE $3 = 0 AND $2::bytea = decode(repeat('00', 32), 'hex')
    ON CONFLICT (season_id) DO NOTHING RETURNING season_id"""

# One statement: claim the stream version (optimistic concurrency), then take the counter row
# (serialises appends until commit), then insert. Nothing happens if the claim fails.
_APPEND = """
WITH claim AS ({claim}),
head AS (
    UPDATE log_head SET position = position + cardinality($4::uuid[])
    WHERE singleton AND EXISTS (SELECT 1 FROM claim)
    RETURNING position - cardinality($4::uuid[]) AS base, position AS last
),
inserted AS (
    INSERT INTO events (position, season_id, version, event_id, type, data, metadata,
                        recorded_at, prev_hash, hash)
    SELECT head.base + e.n, $1, $3 + e.n, e.id, e.type, e.data, e.meta::jsonb, $8, e.prev, e.hash
    FROM head, unnest($4::uuid[], $5::text[], $6::bytea[], $7::text[], $9::bytea[],
                      $11::bytea[]) WITH ORDINALITY AS e(id, type, data, meta, prev, hash, n)
)
SELECT head.base FROM head, LATERAL pg_notify('{channel}', head.last::text)"""

APPEND_NEXT = _APPEND.format(claim=_CLAIM_NEXT, channel=NOTIFY_CHANNEL)
APPEND_FIRST = _APPEND.format(claim=_CLAIM_FIRST, channel=NOTIFY_CHANNEL)

READ_STREAM = f"SELECT {COLUMNS} FROM events WHERE season_id = $1 AND version > $2 ORDER BY version"
READ_ALL = f"SELECT {COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2"
READ_SEASON = f"SELECT {COLUMNS} FROM events WHERE season_id = $1 ORDER BY version"
BY_IDS = f"SELECT {COLUMNS} FROM events WHERE event_id = ANY($1::uuid[])"
