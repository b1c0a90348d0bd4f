"""Idempotency-Key records in PostgreSQL: begin, replay, mismatch, in-progress, complete."""

from __future__ import annotations

from datetime import timedelta

import asyncpg
import structlog

from shared.eventstore.busy import Checkout
from shared.eventstore.errors import IdempotencyStateError
from shared.eventstore.model import (
    BeginResult,
    Begun,
    Clock,
    Found,
    IdempotencyCompletion,
    InProgress,
    Mismatch,
    Replay,
    utc,
)

log = structlog.get_logger(__name__)

DEFAULT_LEASE = timedelta(seconds=60)

# A new key is inserted; a key whose holder began before the lease cutoff with the same
# request is taken over (its process died mid-request). Anything else returns no row.
_BEGIN = """
INSERT INTO idempotency_keys AS k (scope, key, request_hash, status, created_at)
VALUES ($1, $2, $3, 'in_progress', $4)
ON CONFLICT (scope, key) DO UPDATE SET created_at = EXCLUDED.created_at
    WHERE k.status = 'in_progress' AND k.created_at < $5 AND k.request_hash = $3
RETURNING k.created_at"""

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

COMPLETE = """
UPDATE idempotency_keys
SET status = 'done', response_status = $3, response_body = $4, completed_at = $5
WHERE scope = $1 AND key = $2 AND status = 'in_progress'"""

PURGE = "DELETE FROM idempotency_keys WHERE created_at < $1"

_ABANDON = "DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND status = 'in_progress'"


class PostgresIdempotencyStore:
    """Keys live in `idempotency_keys`; scope is e.g. season + seat, so keys never cross beys.

    An in-progress key older than `lease` counts as abandoned by a crashed request and may be
    begun again by the same request; keep the lease above the API's request timeout.
    """

    def __init__(self, pool: asyncpg.Pool, *, clock: Clock, lease: timedelta = DEFAULT_LEASE):
        self._pool = pool
        self._clock = clock
        self._lease = lease

    async def begin(self, scope: str, key: str, request_hash: bytes) -> BeginResult:
        """Claim the key for this request, or say why not (Replay, Mismatch, InProgress)."""
        now = utc(self._clock())
        async with Checkout(self._pool) as conn:
            for _ in range(3):  # a key abandoned between our two statements: claim again
                if await conn.fetchval(_BEGIN, scope, key, request_hash, now, now - self._lease):
                    return Begun()
                found = await look_in(conn, scope, key, request_hash)
                if found is not None:
                    return found
        raise IdempotencyStateError(f"key {key!r} in {scope!r} keeps vanishing")

    async def record(
        self, scope: str, key: str, request_hash: bytes, status: int, body: bytes
    ) -> Found | None:
        """One step: record a new key as done with this response (None), or say what it holds."""
        now = utc(self._clock())
        async with Checkout(self._pool) as conn:
            for _ in range(3):  # an in-progress key abandoned between our two statements
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

    async def complete(self, scope: str, key: str, status: int, body: bytes) -> None:
        """Record the response; raises IdempotencyStateError unless the key is in progress."""
        async with Checkout(self._pool) as conn:
            await complete_in(conn, IdempotencyCompletion(scope, key, status, body), self._clock)

    async def abandon(self, scope: str, key: str) -> None:
        """Forget an in-progress key (the command failed before any effect); a no-op if done."""
        async with Checkout(self._pool) as conn:
            await conn.execute(_ABANDON, scope, key)

    async def purge(self, older_than: timedelta) -> int:
        """Delete keys begun before the retention window (e.g. 24 h); returns how many."""
        cutoff = utc(self._clock()) - older_than
        async with Checkout(self._pool) as conn:
            status = await conn.execute(PURGE, cutoff)
        return int(status.split()[-1])


async def complete_in(conn: asyncpg.Connection, done: IdempotencyCompletion, clock: Clock) -> None:
    """Complete a key on `conn` (inside the append's transaction when called by the store)."""
    status = await conn.execute(
        COMPLETE, done.scope, done.key, done.status, done.body, utc(clock())
    )
    if status != "UPDATE 1":
        log.warning("idempotency.complete_refused", scope=done.scope, key=done.key)
        raise IdempotencyStateError(f"key {done.key!r} in {done.scope!r} is not in progress")


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
