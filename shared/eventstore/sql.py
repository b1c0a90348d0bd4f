"""The event store's SQL: the one-statement append and the commit-order-safe readers.

The append statements are assembled from templates below; each one exactly as it runs is in
tests/eventstore/sql_snapshot.sql (checked verbatim by tests/eventstore/test_sql_snapshot.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

import msgspec

from shared.eventstore.model import EventMetadata, RecordedEvent

COLUMNS = """position, season_id, version, event_id, type, data, metadata::text AS metadata,
    recorded_at, prev_hash, hash"""
_meta_decoder = msgspec.json.Decoder(EventMetadata)


def recorded(row: Mapping[str, Any]) -> RecordedEvent:
    """A row of COLUMNS as the event it records."""
    return RecordedEvent(
        season_id=row["season_id"],
        version=row["version"],
        position=row["position"],
        event_id=UUID(bytes=row["event_id"].bytes),
        type=row["type"],
        data=row["data"],
        metadata=_meta_decoder.decode(row["metadata"]),
        recorded_at=row["recorded_at"],
        prev_hash=row["prev_hash"],
        hash=row["hash"],
    )


STREAM_HEAD = "SELECT version, last_hash, chain FROM streams WHERE season_id = $1"
# an imported season (migration 0010, ADR-58): read-only, never scheduled
AUDIT_COPY = "SELECT EXISTS (SELECT 1 FROM audit_copies WHERE season_id = $1)"
MARK_AUDIT_COPY = "INSERT INTO audit_copies (season_id, head) VALUES ($1, $2)"
STREAM_CHAIN = "SELECT chain FROM streams WHERE season_id = $1"
SET_CHAIN = "UPDATE streams SET chain = $2 WHERE season_id = $1"
STREAM_VERSION = "SELECT version FROM streams WHERE season_id = $1"
STREAM_LAST_HASH = "SELECT last_hash, chain FROM streams WHERE season_id = $1"
STREAM_VERSIONS = "SELECT season_id, version FROM streams"
SEASON_COUNT = "SELECT count(*) FROM streams"
LIST_SEASONS = "SELECT season_id FROM streams ORDER BY season_id"

# $1 season, $2 stream's last hash, $3 expected version, $4 the events (a JSON array of
# append.LoneEvent: number, id, type, data, metadata, prev hash, hash; bytes as base64, the
# metadata as its JSON object, as the group statement reads them: ADR-163, ADR-168), $5
# recorded_at, $6 new last hash; with an idempotency key (IdempotencyRecord) also $7 scope,
# $8 key, $9 response status, $10 response body, $11 completed_at, $12 request hash.
_CLAIM_NEXT = """UPDATE streams SET version = $3 + json_array_length($4::json), last_hash = $6
    WHERE season_id = $1 AND version = $3 AND last_hash = $2 AND {gate} RETURNING season_id"""

_CLAIM_FIRST = """INSERT INTO streams (season_id, version, last_hash)
    SELECT $1, $3 + json_array_length($4::json), $6
    WHERE $3 = 0 AND $2::bytea = decode(repeat('00', 32), 'hex') AND {gate}
    ON CONFLICT (season_id) DO NOTHING RETURNING season_id"""

# One statement, sent in autocommit: claim the stream version (optimistic concurrency: the
# only row lock, and it is per season), draw the positions from the sequence (only if the claim
# matched; sorted, so they follow the versions), insert with this transaction's id. No global
# lock: appends to different seasons commit in parallel. No NOTIFY in here either: NOTIFY takes
# a database-wide lock from pre-commit until the commit is flushed, which would serialise the
# appends again; the store sends the wake-up after the commit instead.
_APPEND = """
WITH {key}
claim AS ({claim}),
pos AS (
    SELECT array_agg(p ORDER BY p) AS ps
    FROM (SELECT nextval('events_position_seq') AS p
          FROM claim, generate_series(1, json_array_length($4::json))) AS drawn
),
inserted AS (
    INSERT INTO events (position, xid, season_id, version, event_id, type, data, metadata,
                        recorded_at, prev_hash, hash)
    SELECT pos.ps[e.n], pg_current_xact_id(), $1, $3 + e.n, e.id, e.type,
           decode(e.data, 'base64'), e.meta::jsonb, $5, decode(e.prev, 'base64'),
           decode(e.hash, 'base64')
    FROM pos, json_to_recordset($4::json) AS e(n int, id uuid, type text, data text,
                                               meta json, prev text, hash text)
    WHERE pos.ps IS NOT NULL
){done}
SELECT pos.ps AS positions, {key_held} AS key_held FROM pos"""


# With a key (IdempotencyRecord): claim only if the key is free as this statement sees it, and
# insert the key, done, only if the claim matched. A copy that commits the same key first
# while this statement runs makes the key's INSERT fail with a unique violation, which rolls
# the whole statement back: never events without their key, nor a key without its events.
_FREE = """
key AS (
    SELECT NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE scope = $7 AND key = $8) AS free
),"""

_RECORDED = """,
recorded AS (
    INSERT INTO idempotency_keys (scope, key, request_hash, status, response_status,
                                  response_body, created_at, completed_at)
    SELECT $7, $8, $12, 'done', $9, $10, $11, $11 FROM claim
    RETURNING 1
)"""


def _append(claim: str, keyed: bool) -> str:
    """The append statement without a key, or recording a new key beside its events."""
    gate = "(SELECT free FROM key)" if keyed else "true"
    return _APPEND.format(
        key=_FREE if keyed else "",
        claim=claim.format(gate=gate),
        done=_RECORDED if keyed else "",
        key_held=gate,
    )


APPEND_NEXT = _append(_CLAIM_NEXT, keyed=False)
APPEND_FIRST = _append(_CLAIM_FIRST, keyed=False)
APPEND_NEXT_RECORDED = _append(_CLAIM_NEXT, keyed=True)
APPEND_FIRST_RECORDED = _append(_CLAIM_FIRST, keyed=True)

# The reader horizon: the oldest transaction that may still write events. Every event whose xid
# is below it is settled (committed and visible in this statement's snapshot, or rolled back
# and gone); every event still to appear has an xid at or above it. It is the snapshot's xmin,
# except that transactions known to run in *other* databases of the cluster are left out: they
# cannot write this table, and letting them hold readers back would couple this store's lag to
# any long transaction on the server. A backend never changes database and a running xid
# belongs to one backend, so reading pg_stat_activity in the same statement is safe; an entry
# we may not see (or a prepared transaction) only keeps its xid in, which is the safe side.
_HORIZON = """horizon AS (
    SELECT coalesce(
        (SELECT min(x) FROM pg_snapshot_xip(pg_current_snapshot()) AS x
         WHERE x::xid NOT IN (SELECT a.backend_xid FROM pg_stat_activity AS a
                              WHERE a.backend_xid IS NOT NULL
                                AND a.datname <> current_database())),
        pg_snapshot_xmax(pg_current_snapshot())) AS h
)"""

# $1 the position of the last event read (0: from the start), $2 limit. Order and checkpoint
# are (xid, position); `after` turns the reader's position back into that pair. No row at all
# means $1 is not an event's position.
READ_ALL = f"""
WITH {_HORIZON},
after AS (
    SELECT xid, position FROM events WHERE position = $1
    UNION ALL SELECT '0'::xid8, 0 WHERE $1 = 0
)
SELECT page.* FROM after LEFT JOIN LATERAL (
    SELECT {COLUMNS}, xid FROM events, horizon
    WHERE (events.xid, events.position) > (after.xid, after.position)
      AND events.xid < horizon.h
    ORDER BY events.xid, events.position
    LIMIT $2
) AS page ON true
ORDER BY page.xid, page.position"""

# The periodic projection sweep's read (ADR-147): each season with one of the $3 events after
# the event at $1 in the commit-safe order (READ_ALL's, and like it paged: the order and the
# limit make it an index scan however large the log), or named in $2, with its stream
# version; and the last of those events (NULL: none), the next pass's $1. `known` false: $1
# is no event's position (a truncated log).
CHANGED_STREAMS = f"""
WITH {_HORIZON},
after AS (
    SELECT xid, position FROM events WHERE position = $1
    UNION ALL SELECT '0'::xid8, 0 WHERE $1 = 0
),
changed AS (
    SELECT page.season_id, page.xid, page.position FROM after CROSS JOIN LATERAL (
        SELECT events.season_id, events.xid, events.position FROM events, horizon
        WHERE (events.xid, events.position) > (after.xid, after.position)
          AND events.xid < horizon.h
        ORDER BY events.xid, events.position
        LIMIT $3
    ) AS page
)
SELECT EXISTS (SELECT 1 FROM after) AS known,
       (SELECT position FROM changed ORDER BY xid DESC, position DESC LIMIT 1) AS head,
       coalesce(array_agg(s.season_id ORDER BY s.season_id), '{{}}') AS seasons,
       coalesce(array_agg(s.version ORDER BY s.season_id), '{{}}') AS versions
