"""The log in commit order: the global readers of the PostgreSQL event store (docs/eventstore.md).

Positions come from one sequence and appends run in parallel, so a position's number is not
its place in the commit order: these readers go by (transaction id, position) and stop at the
horizon, the oldest transaction that may still write (sql.py, `_HORIZON`).
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from shared.eventstore import sql
from shared.eventstore.busy import Checkout
from shared.eventstore.model import RecordedEvent


class CommitOrderReads:
    """`PostgresEventStore`'s readers of the whole log, on its pool."""

    _pool: asyncpg.Pool

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Up to `limit` events after the event at `after_position` (0: from the start).

        The order is commit-safe, not numeric: events come in (transaction id, position) order
        and only up to the oldest transaction that may still be writing, so an event that
        commits later always comes after every event already returned. A catch-up reader
        passes the position of the last event it got; positions are unique, so that names its
        place in the order. Raises ValueError for a position that is no event's.
        """
        if limit < 1:
            raise ValueError("limit must be positive")
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(sql.READ_ALL, after_position, limit)
        if not rows:
            raise ValueError(f"{after_position} is not the position of a recorded event")
        return [sql.recorded(row) for row in rows if row["position"] is not None]

    async def changed_streams(
        self, after_position: int, also: Sequence[str] = (), limit: int = 100_000
    ) -> tuple[int, dict[str, int]]:
        """The seasons of the next `limit` events after the event at `after_position` in
        read_all's order, and those of `also`, each with its version; and the position to
        pass next time (the last of those events; `after_position` when there is none). One
        query (ADR-147). Raises ValueError for a position that is no event's."""
        async with Checkout(self._pool) as conn:
            row = await conn.fetchrow(sql.CHANGED_STREAMS, after_position, list(also), limit)
        if not row["known"]:
            raise ValueError(f"{after_position} is not the position of a recorded event")
        head = after_position if row["head"] is None else int(row["head"])
        return head, dict(zip(row["seasons"], map(int, row["versions"]), strict=True))

    async def head_position(self) -> int:
        """The position of the last event a reader can get now (0 when there is none).

        `read_all(head_position())` reads only what commits from now on.
        """
        async with Checkout(self._pool) as conn:
            return int(await conn.fetchval(sql.HEAD_POSITION))
