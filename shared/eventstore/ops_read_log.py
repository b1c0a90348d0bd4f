"""The server's own audit trail: ops reads of secret data, in a stream of their own (ADR-53).

R-14 lets ops read what is secret during a season (a bey's orders, missions, gold; the seed);
every such read is recorded here before the secret is returned, so a read whose record fails
fails too (the edge answers 503). The records are not season events: they never move a
season's version, its ETags or its projections, and a Redis flush cannot erase them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

import asyncpg
import msgspec

from shared.eventstore.busy import Checkout
from shared.eventstore.clock import Clock, utc

MAX_LIST = 1000

_RECORD = """
INSERT INTO ops_reads (season_id, what, actor, recorded_at) VALUES ($1, $2, $3, $4)
RETURNING id"""

_LIST = """
SELECT id, season_id, what, actor, recorded_at FROM ops_reads
WHERE season_id = $1 AND id > $2 ORDER BY id LIMIT $3"""


class OpsRead(msgspec.Struct, frozen=True):
    """One recorded read: which season, what (e.g. 'orders/3'), by whom (the ops token's
    fingerprint, never the token), when (the server's instant), and its number (ascending)."""

    id: int
    season_id: str
    what: str
    actor: str
    at: datetime


class OpsReads(Protocol):
    async def record(self, season_id: str, what: str, actor: str) -> OpsRead: ...
    async def list(self, season_id: str, *, after: int = 0, limit: int = 100) -> list[OpsRead]: ...


class PostgresOpsReads:
    """Rows of `ops_reads` (migration 0009); a failure is StoreBusyError or the driver's own."""

    def __init__(self, pool: asyncpg.Pool, *, clock: Clock) -> None:
        self._pool = pool
        self._clock = clock

    async def record(self, season_id: str, what: str, actor: str) -> OpsRead:
        at = utc(self._clock())
        async with Checkout(self._pool) as conn:
            row_id = await conn.fetchval(_RECORD, season_id, what, actor, at)
        return OpsRead(int(row_id), season_id, what, actor, at)

    async def list(self, season_id: str, *, after: int = 0, limit: int = 100) -> list[OpsRead]:
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(_LIST, season_id, after, min(limit, MAX_LIST))
        return [
            OpsRead(r["id"], r["season_id"], r["what"], r["actor"], utc(r["recorded_at"]))
            for r in rows
        ]


class InMemoryOpsReads:
    """The same answers in a list, for the in-memory store."""

    def __init__(self, *, clock: Clock) -> None:
        self._clock = clock
        self._rows: list[OpsRead] = []

    async def record(self, season_id: str, what: str, actor: str) -> OpsRead:
        row = OpsRead(len(self._rows) + 1, season_id, what, actor, utc(self._clock()))
        self._rows.append(row)
        return row

    async def list(self, season_id: str, *, after: int = 0, limit: int = 100) -> list[OpsRead]:
        mine = [r for r in self._rows if r.season_id == season_id and r.id > after]
        return mine[: min(limit, MAX_LIST)]
