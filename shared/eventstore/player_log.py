"""Players' own event log (issue 23, ADR-87; migration 0011): per-player versions, append-only.

Not a season's stream: nothing here moves a season's version, chain, exports or projections.
The command side appends (create, rotate the key, leave) at an expected version; both sides
read a player's events (the key check, the public record's name and whether the player left).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import asyncpg

from shared.eventstore.busy import Checkout
from shared.eventstore.clock import Clock, utc
from shared.eventstore.errors import ConcurrencyError

_READ = "SELECT type, data FROM player_events WHERE player_id = $1 ORDER BY version"
_READ_MANY = """
SELECT player_id, type, data FROM player_events WHERE player_id = ANY($1::text[])
ORDER BY player_id, version"""
_INSERT = """
INSERT INTO player_events (player_id, version, type, data, recorded_at)
SELECT $1, $2 + n, t, d, $5
FROM unnest($3::text[], $4::bytea[]) WITH ORDINALITY AS x(t, d, n)"""
_HEAD = "SELECT coalesce(max(version), 0) FROM player_events WHERE player_id = $1"

Row = tuple[str, bytes]  # (type, data)


class PlayerLog(Protocol):
    async def append(self, player_id: str, expected: int, events: Sequence[Row]) -> None: ...
    async def read(self, player_id: str) -> list[Row]: ...
    async def read_many(self, player_ids: Sequence[str]) -> dict[str, list[Row]]: ...


class PostgresPlayerLog:
    """Rows of `player_events`; a version taken is ConcurrencyError."""

    def __init__(self, pool: asyncpg.Pool, *, clock: Clock) -> None:
        self._pool = pool
        self._clock = clock

    async def append(self, player_id: str, expected: int, events: Sequence[Row]) -> None:
        at = utc(self._clock())
        async with Checkout(self._pool) as conn, conn.transaction():
            head = await conn.fetchval(_HEAD, player_id)
            if head != expected:
                raise ConcurrencyError(player_id, expected, int(head))
            try:
                await conn.execute(
                    _INSERT, player_id, expected, [t for t, _ in events], [d for _, d in events], at
                )
            except asyncpg.UniqueViolationError:
                raise ConcurrencyError(player_id, expected, expected + 1) from None

    async def read(self, player_id: str) -> list[Row]:
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(_READ, player_id)
        return [(r["type"], bytes(r["data"])) for r in rows]

    async def read_many(self, player_ids: Sequence[str]) -> dict[str, list[Row]]:
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(_READ_MANY, list(player_ids))
        found: dict[str, list[Row]] = {}
        for r in rows:
            found.setdefault(r["player_id"], []).append((r["type"], bytes(r["data"])))
        return found


class InMemoryPlayerLog:
    """The same answers in a dict, for the in-memory store."""

    def __init__(self) -> None:
        self._rows: dict[str, list[Row]] = {}

    async def append(self, player_id: str, expected: int, events: Sequence[Row]) -> None:
        mine = self._rows.setdefault(player_id, [])
        if len(mine) != expected:
            raise ConcurrencyError(player_id, expected, len(mine))
        mine.extend(events)

    async def read(self, player_id: str) -> list[Row]:
        return list(self._rows.get(player_id, ()))

    async def read_many(self, player_ids: Sequence[str]) -> dict[str, list[Row]]:
        return {p: list(self._rows[p]) for p in player_ids if p in self._rows}
