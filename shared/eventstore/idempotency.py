"""Idempotency-Key records in PostgreSQL: record a key done with its answer, look it up, purge."""

from __future__ import annotations

from datetime import timedelta

import asyncpg

from shared.eventstore.busy import Checkout
from shared.eventstore.clock import Clock, utc
from shared.eventstore.errors import IdempotencyStateError
from shared.eventstore.taken_keys import Found, InProgress, Mismatch, Replay

# One step: a new key is recorded as done with its response; a taken key returns no row.
_RECORD = """
INSERT INTO idempotency_keys AS k
    (scope, key, request_hash, status, response_status, response_body, created_at, completed_at)
VALUES ($1, $2, $3, 'done', $4, $5, $6, $6)
ON CONFLICT (scope, key) DO NOTHING
RETURNING 1"""

_LOOK = """
SELECT request_hash, status, response_status, response_body
FROM idempotency_keys WHERE scope = $1 AND key = $2"""

PURGE = "DELETE FROM idempotency_keys WHERE created_at < $1"


class PostgresIdempotencyStore:
    """Keys live in `idempotency_keys`; scope is e.g. season + seat, so keys never cross beys."""

    def __init__(self, pool: asyncpg.Pool, *, clock: Clock):
        self._pool = pool
        self._clock = clock

    async def record(
        self, scope: str, key: str, request_hash: bytes, status: int, body: bytes
    ) -> Found | None:
        """One step: record a new key as done with this response (None), or say what it holds."""
        now = utc(self._clock())
        async with Checkout(self._pool) as conn:
            for _ in range(3):  # a key purged between our two statements: record again
                if await conn.fetchval(_RECORD, scope, key, request_hash, status, body, now):
                    return None
                found = await look_in(conn, scope, key, request_hash)
                if found is not None:
                    return found
        raise IdempotencyStateError(f"key {key!r} in {scope!r} keeps vanishing")

    async def look(self, scope: str, key: str, request_hash: bytes) -> Found | None:
        """What the key holds for this request (None: the key is free); changes nothing."""
        async with Checkout(self._pool) as conn:
            return await look_in(conn, scope, key, request_hash)

    async def purge(self, older_than: timedelta) -> int:
        """Delete keys begun before the retention window (e.g. 24 h); returns how many."""
        cutoff = utc(self._clock()) - older_than
        async with Checkout(self._pool) as conn:
            status = await conn.execute(PURGE, cutoff)
        return int(status.split()[-1])


async def look_in(
    conn: asyncpg.Connection, scope: str, key: str, request_hash: bytes
) -> Found | None:
    row = await conn.fetchrow(_LOOK, scope, key)
    return None if row is None else _classify(row, request_hash)


def _classify(row: asyncpg.Record, request_hash: bytes) -> Found:
    if row["request_hash"] != request_hash:
        return Mismatch()
    if row["status"] == "in_progress":
        return InProgress()
    return Replay(row["response_status"], row["response_body"])