FROM streams AS s
WHERE s.season_id = ANY (ARRAY(SELECT season_id FROM changed UNION SELECT unnest($2::text[])))"""

HEAD_POSITION = f"""
WITH {_HORIZON}
SELECT coalesce((SELECT position FROM events, horizon WHERE events.xid < horizon.h
                 ORDER BY events.xid DESC, events.position DESC LIMIT 1), 0)"""

READ_STREAM = f"SELECT {COLUMNS} FROM events WHERE season_id = $1 AND version > $2 ORDER BY version"
# A fold's read (Seasons.since): no envelope but the version and the chain hash (ADR-142)
READ_DATA = (
    "SELECT version, type, data, hash, position FROM events WHERE season_id = $1 AND version > $2"
    " ORDER BY version"
)
READ_SEASON = f"SELECT {COLUMNS} FROM events WHERE season_id = $1 ORDER BY version"
# Through event_ids (0008): each id names its season and position, so each row is one probe of
# one partition's primary key, never a scan of every partition.
BY_IDS = f"""SELECT {COLUMNS} FROM event_ids AS i
    JOIN events USING (season_id, position, event_id) WHERE i.event_id = ANY($1::uuid[])"""

# Group commit (group_commit.GroupCommit): several appends to distinct seasons in one statement and
# one commit, each item claimed, written and answered on its own, as the one-append statement
# does. $1 the items, $2 their events, each a JSON array of objects (group_commit.Item and
# GroupEvent, ADR-163: two text parameters, not twenty arrays whose every element asyncpg's
# encoder checks against collections.abc in Python). An item: idx (1-based), season, stream's
# last hash, expected version, number of events, new last hash, recorded_at, then the key
# recorded in one step (NULL scope: no key): scope, key, request hash, response status,
# response body, completed_at. An event: its item, its number in the item (1-based), id,
# type, data, metadata, prev hash, hash. Bytes travel as base64 (decoded here), instants as
# RFC 3339 (microseconds, UTC), the metadata as its JSON object: every stored value is the
# one the arrays carried.
# A stale item claims nothing and gets no positions; a taken key claims nothing (key_held
# false). An item whose stream row another transaction holds is skipped (nothing waits on
# it; the store appends it alone afterwards, waiting as a lone append does). What only an
# error can say (an event id taken, a key a copy committed meanwhile) rolls the whole
# statement back; the store then appends the items one by one.
APPEND_GROUP = """
WITH items AS (
    SELECT i.idx, i.season_id, decode(i.last_hash, 'base64') AS last_hash, i.expected, i.n,
           decode(i.new_hash, 'base64') AS new_hash, i.recorded_at, i.scope, i.key,
           decode(i.request_hash, 'base64') AS request_hash, i.status,
           decode(i.body, 'base64') AS body, i.completed_at
    FROM json_to_recordset($1::json) AS i(idx bigint, season_id text, last_hash text,
        expected int, n int, new_hash text, recorded_at timestamptz, scope text, key text,
        request_hash text, status int, body text, completed_at timestamptz)
),
news AS (  -- the events to insert
    SELECT e.item, e.n, e.id, e.type, decode(e.data, 'base64') AS data, e.meta,
           decode(e.prev, 'base64') AS prev, decode(e.hash, 'base64') AS hash
    FROM json_to_recordset($2::json) AS e(item int, n int, id uuid, type text, data text,
        meta json, prev text, hash text)
),
gated AS (  -- a probe per key (LIMIT: never a hashed scan of the whole table, even when
            -- the planner believes it small, as it does on a young table)
    SELECT i.* FROM items AS i LEFT JOIN LATERAL (
        SELECT true AS taken FROM idempotency_keys AS k
        WHERE k.scope = i.scope AND k.key = i.key LIMIT 1
    ) AS t ON true
    WHERE t.taken IS NULL
),
locked AS (  -- a season another transaction is writing is skipped, not waited for
    SELECT s.season_id FROM streams AS s
    WHERE s.season_id IN (SELECT season_id FROM gated WHERE expected > 0)
    FOR UPDATE SKIP LOCKED
),
claim_next AS (
    UPDATE streams AS s SET version = g.expected + g.n, last_hash = g.new_hash
    FROM gated AS g
    WHERE s.season_id = g.season_id AND g.expected > 0 AND s.version = g.expected
      AND s.last_hash = g.last_hash AND s.season_id IN (SELECT season_id FROM locked)
    RETURNING g.idx
),
claim_first AS (
    INSERT INTO streams (season_id, version, last_hash)
    SELECT g.season_id, g.n, g.new_hash FROM gated AS g
    WHERE g.expected = 0 AND g.last_hash = decode(repeat('00', 32), 'hex')
    ORDER BY g.season_id
    ON CONFLICT (season_id) DO NOTHING RETURNING season_id
),
claimed AS (
    SELECT idx FROM claim_next
    UNION ALL SELECT g.idx FROM claim_first AS f JOIN gated AS g USING (season_id)
),
pos AS (
    SELECT drawn.item, array_agg(drawn.p ORDER BY drawn.p) AS ps
    FROM (SELECT e.item, nextval('events_position_seq') AS p
          FROM news AS e JOIN claimed AS c ON c.idx = e.item) AS drawn
    GROUP BY drawn.item
),
inserted AS (
    INSERT INTO events (position, xid, season_id, version, event_id, type, data, metadata,
                        recorded_at, prev_hash, hash)
    SELECT pos.ps[e.n], pg_current_xact_id(), i.season_id, i.expected + e.n, e.id, e.type,
           e.data, e.meta::jsonb, i.recorded_at, e.prev, e.hash
    FROM news AS e JOIN pos ON pos.item = e.item JOIN items AS i ON i.idx = e.item
),
recorded AS (
    INSERT INTO idempotency_keys (scope, key, request_hash, status, response_status,
                                  response_body, created_at, completed_at)
    SELECT i.scope, i.key, i.request_hash, 'done', i.status, i.body, i.completed_at,
           i.completed_at
    FROM items AS i JOIN pos ON pos.item = i.idx WHERE i.scope IS NOT NULL
)
SELECT i.idx, pos.ps AS positions, g.idx IS NOT NULL AS key_held,
       g.idx IS NOT NULL AND i.expected > 0
           AND i.season_id NOT IN (SELECT season_id FROM locked)
           AND EXISTS (SELECT 1 FROM streams AS s WHERE s.season_id = i.season_id) AS skipped
FROM items AS i LEFT JOIN pos ON pos.item = i.idx LEFT JOIN gated AS g ON g.idx = i.idx
ORDER BY i.idx"""
